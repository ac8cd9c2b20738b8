/* Part of include/luaprof/: the core's interface to the layer above it (lua/). */
/*
 * event.h - perf events: names to perf_event_attr, and opening them.
 *
 * Event names are perf's: the software events (cpu-clock, task-clock,
 * page-faults/faults, minor-faults, major-faults, context-switches/cs,
 * cpu-migrations/migrations, alignment-faults, emulation-faults) and the
 * generic hardware ones (cycles, instructions, cache-references,
 * cache-misses, branches/branch-instructions, branch-misses, bus-cycles,
 * ref-cycles, stalled-cycles-frontend, stalled-cycles-backend), with the
 * modifiers u, k, p, pp, ppp, P after a colon; the kernel's tracepoints,
 * SYSTEM:EVENT, globs included (evitem.c); raw events rNNNN, the generic
 * cache events (L1-dcache-load-misses, ...) (evcache.c), PMU/term=value,.../
 * and per-event terms EVENT/period=N,freq=N,call-graph=fp/ (evpmu.c); probes:
 * uprobe:PATH:FUNC[+OFF], uretprobe:PATH:FUNC, usdt:PATH:PROVIDER:NAME,
 * kprobe:FUNC[+OFF], kretprobe:FUNC, and watchpoints mem:ADDR[/LEN][:rwx]
 * or mem:SYMBOL[:rwx] (evprobe.c); groups {EVENT,EVENT,...}[:mods].
 * Each event carries its own sampling settings where it has them
 * (tracepoints and watchpoints: every hit; probes: their registers), and
 * the run's settings fill in the rest.
 */
#ifndef LUAPROF_EVENT_H
#define LUAPROF_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#include "luaprof/capture.h"

/* How an event's rate is chosen (see lp_event_attr). */
enum lp_event_rate {
	LP_RATE_RUN = 0,        /* the run's -F or -c */
	LP_RATE_DEFAULT,        /* the event's own unless -F or -c was given
				 * (tracepoints: period 1, every hit, as perf) */
	LP_RATE_OWN,            /* the event's own always (a per-event term) */
};

/* What a probe's samples carry (s.args, s.retval, s.addr). */
enum lp_probe_kind {
	LP_PROBE_NONE = 0,
	LP_PROBE_UPROBE,        /* s.args: rdi, rsi, rdx, rcx, r8, r9 */
	LP_PROBE_URETPROBE,     /* s.retval: rax */
	LP_PROBE_USDT,          /* s.args: from the note's argument specs */
	LP_PROBE_KPROBE,
	LP_PROBE_KRETPROBE,
	LP_PROBE_WATCH,         /* s.addr: the watched address */
};

struct lp_usdt_probe;

