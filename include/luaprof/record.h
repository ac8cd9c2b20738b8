/* Part of include/luaprof/: the core's interface to the layer above it (lua/). */
/*
 * record.h - decoding of perf ring-buffer / perf.data records.
 *
 * A record is decoded against the lp_format of the perf_event_attr that
 * produced it.  Decoding never allocates and never reads outside [rec,
 * rec+len): every field is bounds-checked and a record whose header size,
 * counts or strings do not fit is rejected with -EPROTO.  Decoded pointers
 * (callchain, raw data, file names, comm) borrow from the record buffer and
 * are valid as long as that buffer is.
 */
#ifndef LUAPROF_RECORD_H
#define LUAPROF_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

/* How the records of one event are laid out: the relevant attr fields. */
struct lp_format {
	uint64_t sample_type;         /* PERF_SAMPLE_* bits */
	uint64_t read_format;         /* PERF_FORMAT_* bits */
	uint64_t branch_sample_type;  /* PERF_SAMPLE_BRANCH_* (HW_INDEX matters) */
	uint64_t sample_regs_user;    /* register mask of REGS_USER */
	uint64_t sample_regs_intr;    /* register mask of REGS_INTR */
	bool sample_id_all;           /* non-sample records carry a trailer */
	uint64_t period;              /* a sample's period when sample_type has no
					 PERIOD: the attr's fixed sample_period */
};

/* Fills fmt from an attr.  Never fails. */
void lp_format_from_attr(struct lp_format *fmt, const struct perf_event_attr *attr);

/* The sample_id trailer of non-sample records (fields present per
 * sample_type: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER). */
struct lp_sample_id {
	uint32_t pid, tid;
	uint64_t time;
	uint64_t id;
	uint64_t stream_id;
	uint32_t cpu;
};

struct lp_sample {
	uint64_t id;           /* IDENTIFIER or ID */
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t stream_id;
	uint32_t cpu;
	uint64_t period;
	/* READ: the raw read_format block, nr_read u64 words, laid out as
	 * read_format (the format's) says */
	const uint64_t *read;
	uint64_t nr_read;
	uint64_t read_format;
	/* CALLCHAIN, with perf's PERF_CONTEXT_* markers left in */
	const uint64_t *ips;
	uint64_t nr_ips;
	/* RAW */
	const void *raw;
	uint32_t raw_size;
	/* BRANCH_STACK: nr entries of struct perf_branch_entry */
	const struct perf_branch_entry *branches;
	uint64_t nr_branches;
	uint64_t branch_hw_idx;
	/* REGS_USER: abi 0 means no registers (kernel thread) */
	uint64_t user_abi;
	const uint64_t *user_regs;
	uint32_t nr_user_regs;
	uint64_t user_regs_mask;        /* the format's sample_regs_user: which
					   perf registers user_regs holds, in bit order */
	/* STACK_USER */
	const void *user_stack;
	uint64_t user_stack_size;
	uint64_t user_stack_dyn_size;
	uint64_t weight;       /* WEIGHT or WEIGHT_STRUCT's first u64 */
	uint64_t data_src;
	uint64_t transaction;
	uint64_t intr_abi;
	const uint64_t *intr_regs;
	uint32_t nr_intr_regs;
	uint64_t phys_addr;
	uint64_t cgroup;
	uint64_t data_page_size;
	uint64_t code_page_size;
	const void *aux;
	uint64_t aux_size;
};

/* MMAP and MMAP2 decode to the same shape (MMAP leaves the MMAP2 extras 0). */
struct lp_mmap {
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
	uint8_t build_id[20];
	uint8_t build_id_size;  /* > 0 when misc has PERF_RECORD_MISC_MMAP_BUILD_ID */
	const char *filename;   /* NUL-terminated inside the record */
};

struct lp_comm {
	uint32_t pid, tid;
	const char *comm;       /* NUL-terminated inside the record */
	bool exec;              /* PERF_RECORD_MISC_COMM_EXEC */
};

