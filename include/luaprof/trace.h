/* Part of include/luaprof/: the core's interface to the layer above it (lua/). */
/*
 * trace.h - kernel tracepoints: tracefs, the format of each event, the
 * decoding of a sample's raw data into typed fields, perf's TRACING_DATA
 * (the formats a recording carries), and this architecture's system calls.
 *
 * A tracepoint sample (PERF_SAMPLE_RAW) holds the event's record as the
 * kernel lays it out; its format (tracefs events/SYSTEM/NAME/format, or
 * the copy a recording stores) names each field with its C type, offset,
 * size and signedness.  Formats are parsed once per event, never per
 * sample; decoding a field bounds-checks it against the sample's data.
 */
#ifndef LUAPROF_TRACE_H
#define LUAPROF_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- formats ----------------------------------------------------------- */

/* How a field's bytes become a value. */
enum lp_tp_kind {
	LP_TP_INT,              /* integer of size 1, 2, 4 or 8 (pointers too) */
	LP_TP_STRING,           /* char[N] or __data_loc char[]: up to its NUL */
	LP_TP_ARRAY,            /* T[N] or __data_loc T[]: elem_size-byte elements */
	LP_TP_BYTES,            /* anything else: the bytes as they are */
};

struct lp_tp_field {
	const char *name;       /* "prev_pid" */
	const char *type;       /* as declared, without the name: "char[16]" */
	uint32_t offset, size;  /* in the raw data */
	bool is_signed;
	bool common;            /* common_type, common_pid, ...: the ftrace header */
	bool dyn;               /* __data_loc / __rel_loc: the field is a u32,
				 * offset | length << 16, of data further on */
	bool rel;               /* __rel_loc: the offset counts from the field's end */
	uint8_t kind;           /* enum lp_tp_kind */
	uint8_t elem_size;      /* arrays: 1, 2, 4 or 8 */
	uint32_t count;         /* fixed arrays: number of elements */
};

struct lp_tp_format {
	const char *system;     /* "sched" */
	const char *name;       /* "sched_switch" */
	uint64_t id;            /* the tracepoint id: perf_event_attr.config */
	const struct lp_tp_field *fields;
	size_t nr_fields;       /* common ones first, as the kernel lists them */
};

/* Parses the text of a format file (len bytes, need not be NUL-terminated)
 * of an event of system (copied).  The result is one allocation, freed with
 * free() or lp_tp_format_free().  Returns 0 and *out, -EPROTO when the text
 * is not a format (no name, no ID, a field line that does not parse, a
 * field outside 64 KiB), -ENOMEM. */
int lp_tp_format_parse(const char *text, size_t len, const char *system,
		       struct lp_tp_format **out);
void lp_tp_format_free(struct lp_tp_format *f);

/* The field called name, or NULL. */
const struct lp_tp_field *lp_tp_field_find(const struct lp_tp_format *f, const char *name);

/* ---- decoding one sample's data (raw, size bytes) --------------------- */

/* An LP_TP_INT field, sign-extended when the field is signed.  Returns 0,
 * or -ERANGE when the field does not lie inside the data. */
int lp_tp_read_int(const struct lp_tp_field *f, const void *raw, size_t size, uint64_t *v);

/* A string field (LP_TP_STRING): *s points into raw,
 * *len stops at the first NUL or the field's end.  -ERANGE when the field
 * (or the dynamic data it points at) lies outside the data. */
int lp_tp_read_string(const struct lp_tp_field *f, const void *raw, size_t size,
		      const char **s, size_t *len);

/* The bytes of any field: for dynamic ones the data they point at.
 * -ERANGE as above. */
int lp_tp_read_bytes(const struct lp_tp_field *f, const void *raw, size_t size,
		     const uint8_t **p, size_t *len);

/* Element i of an array whose bytes (from lp_tp_read_bytes) are at p,
 * sign-extended when the field is signed.  i must be below the byte count
 * divided by f->elem_size. */
uint64_t lp_tp_elem(const struct lp_tp_field *f, const uint8_t *p, size_t i);

/* ---- sets of formats --------------------------------------------------- */

/* Formats by tracepoint id (a recording's, or those read from tracefs). */
struct lp_tp_set;

/* An empty set (lp_tp_set_free), or NULL with errno ENOMEM. */
struct lp_tp_set *lp_tp_set_new(void);
/* Adds f, which the set then owns (freed at once on failure).  A second
 * format with an id already there replaces nothing: the first stays.
 * Returns 0 or -ENOMEM. */
int lp_tp_set_add(struct lp_tp_set *set, struct lp_tp_format *f);
/* The format of tracepoint id, or NULL. */
const struct lp_tp_format *lp_tp_set_find(const struct lp_tp_set *set, uint64_t id);
size_t lp_tp_set_count(const struct lp_tp_set *set);
void lp_tp_set_free(struct lp_tp_set *set);

/* ---- tracefs ----------------------------------------------------------- */

/* The mount point of tracefs: /sys/kernel/tracing, else
 * /sys/kernel/debug/tracing (the first with an events/ directory), looked
 * for once.  NULL with errno ENOENT when neither is mounted, EACCES when
 * one exists but cannot be read (tracefs is root's by default). */