struct lp_event_spec {
	char *name;             /* owned: the canonical name with its modifiers,
				 * "cycles:u", "sched:sched_switch"; other forms
				 * keep the text they were given ("r1a8:u",
				 * "uprobe:./prog:f"), or their name= term */
	uint32_t type;          /* PERF_TYPE_* or a PMU's type from sysfs */
	uint64_t config;        /* tracepoints: the id from tracefs */
	uint64_t config1, config2;      /* PMU terms; breakpoints: bp_addr, bp_len;
					 * uprobes/kprobes: config2 is the offset */
	uint32_t bp_type;       /* breakpoints: HW_BREAKPOINT_R/W/X */
	char *probe_str;        /* owned, or NULL: the string config1 points at
				 * when opened (a uprobe's object file, a
				 * kprobe's function); a watchpoint's symbol */
	uint8_t probe;          /* enum lp_probe_kind */
	struct lp_usdt_probe *usdt;     /* owned, or NULL: a USDT probe's site */
	bool reloc;             /* a watchpoint of a PIE program's variable:
				 * config1 is its link-time address until the
				 * load bias is known (lp_event_list_resolve,
				 * or the live run at the command's exec) */
	uint64_t regs_user;     /* PERF_SAMPLE_REGS_USER registers it needs */
	uint32_t stack_user;    /* bytes of user stack it needs (USDT memory) */
	uint32_t group;         /* 0: alone; else its group's number (1, 2, ...),
				 * shared by the members, the first one leading */
	bool group_leader;      /* first of its group */
	bool leader_sample;     /* :S on the group: only the leader samples,
				 * the others are read with it */
	uint32_t dwarf_stack;   /* call-graph=dwarf term: bytes of stack */
	bool exclude_user, exclude_kernel;
	bool exclude_hv;        /* :u or :k named (perf: naming a level excludes
				   the hypervisor too); else counted, as perf */
	uint8_t precise;        /* requested precise_ip (0-3) */
	bool precise_max;       /* :P, or the default event: best the machine has */
	/* The event's own sampling settings, where it has them. */
	uint8_t rate;           /* enum lp_event_rate */
	bool use_period;        /* rate != LP_RATE_RUN: period, else freq */
	uint64_t period, freq;
	int8_t callchain;       /* -1: the run's (-g); 0 or 1: the event's own
				 * (with dwarf_stack: DWARF) */
	uint64_t sample_type;   /* PERF_SAMPLE_* bits it adds (RAW: tracepoints) */
	char *filter;           /* owned, or NULL: the ftrace filter (tracepoints) */
	/* Strings kept for s:str (capture.h), as the script's luaprof.setup
	 * strings asks: the pointer fields the drain thread reads from the
	 * live process as it takes each sample from its ring (an event with
	 * any wakes the thread at every sample: wakeup_events 1); the stack
	 * copy is stack_user, with the stack pointer in regs_user. */
	struct lp_capture_plan capture;
	/* Probes whose string arguments the kernel copies (fetch arguments of
	 * a tracefs uprobe, evdyn.c): bit i (0-5) s.args[i + 1], bit 6 the
	 * return value.  Opened, the probe is that tracefs event (type
	 * PERF_TYPE_TRACEPOINT, its raw data holding the strings at fetch_off,
	 * __data_loc fields) and dyn_event its "GROUP/NAME". */
	uint8_t fetch;
	uint16_t fetch_off[7];
	char *dyn_event;        /* owned, or NULL */
	/* a library wrapper's probe that copies a system call's strings
	 * (capcall.c): it fetches each argument's value too, at fetch_addr */
	bool call_capture;
	uint16_t fetch_addr[6];
	/* ... and with fetch_argv (1 to 6), the NULL-terminated array of
	 * strings that argument points at (execve's argv): its first
	 * LP_FETCH_ARGV pointers at argv_ptr_off, their strings at argv_off */
	uint8_t fetch_argv;
	uint16_t argv_ptr_off[16], argv_off[16];
	/* a probe of a run whose events are inherited that tracefs would not
	 * take (evdyn.c): opened through the uprobe PMU without inherit, on
	 * the threads the run opens it on only */
	bool no_inherit;
	/* a probe placed in tracefs (dyn_event): the uprobe PMU's type and
	 * config it had, which a recording declares (lp_event_file_attr) */
	uint32_t pmu_type;
	uint64_t pmu_config;
};

/* The most elements of an array of strings a probe copies (bpftrace's
 * join() takes 16 too). */
#define LP_FETCH_ARGV 16

/* lp_event_spec.fetch's bit of the return value. */
#define LP_FETCH_RETVAL (1u << 6)

/* Parses one event name of the fixed table ("cycles", "cs:u",
 * "cpu-clock:k") into out, which then owns its name (lp_event_spec_free).
 * Tracepoints and lists: see lp_event_list_add.  Returns 0, -ENOENT for an
 * unknown name, -EINVAL for a bad modifier, -ENOMEM; out owns nothing on
 * failure. */
int lp_event_parse(const char *str, struct lp_event_spec *out);

/* Entry i of the table of named events (hardware and software), for
 * listing them: its name, type and config; NULL past the end.  An alias
 * has the type and config of the canonical name before it. */
const char *lp_event_table(size_t i, uint32_t *type, uint64_t *config);

/* The default event, as perf chooses it: cycles at the highest precision.
 * Returns 0 or -ENOMEM. */
int lp_event_default(struct lp_event_spec *out);

/* Replaces spec's name with a copy of name.  Returns 0 or -ENOMEM (the old
 * name is kept). */
int lp_event_rename(struct lp_event_spec *spec, const char *name);

/* Frees what spec owns (its name, filter, probe string, USDT site) and
 * clears them.  Accepts a zeroed spec. */
void lp_event_spec_free(struct lp_event_spec *spec);

/* ---- lists of events: the -e syntax (evparse.c; freeing: evspecs.c) ---- */

struct lp_event_list {
	struct lp_event_spec *v;        /* owned, with what each owns */
	size_t n, cap;
};

/* Parses a comma-separated list of events and appends them to l: names of
 * the fixed table with modifiers; tracepoints SYSTEM:EVENT, where either
 * part may be a glob (fnmatch(3): "syscalls:sys_enter_*"), expanded to
 * every tracepoint it matches, in name order; raw, cache and PMU events
 * and per-event terms; probes and watchpoints; groups "{a,b}" (see the top
 * of this file).  Commas inside {...} and /.../ do not split.  A
 * tracepoint's id comes from tracefs; it is sampled at every hit (period
 * 1, PERF_SAMPLE_RAW) unless the run sets -F or -c, as are watchpoints
 * and probes.  A USDT probe with several sites adds one event per site,
 * all of the one name.  Returns 0, or -errno with one line in
 * lp_last_error() (err.h) naming the event and the fix (unknown name,
 * tracepoint, PMU, term, file, function or probe; a glob that is malformed or matches nothing; tracefs
 * not mounted or not readable; no kprobe PMU; a malformed group); l then
 * holds the events it held before (its array may have grown: free it with
 * lp_event_list_free as on success). */