struct lp_task {                /* FORK and EXIT */
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

struct lp_lost { uint64_t id, lost; };
struct lp_throttle { uint64_t time, id, stream_id; };

struct lp_cgroup {              /* CGROUP (attr.cgroup): a cgroup's id and path */
	uint64_t id;            /* what PERF_SAMPLE_CGROUP samples carry */
	const char *path;       /* NUL-terminated inside the record: "/user.slice/..." */
};

/* KSYMBOL (attr.ksymbol): kernel code registered or unregistered while
 * the kernel runs, a BPF program's (type PERF_RECORD_KSYMBOL_TYPE_BPF) or
 * out-of-line code's (_OOL: trampolines, optimized kprobes); perf record
 * writes one for every BPF program loaded when it starts. */
struct lp_ksymbol {
	uint64_t addr;
	uint32_t len;           /* of the code at addr */
	uint16_t type;          /* PERF_RECORD_KSYMBOL_TYPE_* */
	uint16_t flags;         /* PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER: gone */
	const char *name;       /* NUL-terminated inside the record:
				 * "bpf_prog_<tag>_<name>" for a BPF program */
};

struct lp_switch {              /* SWITCH and SWITCH_CPU_WIDE (context_switch) */
	bool out;               /* PERF_RECORD_MISC_SWITCH_OUT: the task leaves */
	bool preempt;           /* ... while runnable (SWITCH_OUT_PREEMPT) */
	bool cpu_wide;          /* SWITCH_CPU_WIDE: pid/tid are set */
	uint32_t pid, tid;      /* the task that comes in (out) or left (in) */
};

struct lp_record {
	uint32_t type;          /* PERF_RECORD_* (or perf's user types >= 64) */
	uint16_t misc;
	uint16_t size;
	const void *data;       /* the whole record, borrowed */
	bool has_sid;           /* sid holds a decoded trailer */
	struct lp_sample_id sid;
	union {
		struct lp_sample sample;
		struct lp_mmap mmap;
		struct lp_comm comm;
		struct lp_task task;
		struct lp_lost lost;
		struct lp_throttle throttle;
		struct lp_switch sw;
		struct lp_cgroup cgroup;
		struct lp_ksymbol ksymbol;
		uint64_t lost_samples;  /* PERF_RECORD_LOST_SAMPLES */
	} u;
};

/* Decodes the record at rec (len bytes available, len >= header.size is
 * required).  Types this decoder does not know are returned with only type,
 * misc, size and data set (and the trailer when fmt says there is one and
 * the type is a kernel record).  Returns 0, or -EPROTO when the record does
 * not fit its own header or fmt.  out borrows from rec. */
int lp_record_parse(const void *rec, size_t len, const struct lp_format *fmt,
		    struct lp_record *out);

/* Points r, decoded from the bytes at r->data, at a copy of them at to
 * (r->size bytes): r->data and every pointer into the record (a sample's
 * callchain, raw data, registers, stack, ...; a file name; a comm) move
 * by the same distance.  Never fails. */
void lp_record_rebase(struct lp_record *r, const void *to);

/* The inverse of lp_record_parse for the records a profiler makes up (as
 * perf record synthesizes what existed before a run): encodes r (type,
 * misc and the body in r->u; data and size are ignored) as the kernel lays
 * it out into buf.  Types: MMAP, MMAP2 (the device/inode flavour, or the
 * build-id one when misc has PERF_RECORD_MISC_MMAP_BUILD_ID), COMM, FORK,
 * EXIT, LOST and KSYMBOL.  Strings are NUL-padded to 8 bytes.  When fmt->sample_id_all
 * the record ends with the sample_id trailer fmt->sample_type declares,
 * filled from r->sid (zeros when !r->has_sid).  Returns the record's size
 * (header.size), -ENOSPC when it does not fit in size bytes, or -EINVAL
 * for another type or a record over 64 KiB.  Nothing is allocated. */
int lp_record_encode(const struct lp_record *r, const struct lp_format *fmt,
		     void *buf, size_t size);

/* Finds the event id of a record without decoding it, for choosing the
 * format when several attrs share a stream: with PERF_SAMPLE_IDENTIFIER it is
 * the first u64 after the header of a sample and the last u64 of any other
 * record.  Returns 0 and sets *id, -ENOENT when the format has no
 * identifier, -EPROTO when the record is too short. */
int lp_record_peek_id(const void *rec, size_t len, const struct lp_format *fmt,
		      uint64_t *id);

/* Finds the timestamp of a record without decoding it (for ordering
 * records cheaply): the sample's TIME field, or the trailer's.  Returns 0
 * and sets *time, -ENOENT when the record carries no time, -EPROTO when it
 * is too short to hold one.  The record is not otherwise checked. */
int lp_record_peek_time(const void *rec, size_t len, const struct lp_format *fmt,
			uint64_t *time);

/* The value of perf register reg (PERF_REG_X86_*: its bit in the mask)
 * among s's sampled user registers.  Returns 0, or -ENOENT when the sample
 * has no user registers (a kernel thread) or not that one. */
int lp_sample_reg(const struct lp_sample *s, unsigned reg, uint64_t *value);

/* A group read (PERF_SAMPLE_READ with PERF_FORMAT_GROUP): the number of
 * members, 0 when the sample has none. */
uint64_t lp_sample_group_nr(const struct lp_sample *s);

/* Member i of the group read (the leader first, then the members in the
 * order they joined): its count, and its id (0 without PERF_FORMAT_ID).
 * Returns 0, or -ENOENT past the end or without a group read. */
int lp_sample_group_value(const struct lp_sample *s, uint64_t i, uint64_t *value, uint64_t *id);

/* The time of a record when the format carries one, else 0. Never fails. */
uint64_t lp_record_time(const struct lp_record *r);

#endif