const char *lp_tracefs_dir(void);

/* Reads the file rel under tracefs ("events/sched/sched_switch/format")
 * into a malloc'd, NUL-terminated buffer.  Returns 0 with *out (the
 * caller frees it) and *len, or -errno (-ENODEV: tracefs not mounted). */
int lp_tracefs_read(const char *rel, char **out, size_t *len);

/* The id of tracepoint system:event.  Returns 0, -ENOENT when there is no
 * such tracepoint, -ENODEV when tracefs is not mounted, -EACCES. */
int lp_tracefs_id(const char *system, const char *event, uint64_t *id);

/* Reads and parses the format of system:event: 0 and *out (see
 * lp_tp_format_parse), or its -errno, or lp_tracefs_read's (no message). */
int lp_tracefs_format(const char *system, const char *event, struct lp_tp_format **out);

/* Calls fn(system, event, arg) for each tracepoint whose system matches
 * the glob sys_glob and whose name matches ev_glob (fnmatch(3)), in order
 * of "system:event"; stops when fn returns non-zero and returns that.
 * Returns 0, or -ENODEV / -EACCES as above, -ENOMEM. */
int lp_tracefs_each(const char *sys_glob, const char *ev_glob,
		    int (*fn)(const char *system, const char *event, void *arg), void *arg);

/* ---- perf's TRACING_DATA ----------------------------------------------- */

/* Parses a TRACING_DATA block (the feature section, or the payload of a
 * pipe's HEADER_TRACING_DATA record; perf's trace-event-read.c layout)
 * and adds every event format it holds to set.  A format that does not
 * parse is left out, as perf does; the block's own structure must hold.
 * Returns 0, -EPROTO (not TRACING_DATA, a size past its end, big-endian
 * data), -ENOMEM. */
int lp_tdata_parse(const void *data, size_t len, struct lp_tp_set *set);

/* Builds the TRACING_DATA block perf record writes for the tracepoints
 * named "system:event" in names (nr of them, duplicates allowed) from
 * tracefs: header_page, header_event, the event formats by system,
 * printk_formats and saved_cmdlines.  Returns 0 with *out (malloc'd, the
 * caller frees it) and *len, or -errno (-ENODEV: no tracefs). */
int lp_tdata_build(const char *const *names, size_t nr, void **out, size_t *len);

/* ---- system calls ------------------------------------------------------ */

/* This architecture's system call of number nr, or NULL.  The table is
 * generated from the system's <asm/unistd.h> (asm/unistd_64.h on x86-64)
 * when luaprof is built. */
const char *lp_syscall_name(long nr);

/* The name libaudit gives system call nr on this machine ("pread" for
 * pread64), as perf's Python scripts print it with python3-audit, or NULL
 * where libaudit has none.  Generated when luaprof is built, from
 * libaudit.so.1 (the kernel's names when the build had no libaudit). */
const char *lp_syscall_audit_name(long nr);

/* The number of the system call called name ("getppid"), or -1. */
long lp_syscall_nr(const char *name);

/* The name of error number nr ("ENOENT" for 2), from this system's
 * <errno.h> when luaprof was built, or NULL when it has none. */
const char *lp_errno_name(int nr);

/* ---- named constants (consts.c) -------------------------------------- */

/* The name of signal nr ("SIGKILL" for 9), from this system's
 * <asm/signal.h> when luaprof was built, or NULL. */
const char *lp_signal_name(int nr);

/* The open flags as names joined by '|' ("O_RDONLY|O_CLOEXEC"), the
 * access mode first, flags of several bits (O_SYNC, O_TMPFILE) before
 * those they include, bits without a name as one hex number at the end;
 * from <asm/fcntl.h>, the kernel's values.  Writes at most size bytes,
 * NUL-terminated, into buf and returns the length the whole needs. */
size_t lp_open_flags_str(unsigned long long flags, char *buf, size_t size);

/* What a task's state (sched_switch's prev_state) is made of: one letter
 * per bit, and the bit above them that marks a task preempted while it
 * could run ("R+"). */
#define LP_TASK_STATES_MAX 16
struct lp_task_states {
	size_t nr;
	unsigned long long preempted;
	struct { unsigned long long bit; char letter; } flag[LP_TASK_STATES_MAX];
};

/* This kernel's task states, from sched_switch's format in tracefs (its
 * print fmt), else Linux 4.14's and later (S D T t X Z P I, 0x100).
 * Never fails. */
void lp_task_states_load(struct lp_task_states *ts);

/* The state as the kernel's format prints it: "R", "R+" (preempted),
 * "S", "D", ..., several joined by '|' (unknown bits in hex).  Writes as
 * lp_open_flags_str does. */
size_t lp_task_state_str(const struct lp_task_states *ts, unsigned long long state, char *buf,
			 size_t size);

/* Constant i of all those named (error numbers, signals, open flags), in
 * no particular order: its name and *value; NULL past the last. */
const char *lp_const_at(size_t i, long long *value);

#endif