int lp_event_list_add(struct lp_event_list *l, const char *str);

/* The longest event string lp_event_list_add takes (a path of PATH_MAX,
 * 4096, with a function and its modifiers); longer ones are -E2BIG. */
#define LP_EVENT_STR_MAX (4096 + 256)

/* Resolves the watchpoints of l that name a variable (mem:SYMBOL) in the
 * program at path: its address (config1) and, unless set, its length.  A
 * PIE program's address is moved by the load bias of process pid when pid
 * > 0 (a running process), else left for the run to move at the command's
 * exec (spec->reloc stays true).  Returns 0, or -errno with one line in
 * lp_last_error() (no such variable, a symbol that is not a variable, a
 * misaligned or odd-sized one). */
int lp_event_list_resolve(struct lp_event_list *l, const char *path, pid_t pid);

/* Whether l has watchpoints whose address waits for the load bias. */
bool lp_event_list_needs_bias(const struct lp_event_list *l);

/* Appends the default event (lp_event_default).  0 or -ENOMEM. */
int lp_event_list_add_default(struct lp_event_list *l);

/* Frees every spec and the array; l is empty and reusable after. */
void lp_event_list_free(struct lp_event_list *l);

/* How to sample: the run's settings (the command line and luaprof.setup),
 * which each event's own settings override. */
struct lp_sampling {
	bool use_period;        /* period instead of frequency */
	uint64_t freq;          /* samples per second (use_period false) */
	uint64_t period;        /* events per sample (use_period true) */
	bool user_rate;         /* freq/period were given (-F, -c, setup), so
				 * they override LP_RATE_DEFAULT events too */
	bool callchain;         /* PERF_SAMPLE_CALLCHAIN (frame pointers) */
	uint32_t dwarf_stack;   /* --call-graph dwarf: bytes of user stack to copy
				   with the user registers (0: not dwarf) */
	bool inherit;           /* follow children (task targets) */
	bool enable_on_exec;    /* start counting at the target's exec */
	bool tracking;          /* emit MMAP2/COMM/FORK/EXIT (first event only) */
	bool switch_events;     /* with tracking: SWITCH records too (perf's
				 * --switch-events: context_switch) */
	bool all_cgroups;       /* PERF_SAMPLE_CGROUP, and with tracking CGROUP
				 * records (perf's --all-cgroups) */
	bool count_only;        /* count, never sample (luaprof stat) */
	bool ksymbols;          /* with tracking: KSYMBOL records, of the BPF
				 * programs loaded and unloaded (lp_evlist_init
				 * sets it when the kernel takes it: Linux 5.1
				 * on) */
	bool read_lost;         /* PERF_FORMAT_LOST on sampling events but a
				 * group's (lp_evlist_init sets it when the
				 * kernel takes it: Linux 6.0 on) */
};

/* Fills attr for spec sampled as s: IDENTIFIER|IP|TID|TIME|CPU, the bits
 * the spec adds, CALLCHAIN (the spec's own setting, else s's), disabled,
 * sample_id_all, CLOCK_MONOTONIC timestamps.  The rate is the spec's own
 * (LP_RATE_OWN, or LP_RATE_DEFAULT while !s->user_rate), else s's.  PERIOD
 * is sampled unless the period is fixed above 1: with it the kernel takes a
 * fixed period as a request to sample every software event (see event.c).
 * With s->dwarf_stack (and no call graph setting of the spec's own), as
 * perf record --call-graph dwarf: +REGS_USER (the registers of
 * LP_DWARF_REGS_MASK) +STACK_USER (dwarf_stack bytes) and the callchain's
 * kernel part only (exclude_callchain_user).  The precise level used is
 * spec->precise (or 3 for precise_max); opening lowers it when the machine
 * refuses.  Never fails. */
void lp_event_attr(const struct lp_event_spec *spec, const struct lp_sampling *s,
		   struct perf_event_attr *attr);

/* The attr a recording declares for spec, opened with opened: opened,
 * but for a probe that is a tracefs event without fetch arguments (its
 * samples those of the uprobe PMU's event: evdyn.c), which is declared
 * as the PMU's event of the same file offset, as before tracefs took it,
 * so that perf report and perf script show it as such (by symbol, not
 * as a tracepoint whose format is gone with the run).  Returns whether
 * *out was made (else the recording declares opened). */
bool lp_event_file_attr(const struct lp_event_spec *spec, const struct perf_event_attr *opened,
			struct perf_event_attr *out);

