/* Part of include/luaprof/: the core's interface to the layer above it (lua/). */
/*
 * capture.h - the strings an event pointed at, kept as the event saw them.
 *
 * A tracepoint's pointer argument (openat's filename) names memory of the
 * process that made the call.  A script reads it later, when the process
 * may have exited (a short-lived command always has) or changed that
 * memory.  luaprof keeps what it can of each string at the event, from
 * the exact sources to the late ones (docs/perf-differences.md, "Strings"):
 *
 *  - the kernel's own copy: a probe with fetch arguments (a tracefs uprobe
 *    "+0(%di):ustring", evdyn.c) carries the string in its raw data;
 *  - the sample's copy of the user stack (PERF_SAMPLE_STACK_USER): a
 *    string on the stack (a program's arguments at the top of it, a local
 *    buffer) is there as it was at the event (lp_sample_stack_str);
 *  - the file itself, for a string in a read-only mapping of a file (a
 *    string literal: lp_procs_file_str);
 *  - a read of the live process made by the thread that drains the rings,
 *    as it takes the sample from its ring, microseconds after the event
 *    (a capture record, below): a short-lived process usually still runs
 *    then, where it has long exited when the script reads the sample;
 *  - a read of the live process when the script asks (lp_proc_read_str).
 *
 * A capture record is luaprof's own record type, made by the drain thread
 * (live.c) just before the sample it belongs to, with the sample's time,
 * pid and tid; it never goes into a recording (perf would refuse the
 * type).
 */
#ifndef LUAPROF_CAPTURE_H
#define LUAPROF_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "luaprof/record.h"

/* The record type: far above perf's own (kernel types below 64, perf's
 * user types below 128). */
#define LP_RECORD_CAPTURE 0x6c700001u

/* The most items one capture record holds, and the most pointer fields an
 * event has captured. */
#define LP_CAPTURE_MAX 8

/* The longest string a capture keeps (PATH_MAX), and the most bytes of a
 * process's command line. */
#define LP_CAPTURE_STR_MAX 4096u
#define LP_CAPTURE_CMDLINE_MAX 32768u

/* The most bytes one capture record takes (it must fit a record's 16-bit
 * size). */
#define LP_CAPTURE_ROOM 65528u

/* The bytes of user stack a capturing tracepoint copies: a buffer of the
 * calling function, or of its callers.  A program's arguments at the top
 * of its stack are 9 KiB above the stack pointer of cat's openat of its
 * argument (with a small environment), but past a gap of pages the
 * program never touched half the time, where the kernel's copy stops:
 * libc's wrappers' probes copy those (capcall.c).  Each sample carries the
 * whole copy, so its size is a cost per traced event (docs/performance.md,
 * "Measured choices in the code"). */
#define LP_CAPTURE_STACK 8192u

/* What an item holds. */
enum lp_capture_kind {
	LP_CAPTURE_STR = 1,     /* the string at addr */
	LP_CAPTURE_CMDLINE,     /* /proc/PID/cmdline: the arguments, NUL-separated */
	LP_CAPTURE_CALL,        /* the string at addr, copied by the kernel at the
				 * library call that made the system call (capcall.c) */
	LP_CAPTURE_ARGV,        /* an exec's arguments, NUL-separated, copied by the
				 * kernel at the library's execve call (capcall.c) */
};


struct lp_capture_item {
	uint64_t addr;          /* LP_CAPTURE_STR: the pointer read */
	const char *data;       /* borrowed from the record; len bytes, no NUL */
	uint32_t len;
	uint16_t kind;          /* enum lp_capture_kind */
	int16_t err;            /* 0, or the errno of a failed read (ESRCH: the
				 * process had exited; EFAULT: not readable) */
};

struct lp_capture {
	uint64_t time;          /* the sample's, or the call's */
	uint32_t pid, tid;
	bool call;              /* a library call's strings (capcall.c), for the
				 * thread's system call that follows, not for a
				 * sample of the same time */
	size_t nr;
	struct lp_capture_item items[LP_CAPTURE_MAX];
};

/* What the drain side reads for one event's samples. */
struct lp_capture_plan {
	uint8_t nr_ptrs;        /* pointer fields of the raw data, read as strings */
	uint16_t ptr_off[LP_CAPTURE_MAX];       /* their offsets in the raw data */
	bool cmdline;           /* /proc/PID/cmdline (sched_process_exec) */
};

/* Writes the capture record of sample s (decoded, a sample of an event
 * with plan) into out (room bytes, 8-byte aligned): the strings at its
 * pointer fields and the command line, read from the live process s->pid
 * now.  Returns the record's size, 0 when the plan reads nothing or s has
 * no raw data where one is needed.  Never fails otherwise: an item that
 * cannot be read carries its errno. */
size_t lp_capture_build(const struct lp_capture_plan *plan, const struct lp_sample *s, void *out,
			size_t room);

/* Writes a call record (lp_capture.call) of the nr items at items (kinds
 * LP_CAPTURE_CALL or LP_CAPTURE_ARGV, their data copied) for the thread
 * and time of sample s, a library call's probe's, into out (room bytes,
 * 8-byte aligned).  Returns its size; 0 when nothing fits. */
size_t lp_capture_call(const struct lp_sample *s, const struct lp_capture_item *items, size_t nr,
		       void *out, size_t room);

/* Decodes a capture record (len bytes at rec, 8-byte aligned) into out,
 * which borrows from it.  Returns 0, or -EPROTO when it is not one or does
 * not fit its own sizes. */
int lp_capture_decode(const void *rec, size_t len, struct lp_capture *out);

/* The string at addr in sample s's copy of the user stack: when addr lies
 * in the copy (from the sampled stack pointer up) and the string ends
 * there, *str points at it inside the sample, *len bytes without the NUL
 * (at most max).  Returns 0, -ENOENT when addr is not in the copy, or
 * -ERANGE when the string runs past its end (the copy holds its start
 * only). */
int lp_sample_stack_str(const struct lp_sample *s, uint64_t addr, size_t max, const char **str,
			size_t *len);

/* Whether the tracepoint named event ("SYSTEM:NAME") is an exec's whose
 * samples give the arguments (s.args.argv): sched:sched_process_exec
 * (the new program's), syscalls:sys_exit_execve and sys_exit_execveat
 * (the new program's, or a failed exec's).  Their strings, kept, are
 * libc's execve copying its argv, the sample's stack copy and the drain
 * thread's read of /proc/PID/cmdline (capture_plan.cmdline). */
bool lp_capture_exec_event(const char *event);

#endif
