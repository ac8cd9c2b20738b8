/*
 * event.h - perf events: names to perf_event_attr, and opening them.
 *
 * Event names are perf's: the software events (cpu-clock, task-clock,
 * page-faults/faults, minor-faults, major-faults, context-switches/cs,
 * cpu-migrations/migrations, alignment-faults, emulation-faults) and the
 * generic hardware ones (cycles, instructions, cache-references,
 * cache-misses, branches/branch-instructions, branch-misses, bus-cycles,
 * ref-cycles, stalled-cycles-frontend, stalled-cycles-backend), with the
 * modifiers u, k, p, pp, ppp, P after a colon.
 */
#ifndef LUAPROF_EVENT_H
#define LUAPROF_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

struct lp_event_spec {
	char name[64];          /* canonical name with its modifiers: "cycles:u" */
	uint32_t type;          /* PERF_TYPE_HARDWARE or PERF_TYPE_SOFTWARE */
	uint64_t config;
	bool exclude_user, exclude_kernel;
	uint8_t precise;        /* requested precise_ip (0-3) */
	bool precise_max;       /* :P, or the default event: best the machine has */
};

/* Parses one event name ("cycles", "cs:u", "cpu-clock:k").  Returns 0,
 * -ENOENT for an unknown name, -EINVAL for a bad modifier. */
int lp_event_parse(const char *str, struct lp_event_spec *out);

/* The default event, as perf chooses it: cycles at the highest precision. */
void lp_event_default(struct lp_event_spec *out);

/* How to sample. */
struct lp_sampling {
	bool use_period;        /* period instead of frequency */
	uint64_t freq;          /* samples per second (use_period false) */
	uint64_t period;        /* events per sample (use_period true) */
	bool callchain;         /* PERF_SAMPLE_CALLCHAIN (frame pointers) */
	uint32_t dwarf_stack;   /* --call-graph dwarf: bytes of user stack to copy
				   with the user registers (0: not dwarf) */
	bool inherit;           /* follow children (task targets) */
	bool enable_on_exec;    /* start counting at the target's exec */
	bool tracking;          /* emit MMAP2/COMM/FORK/EXIT (first event only) */
};

/* Fills attr for spec sampled as s: IDENTIFIER|IP|TID|TIME|CPU, PERIOD with
 * a frequency only (as perf: see event.c), +CALLCHAIN, disabled, sample_id_all, CLOCK_MONOTONIC timestamps.
 * With s->dwarf_stack, as perf record --call-graph dwarf: +REGS_USER (the
 * registers of LP_DWARF_REGS_MASK) +STACK_USER (dwarf_stack bytes) and the
 * callchain's kernel part only (exclude_callchain_user).  The
 * precise level used is spec->precise (or 3 for precise_max); opening lowers
 * it when the machine refuses.  Never fails. */
void lp_event_attr(const struct lp_event_spec *spec, const struct lp_sampling *s,
		   struct perf_event_attr *attr);

/* The user registers perf samples for --call-graph dwarf on x86_64: all
 * but the segment registers DS, ES, FS and GS (perf's PERF_REGS_MASK). */
#define LP_DWARF_REGS_MASK 0xff0fffull
/* perf's default and largest user stack copies (the largest keeps a record
 * within the 16-bit header size). */
#define LP_DWARF_STACK_DEFAULT 8192u
#define LP_DWARF_STACK_MAX 65528u

/* The perf_event_open(2) system call. */
int lp_event_sys_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		      unsigned long flags);

/* What lp_event_open() had to change to open the event. */
enum lp_fallback {
	LP_FALLBACK_NONE = 0,
	LP_FALLBACK_CPU_CLOCK = 1,     /* no hardware PMU: cycles became cpu-clock */
	LP_FALLBACK_USER_ONLY = 2,     /* kernel samples refused: :u added */
	LP_FALLBACK_PRECISE = 4,       /* precise_ip lowered */
};

/* Opens spec (sampling s) on (pid, cpu), applying perf's fallbacks: cycles
 * without a PMU becomes cpu-clock (task-level targets) and the name changes
 * accordingly; EACCES with kernel samples included retries user-only (":u"
 * added to the name); precise_max lowers precise_ip until accepted.  spec is
 * updated to what was opened, and the fallbacks applied are or-ed into
 * *fallbacks.  Returns the fd, or a negative errno of the last attempt. */
int lp_event_open(struct lp_event_spec *spec, const struct lp_sampling *s,
		  pid_t pid, int cpu, unsigned *fallbacks);

/* The kernel's perf_event_paranoid setting (2 when unreadable). */
int lp_event_paranoid(void);

#endif