/* The user registers perf samples for --call-graph dwarf on x86_64: all
 * but the segment registers DS, ES, FS and GS (perf's PERF_REGS_MASK). */
#define LP_DWARF_REGS_MASK 0xff0fffull
/* The user registers a uprobe samples: rax (the return value) and the six
 * argument registers of the System V ABI, rdi, rsi, rdx, rcx, r8, r9
 * (perf's numbering: AX 0, CX 2, DX 3, SI 4, DI 5, R8 16, R9 17). */
#define LP_PROBE_REGS_MASK 0x3003dull
/* perf's default and largest user stack copies (the largest keeps a record
 * within the 16-bit header size). */
#define LP_DWARF_STACK_DEFAULT 8192u
#define LP_DWARF_STACK_MAX 65528u
/* The largest sampling period the kernel takes: perf_event_open refuses
 * one with the top bit set (EINVAL), though sample_period is a u64. */
#define LP_PERIOD_MAX ((UINT64_C(1) << 63) - 1)

/* The perf_event_open(2) system call: the fd, or -errno (no message). */
int lp_event_sys_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		      unsigned long flags);

/* What lp_event_open() had to change to open the event. */
enum lp_fallback {
	LP_FALLBACK_NONE = 0,
	LP_FALLBACK_CPU_CLOCK = 1,     /* no hardware PMU: cycles became cpu-clock */
	LP_FALLBACK_USER_ONLY = 2,     /* kernel samples refused: :u added */
	LP_FALLBACK_PRECISE = 4,       /* precise_ip lowered */
	LP_FALLBACK_NO_INHERIT = 8,    /* a group read with samples (PERF_SAMPLE_READ)
					  refused with inherit (before Linux 6.12):
					  the threads it starts are not followed */
};

/* Opens spec (sampling s) on (pid, cpu), applying perf's fallbacks: cycles
 * without a PMU becomes cpu-clock (task-level targets) and the name changes
 * accordingly; EACCES with kernel samples included retries user-only (":u"
 * added to the name; never for tracepoints, which fire in the kernel);
 * precise_max lowers precise_ip until accepted.  spec is updated to what was
 * opened, and the fallbacks applied are or-ed into *fallbacks.  Returns the
 * fd, or a negative errno of the last attempt.  The filter is not set here
 * (lp_event_set_filter). */
int lp_event_open(struct lp_event_spec *spec, const struct lp_sampling *s,
		  pid_t pid, int cpu, unsigned *fallbacks);

/* The same in the group of group_fd (-1: none).  Counting runs
 * (s->count_only) never turn cycles into cpu-clock: perf stat shows what
 * the machine cannot count as such. */
int lp_event_open_group(struct lp_event_spec *spec, const struct lp_sampling *s, pid_t pid,
			int cpu, int group_fd, unsigned *fallbacks);

/* One event's count, read(2) from its fds (summed over CPUs and threads)
 * with its enabled and running times. */
struct lp_count {
	uint64_t value;         /* the raw count */
	uint64_t enabled;       /* ns the event was enabled */
	uint64_t running;       /* ns it was on a counter (less when multiplexed) */
	bool supported;         /* false: the machine cannot count it (counting
				   runs leave such events out, as perf stat) */
};

/* The count scaled for multiplexing, as perf stat: value * enabled /
 * running when it ran part of the time, 0 when it never ran. */
uint64_t lp_count_scaled(const struct lp_count *c);

/* Sets spec's ftrace filter (when it has one) on fd, an event of spec
 * (PERF_EVENT_IOC_SET_FILTER).  Returns 0, or -errno: -EINVAL when the
 * kernel rejects the expression. */
int lp_event_set_filter(int fd, const struct lp_event_spec *spec);

/* The name spec takes when its kernel samples are refused and it falls
 * back to user space only: "cycles:u", "cycles:ppu", "uprobe:/bin/bash:
 * readline:u".  The caller frees it; NULL on ENOMEM. */
char *lp_event_user_only_name(const struct lp_event_spec *spec);

/* The kernel's perf_event_paranoid setting (2 when unreadable). */
int lp_event_paranoid(void);

/* The kernel's limit on sampling frequencies,
 * kernel.perf_event_max_sample_rate (which the kernel lowers by itself
 * when sampling interrupts take too long); 0 when unreadable. */
uint64_t lp_event_max_sample_rate(void);

/* Whether this kernel takes PERF_FORMAT_LOST (Linux 6.0 on), found once
 * by opening a disabled dummy event on the calling thread (user space
 * only, so any paranoid level that allows profiling allows it); false
 * when that open fails for any reason. */
bool lp_event_kernel_reads_lost(void);

/* Whether this kernel writes KSYMBOL records (attr.ksymbol: Linux 5.1
 * on), found once as lp_event_kernel_reads_lost. */
bool lp_event_kernel_ksymbols(void);

#endif
