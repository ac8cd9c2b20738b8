/*
 * lp.h - internal to lua/: the state of a run the host owns (the VM, the
 * views, the bindings' state) and shares with the driver loop and the
 * command line; what only the loop reads is in lua/cmd/run.h (struct
 * lp_loop, run->loop).
 */
#ifndef LP_LUA_H
#define LP_LUA_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <lua.h>

#include "luaprof/buf.h"
#include "luaprof/capture.h"
#include "luaprof/proc.h"
#include "luaprof/record.h"
#include "luaprof/source.h"
#include "luaprof/sym.h"

#define LP_EXIT_FAILURE 255     /* luaprof's own failures */
#define LP_SAMPLE_MT "luaprof.view.Sample"   /* every light userdata's metatable */
#define LP_MAX_STACK 512        /* frames kept per sample */
#define LP_SCRIPT_MEMORY_DEFAULT 1024   /* MB, or a quarter of the RAM when less */

/* Fixed slots of the Lua state's base stack (not of a C function's), set
 * by lp_vm_open: the message handler, and for the per-sample call the
 * on_sample function (or nil), the view's cache (lsample.c), and the table of each event's
 * handler: event index + 2 -> the function its samples go to (on_event's
 * or on_sample), or false; index 1 is for samples of no known event. */
#define LP_SLOT_MSGH 1
#define LP_SLOT_ON_SAMPLE 2
#define LP_SLOT_VIEW 3
#define LP_SLOT_HANDLERS 4
#define LP_SLOT_FIELDS 5        /* ltrace.c: the s.args being shown, or nil */
#define LP_SLOT_FKEYS 6         /* ltrace.c: its field names, or nil */

struct lp_tp_format;
struct lp_hmap;
struct lp_event_spec;

struct lp_tpview;

struct lp_run;

/* The switch record view (lswitch.c): a light userdata of its own per
 * call (lp_view_next), pointed at the current record only while on_switch
 * runs. */
struct lp_switch_view {
	int ref;                        /* its field names, LUA_NOREF until made */
	const void *ud;                 /* the current call's view */
	/* its __index and __tostring, which the Sample's (every light
	 * userdata's) hand a switch view to; set with its first view */
	int (*index)(lua_State *L, struct lp_run *run);
	int (*tostring)(lua_State *L, struct lp_run *run);
	const struct lp_record *rec;    /* NULL outside on_switch */
	bool has_cpu;                   /* the record's event samples CPU */
};

/* The sample view: a light userdata of its own per call (lp_view_next),
 * pointed at the current sample only while its handler runs.  Lazily
 * computed fields are cached here for the call. */
#define LP_VIEW_KEYS 16
#define LP_VIEW_NAMES 1024

struct lp_view {
	const void *ud;                 /* the current call's view: any other is expired */
	const struct lp_record *rec;    /* NULL outside on_sample */
	int event;
	uint64_t sample_type;           /* the event's PERF_SAMPLE_* bits */
	const struct lp_event_spec *spec;       /* the event's spec (live runs), or NULL */
	struct lp_thread *thread;
	bool have_frame;
	struct lp_frame frame;          /* s.sym, s.dso, s.symoff, s.kernel */
	const uint64_t *addrs;          /* lstack.c: the stack's addresses, once known */
	uint64_t nr_addrs;
	bool unwound;                   /* addrs holds a DWARF-unwound user stack */
	uint32_t cached;                /* bit set of uservalue slots filled */
	uint64_t noted;                 /* lsample.c: fields said once to be missing */
	/* lsample.c: the field names read, by their Lua strings' addresses,
	 * and the resolver's names whose Lua strings are cached */
	struct lp_view_key { const char *key; int field; } keys[LP_VIEW_KEYS];
	const char *names[LP_VIEW_NAMES];
};

/* guard.c: what stops a runaway script (see there).  Written by the main
 * thread; the watchdog reads calls and overdue, the signal handlers the
 * rest. */
struct lp_guard {
	lua_State *L;                   /* NULL while the state closes: no hook can act */
	lua_State *volatile running;    /* the coroutine running now (NULL: the main thread) */
	_Atomic unsigned long calls;    /* +1 on a hook's entry and exit: odd inside */
	const char *hook;               /* the hook running, or run last */
	size_t bytes, limit;            /* the Lua state's memory, its limit (0: none) */
	bool limit_hit;                 /* an allocation was refused in this call */
	volatile sig_atomic_t armed;    /* the count hook is set, and why */
	volatile sig_atomic_t signo, signals;
	volatile sig_atomic_t struck;   /* the error was raised in the call armed for */
	unsigned long armed_calls;      /* the call it was set for */
	uint64_t armed_ns;
	uint64_t due_ns;                /* when the error is due (a signal's grace ends) */
	uint64_t timeout_ns;            /* --script-timeout, 0: none */
	char timeout_str[24];           /* it, as the messages print it */
	char what[256];                 /* the error raised, kept for every thread */
	_Atomic unsigned long overdue;  /* the call the watchdog found too long */
	pthread_t main, thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool watching, quit;
};

struct lp_cli;
struct lp_loop;

/* The script's hooks: global functions it may define, found once its top
 * level has run, as Lua's ltm.c keeps its metamethods (an enum and a table
 * of names in the same order, lhooks.c's lp_hook_names). */
enum lp_hook {
	LP_HOOK_START, LP_HOOK_SAMPLE, LP_HOOK_END, LP_HOOK_INTERVAL,
	LP_HOOK_COMM, LP_HOOK_FORK, LP_HOOK_EXIT, LP_HOOK_SWITCH, LP_HOOK_KEY,
	LP_HOOK_N
};

/* lhooks.c: the hooks' global names, in enum lp_hook's order. */
extern const char *const lp_hook_names[LP_HOOK_N];

/* vm.c: the Lua state and what of it the run keeps. */
struct lp_run_vm {
	lua_State *L;
	const char *script;
	const char *name;               /* the script as the user named it */
	bool started;                   /* the script's top level has run */
	int ref[LP_HOOK_N];             /* the hooks in the registry, or LUA_NOREF
					 * (lp_run_init sets them so) */
	int ref_view;                   /* lsample.c: the userdata holding the fields
					 * cached in a call (never handed to Lua) */
	uintptr_t view_gen;             /* views handed out so far (lp_view_next) */
	struct lp_tpview *tp_shown;     /* ltrace.c: the s.args shown */
	struct lp_guard guard;
	size_t memory;                  /* --script-memory in bytes, 0: no limit */
	uint64_t timeout;               /* --script-timeout in ns, 0: none */
};

/* lopts.c, lsetup.c: the script's own options and how the script is run. */
struct lp_run_opt {
	int mode;                       /* LP_MODE_* */
	char **argv;                    /* "--name[=value]" after the script name */
	int argc;
	bool declared;                  /* luaprof.options was called */
	bool setup_called;              /* luaprof.setup has been called */
	int stopped;                    /* luaprof.options stopped the top level: 1 --help or a
					 * listing (exit 0), 2 a bad option (reported, exit 255) */
	char *description;              /* LP_MODE_DESCRIBE: what luaprof.options said (malloc) */
};

/* Live runs: the events as opened (s.args, s.retval, s.values), whose
 * process memory USDT arguments may be read from (their counts and the
 * command's CPU times are the loop's: lua/cmd/run.h). */
struct lp_run_live {
	bool on;                        /* a live run (not a replay) */
	const struct lp_event_spec *specs;
	size_t nr_specs;
};

/* lstack.c, lfold.c: what symbolizing the current sample's stack uses. */
struct lp_run_stack {
	struct lp_frame frames[LP_MAX_STACK];   /* scratch for one stack */
	bool frame_ret[LP_MAX_STACK];   /* frames[i].vaddr is a return address */
	bool frame_caller[LP_MAX_STACK];        /* frames[i] is an unwound caller, named
						 * at its return address - 1 */
	bool corrupt;                   /* the last walk's chain was corrupt: frames
					 * holds the sampled frame alone */
	uint64_t addrs[LP_MAX_STACK + 2];       /* scratch: an unwound stack's addresses */
	struct lp_srclines *lines;      /* source lines, made on first use */
	struct lp_unwinder *unwinder;   /* DWARF unwinding, made on first use */
	struct lp_fold_cache *fold[2];  /* per LP_FOLD_* kind, made on first use */
	struct lp_foldids *foldids;     /* folded strings' names as ids (lfoldids.c) */
	bool kernel_notice;             /* the hidden kernel symbols were noted */
	bool outside_notice;            /* a kernel frame in no kernel map was noted */
	struct lp_buf text[2];          /* scratch: s.ustack's and s.kstack's text */
};

/* lagg.c: the one-liners' C aggregations (luaprof -x): on when the
 * front end may make them, and those it made. */
struct lp_agg_reg;
struct lp_run_aggs {
	bool on;
	bool only;              /* every sample goes to one (a replay reads on one core) */
	struct lp_agg_reg **v;
	size_t n;
	const struct lp_source *start_src;      /* replaying, while on_start runs: the
						 * recording's events (lxevents.c) */
};

/* lfeed.c: what the run hands every sample in C, before any on_sample
 * (luaprof.report, luaprof.stacks, luaprof.pprof with feed = "all"):
 * each object embeds a feeder, whose add takes the current sample
 * (run->view) and returns 0, or -1 when out of memory. */
struct lp_run;
struct lp_feeder {
	int (*add)(struct lp_run *run, struct lp_feeder *self);
};
struct lp_run_reports {
	struct lp_feeder **v;
	size_t n;
};

/* lcapture.c: the strings a script reads from samples (s:str, args.argv):
 * the drain thread's capture records of the samples about to be handled,
 * by tid (a record comes just before its sample), the reader of files'
 * literals, and what was read from where. */
#define LP_CAPTURE_SLOTS 256
enum lp_str_from {
	LP_STR_KERNEL, LP_STR_STACK, LP_STR_PROMPT, LP_STR_FILE, LP_STR_LATE, LP_STR_N
};
struct lp_capslot {
	uint32_t tid;
	uint64_t time;
	void *rec;              /* a copy of the capture record (malloc'd) */
	size_t len, cap;
	uint64_t taken[LP_CAPTURE_MAX]; /* a call record's: the time of the sample
					 * that took item i, 0: none yet */
};
struct lp_filestr;
struct lp_run_strings {
	struct lp_capslot slot[LP_CAPTURE_SLOTS];
	struct lp_capslot call[LP_CAPTURE_SLOTS];       /* each thread's latest library
							 * call's strings (capcall.c) */
	struct lp_filestr *files;       /* made on first use */
	uint64_t read[LP_STR_N];        /* strings read, by where from */
	uint64_t missed;                /* strings asked for and not read */
	struct { char *event; uint64_t n; } missed_by[8];      /* the first events' */
	bool declared;                  /* luaprof.setup strings was given */
	char *buf;                      /* scratch for a string read */
	size_t bufcap;
};

/* One run of a script: its parts by concern, and what the loop shares. */
struct lp_run {
	struct lp_run_vm vm;
	struct lp_run_opt opt;
	struct lp_cli *cli;             /* the command line, for luaprof.setup; NULL replaying */
	const struct lp_source *src;    /* while the loop runs */
	struct lp_view view;
	struct lp_switch_view switch_view;
	struct lp_procs *procs;
	struct lp_resolver *resolver;
	struct lp_hmap *targets;        /* ltarget.c: the pids followed; NULL: all */
	struct lp_loop *loop;           /* lua/cmd/run.h: the driver loop's own state
					 * (NULL when no loop runs); the host never
					 * reads it */
	struct lp_run_live live;
	volatile sig_atomic_t exit_requested;   /* luaprof.exit(), the output closed, or a
						 * second signal: the loop ends */
	bool os_exit;                   /* os.exit(): no further hook, on_end included */
	int os_exit_code;               /* and the exit status it asked for */
	bool output_closed;             /* stdout's reader has gone (| head): the run
					 * ends, the command is left to finish */
	bool output_failed;             /* writing stdout failed otherwise (reported) */
	bool failed;                    /* a hook raised an error */
	char *error;                    /* vm.c: the first hook error's line, for
					 * on_end's info.error (malloc'd) */
	struct lp_run_stack stack;
	struct lp_run_aggs aggs;
	struct lp_run_reports reports;
	struct lp_run_strings strings;
	struct lp_idents *idents;       /* lids.c, made on first use */
};

/* ltext.c: makes every way into Lua code of the state (the base library's
 * load, loadfile and dofile, require's Lua searcher) load source text only,
 * never precompiled bytecode.  Call after luaL_openlibs. */
void lp_text_only(lua_State *L);

/* vm.c: makes run an empty run (no hook, no view, CPU times unknown). */
void lp_run_init(struct lp_run *run);

enum { LP_MODE_RUN, LP_MODE_HELP, LP_MODE_DESCRIBE };

/* vm.c: creates the state, loads script and runs its top level.  Returns
 * 0, 1 when the script stopped on purpose (its --help was printed, or
 * LP_MODE_DESCRIBE), or -1 after a message. */
int lp_vm_open(struct lp_run *run, const char *script, char **args, int nargs);
/* Calls the script's hook h (which it must have: run->vm.ref[h] is not
 * LUA_NOREF) with the nargs values on top of the stack (popped), after
 * ending the s.args of the last sample (lp_trace_leave); 0, or -1 after
 * reporting the error. */
int lp_vm_call(struct lp_run *run, enum lp_hook h, int nargs);
/* Calls a sample's handler with the view: on_sample (from
 * LP_SLOT_ON_SAMPLE) when on_sample is set, else the function at index idx
 * of the handler table (LP_SLOT_HANDLERS); name says which hook it is, for
 * messages.  Called only inside run.c's protected loop: the call is a
 * plain lua_call, and an error unwinds the loop to its pcall (see
 * lp_vm_unwound).  0, or -1 after a failed write of the output. */
int lp_vm_call_handler(struct lp_run *run, int idx, const char *name, bool on_sample);

/* After run.c's protected loop was unwound by an error (status, its
 * message on the top): the hook's guard left, the view and s.args ended,
 * and the error reported as a failed call is; 0 for os.exit, else -1. */
int lp_vm_unwound(struct lp_run *run, int status);
void lp_vm_close(struct lp_run *run);
/* Flushes the standard output at the end of the run: 0, or -1 after one
 * line when writing it failed (a closed pipe is no failure: see vm.c). */
int lp_vm_flush(struct lp_run *run);

/* guard.c: the Lua state, with an allocator that refuses to hold more
 * than limit bytes (0: luaL_newstate's own, no limit).  NULL when out of
 * memory. */
lua_State *lp_guard_newstate(struct lp_guard *g, size_t limit);
/* Starts watching hook calls (the watchdog thread only when timeout_ns is
 * not 0).  0 or -errno. */
int lp_guard_start(struct lp_guard *g, uint64_t timeout_ns);
/* Stops the watchdog; the guard can no longer interrupt anything. */
void lp_guard_stop(struct lp_guard *g);
/* From a SIGINT/SIGTERM/SIGHUP handler: interrupts a hook that does not
 * return within a second (at once on a second signal).  Async-signal-safe. */
void lp_guard_signal(int sig);
/* Replaces coroutine.resume and coroutine.wrap in L with ones that tell
 * the guard which coroutine runs, so that it reaches a loop inside one. */
void lp_guard_open_coroutines(lua_State *L);
/* lua_close(L) under the guard, as one more call ("the __gc finalizers at
 * the end"): --script-timeout and signals apply to the finalizers it runs,
 * and one that does not stop ends luaprof (see guard.c). */
void lp_guard_close(struct lp_guard *g, lua_State *L);
/* Removes the count hook (lp_guard_leave does, when one was set). */
void lp_guard_disarm(struct lp_guard *g);
/* Prints the one line for a failed hook call: status and msg as lua_pcall
 * left them (msg may be NULL); out-of-memory errors name the limit. */
void lp_guard_explain(const struct lp_guard *g, int status, const char *msg);
/* --script-memory's default, in bytes. */
size_t lp_guard_default_memory(void);

/* Around every call of a hook (name: "on_sample", ...): three plain
 * stores, and a removal of the count hook when a signal had set one.  A
 * refusal of the memory limit counts until the next call: Lua's unwinding
 * of the error allocates (the stack it shrinks, 784 bytes in one case). */
static inline void lp_guard_enter(struct lp_guard *g, const char *name)
{
	g->hook = name;
	g->limit_hit = false;
	atomic_store_explicit(&g->calls, atomic_load_explicit(&g->calls, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

static inline void lp_guard_leave(struct lp_guard *g)
{
	atomic_store_explicit(&g->calls, atomic_load_explicit(&g->calls, memory_order_relaxed) + 1,
			      memory_order_relaxed);
	if (g->armed)
		lp_guard_disarm(g);
}

/* The current sample's thread (created when unknown), cached in the view;
 * NULL only when out of memory. */
static inline struct lp_thread *lp_view_thread(struct lp_run *run)
{
	struct lp_view *v = &run->view;
	if (!v->thread)
		v->thread = lp_procs_thread(run->procs, v->rec->u.sample.pid, v->rec->u.sample.tid);
	return v->thread;
}

/* The views handed to hooks (s, t of on_switch) are light userdata, one
 * value per call, never used again: a view kept past its call is told
 * from the current one by its value, with no allocation per call.  The
 * low two bits say what it was (struct pointers, the other light userdata
 * a script may reach, have them clear): a sample given to on_sample or to
 * an on_event handler, or a switch record; the rest counts the calls. */
enum { LP_VIEW_SAMPLE = 1, LP_VIEW_SWITCH = 2, LP_VIEW_EVENT = 3, LP_VIEW_TAG = 3,
       LP_VIEW_ARGS = 4 /* no tag: s.args, a table of its event's (ltrace.c) */ };

static inline const void *lp_view_next(struct lp_run *run, unsigned tag)
{
	return (const void *)((++run->vm.view_gen << 2) | tag);
}

/* Whether ud is the sample view of the call running now (the one test;
 * lp_view_check says why not). */
static inline bool lp_view_is_current(const struct lp_run *run, const void *ud)
{
	return ud == run->view.ud && run->view.rec;
}

/* lstack.c: frees what symbolizing stacks keeps for the run. */
void lp_stack_free(struct lp_run *run);

/* lsample.c */
void lp_sample_open(lua_State *L, struct lp_run *run);
void lp_sample_invalidate(lua_State *L, struct lp_run *run);

/* lview.c: the one check of the views a hook is given (s, t of
 * on_switch, s.args), which expire when the call returns.
 * lp_view_expired raises the error for a view of kind (LP_VIEW_*) used
 * after its call: as argument arg of the function called ("bad argument
 * #2 to 'add' (this sample's view expired when its on_sample returned:
 * ...)"), or at the script's line when arg is 0 (a field read).
 * lp_view_check returns the run when the value at idx is the sample view
 * of the call running now; else it raises that error for an expired
 * sample view, a type error for any other value. */
int lp_view_expired(lua_State *L, unsigned kind, int arg);
struct lp_run *lp_view_check(lua_State *L, int idx);
/* lview.c: the tag of the view at idx (LP_VIEW_*), or 0 when it is no
 * view (another light userdata, or no light userdata). */
unsigned lp_view_tag(lua_State *L, int idx);

/* ltrace.c: s.args, the fields of a tracepoint sample (see ltrace.c),
 * and s.raw (its raw data as a string, or nil); luaprof.syscall_name and
 * syscall_nr.  lp_trace_view_new makes the s.args of the event whose
 * format is fmt (NULL when out of memory; freed by lp_trace_view_free).
 * lp_trace_enter makes it the s.args of the sample in the view (tv NULL
 * for an event without one), before its handler is called; lp_trace_leave
 * ends it, before anything else of the script runs (both with the Lua
 * stack at its base: they use LP_SLOT_FIELDS).  lp_trace_push_fields
 * pushes the s.args being shown, or nil. */
struct lp_tpview *lp_trace_view_new(lua_State *L, const struct lp_tp_format *fmt);
void lp_trace_view_free(struct lp_tpview *tv);
void lp_trace_enter(struct lp_run *run, struct lp_tpview *tv);
void lp_trace_leave(struct lp_run *run);
/* lp_trace_leave after an error unwound a frame whose LP_SLOT_FIELDS and
 * LP_SLOT_FKEYS held the s.args shown (run.c's protected loop): the base
 * stack's slots are pointed at them again first. */
void lp_trace_unwound(struct lp_run *run);
void lp_trace_push_fields(lua_State *L, struct lp_run *run);
void lp_trace_push_raw(lua_State *L, struct lp_run *run);
int lp_l_syscall_name(lua_State *L);
int lp_l_syscall_nr(lua_State *L);
int lp_l_errno_name(lua_State *L);

/* ltarget.c: the processes a run of a command or of -p follows, for
 * luaprof.is_target (without a set, as with -a or replaying, everything is
 * followed).  lp_targets_init makes the set of pids (0 or -ENOMEM);
 * lp_targets_fork adds the child of a FORK record whose parent process is
 * in it (0 for every other record, or -ENOMEM); lp_targets_free frees it. */
int lp_targets_init(struct lp_run *run, const pid_t *pids, size_t n);
int lp_targets_fork(struct lp_run *run, const struct lp_record *rec);
void lp_targets_free(struct lp_run *run);
int lp_l_is_target(lua_State *L);

/* lfunctions.c: luaprof.functions(OBJECT [, GLOB]). */
int lp_l_functions(lua_State *L);

/* lprobe.c: s.args (a probe's arguments: a uprobe's six argument
 * registers, a USDT probe's decoded arguments), s.retval (a uretprobe's
 * rax) and s.values (the group's counter values, name -> value) of the sample in
 * the view; nil for other events. */
void lp_probe_push_args(lua_State *L, struct lp_run *run);
void lp_probe_push_retval(lua_State *L, struct lp_run *run);
void lp_probe_push_values(lua_State *L, struct lp_run *run);

/* lterm.c: luaprof.term.  lp_term_input_fd is the fd keys come from
 * (the terminal is taken and the script has on_key), else -1;
 * lp_term_deliver (lkeys.c) reads the keys waiting there, without blocking, and
 * calls on_key with each (0, or -1 when a call failed: reported);
 * lp_term_restore gives the terminal back if it is taken. */
int lp_term_input_fd(const struct lp_run *run);
int lp_term_deliver(struct lp_run *run);
void lp_term_restore(void);
/* lterm.c: lp_term_restore without flushing standard output:
 * async-signal-safe, for a process about to _exit. */
void lp_term_release(void);
/* lterm.c: no more keys will come (the terminal hung up). */
void lp_term_input_closed(void);

/* lfeed.c: lp_feeder_add registers f with the run (an error raised when
 * out of memory), lp_feeder_remove forgets it (its object's __gc);
 * lp_report_feed hands the current sample (run->view) to every feeder:
 * 0, or -1 after a message (out of memory); lp_reports_free forgets them
 * all, after the Lua state is closed. */
void lp_feeder_add(lua_State *L, struct lp_run *run, struct lp_feeder *f);
void lp_feeder_remove(struct lp_run *run, struct lp_feeder *f);
int lp_report_feed(struct lp_run *run);
void lp_reports_free(struct lp_run *run);

/* lagg.c: lp_agg_open pushes the table of the one-liner front end's
 * aggregations in C (see lagg.c), which vm.c hands to its main chunk as
 * its argument; lp_agg_for_event is the one for
 * the event called name (or bare, its name without modifiers) bound to
 * fmt and sample_type, or NULL (then its handler takes the samples);
 * lp_agg_regs_free forgets them, after the Lua state is closed. */
struct lp_agg;
void lp_agg_open(lua_State *L);
struct lp_agg *lp_agg_for_event(struct lp_run *run, const char *name, const char *bare,
				const struct lp_tp_format *fmt, uint64_t sample_type);
void lp_agg_regs_free(struct lp_run *run);
/* lxevents.c: adds agg.cli, agg.describe and agg.recording to the table on
 * the top of the stack (lp_agg_open's). */
void lp_xevents_register(lua_State *L);
/* laggmap.c: adds agg.maps, the one-liners' maps (core/agg), to that
 * table; lp_l_checkaggmap is the map of the userdata at idx (an error
 * when it is none). */
struct lp_aggmap;
void lp_aggmap_register(lua_State *L);
struct lp_aggmap *lp_l_checkaggmap(lua_State *L, int idx);
/* lagg.c: whether the run's answer is the same in any order of its
 * records: every sample goes to a C aggregation (aggs.only) keyed by what
 * the sample itself holds (not comm or sym, which depend on the process
 * records before it), and no hook sees time pass (timed_calls: the loop
 * calls on_interval) or the process records.  A replay then reads in
 * file order (lp_perfdata_unordered). */
bool lp_agg_order_free(const struct lp_run *run, bool timed_calls);

/* lstack.c: luaprof.frame(pid, addr [, kernel]). */
int lp_l_frame(lua_State *L);

/* lids.c: s.uid, s.gid, s.cgroup, s.cgroup_path of the sample in the
 * view (see lids.c): lp_idents_push pushes one (or nil);
 * lp_idents_record learns from FORK, exec COMM and CGROUP records (0 or
 * -ENOMEM); lp_idents_free frees what the run kept. */
struct lp_idents;
enum lp_ident { LP_IDENT_UID, LP_IDENT_GID, LP_IDENT_CGROUP, LP_IDENT_CGROUP_PATH };
void lp_idents_push(lua_State *L, struct lp_run *run, enum lp_ident which);
int lp_idents_record(struct lp_run *run, const struct lp_record *rec);
void lp_idents_free(struct lp_run *run);

/* lmem.c: luaprof.read_string(pid or s, addr [, max]). */
int lp_l_read_string(lua_State *L);

/* lcapture.c: the strings of samples (see lcapture.c).
 * lp_strings_record keeps a capture record (capture.h) for its sample;
 * lp_strings_push pushes the string at addr as the sample in the view saw
 * it (at most max bytes), or nil and a reason (and counts it missed);
 * lp_strings_push_argv pushes the arguments of an exec sample (a Lua
 * array: the new program's, or with failed those a failed exec was given),
 * or nil; lp_strings_push_info pushes on_end's
 * info.strings; lp_strings_report says, in one line on stderr, how many
 * strings could not be read; lp_strings_free frees what the run kept;
 * lp_strings_setup applies luaprof.setup's strings (the value on top) to
 * the command line's events (raises a Lua error for a bad value);
 * lp_strings_method is s.str, the method s:str(addr [, max]). */
struct lp_cli;
int lp_strings_record(struct lp_run *run, const struct lp_record *rec);
int lp_strings_push(lua_State *L, struct lp_run *run, uint64_t addr, size_t max);
void lp_strings_push_argv(lua_State *L, struct lp_run *run, bool failed);
void lp_strings_push_info(lua_State *L, struct lp_run *run);
void lp_strings_report(struct lp_run *run);
void lp_strings_free(struct lp_run *run);
void lp_strings_setup(lua_State *L, struct lp_cli *cli);
int lp_strings_method(lua_State *L);

/* lluaprof.c */
int luaopen_luaprof(lua_State *L);

/* lconst.c: adds signal_name, open_flags, task_state and const to the
 * module table on top of the stack. */
void lp_const_open(lua_State *L);

/* The one way a binding reaches the run its Lua state belongs to: the
 * pointer in the state's extra space (LUA_EXTRASPACE), set by
 * lp_set_run as the state is made (lp_guard_newstate: NULL until
 * lp_vm_open sets the run) and copied by Lua into every coroutine's; a
 * pointer read, where a registry field costs a hash lookup. */
_Static_assert(LUA_EXTRASPACE >= sizeof(void *), "the run is kept in LUA_EXTRASPACE");

static inline struct lp_run *lp_get_run(lua_State *L)
{
	return *(struct lp_run **)lua_getextraspace(L);
}

static inline void lp_set_run(lua_State *L, struct lp_run *run)
{
	*(struct lp_run **)lua_getextraspace(L) = run;
}

/* lsetup.c: luaprof.setup{...}, the lua_CFunction. */
int lp_setup(lua_State *L);

/* lopts.c: luaprof.options{...} and luaprof.usage_error(msg), the
 * lua_CFunctions. */
int lp_options(lua_State *L);
int lp_usage_error(lua_State *L);

/* lopts.c: after the script's top level ran: prints its help when asked
 * and it declared no options, refuses options given to a script that
 * declares none.  Returns 0, 1 (stop, exit 0), or -1 (after a message). */
int lp_options_check(struct lp_run *run);

/* lhooks.c: the script's hooks, checked before the first sample.
 * lp_hooks_check, once the top level has run: a global close to a hook's
 * name that is none (on_samples), a hook declared local; 0, or -1 after
 * one line naming the place.  lp_hooks_check_run, once the command line
 * and luaprof.setup are settled (interval: one is set; recording: -o):
 * on_interval as the only hook that sees the run, with no interval (-1
 * after one line); a script with no hook at all is said in one line (0);
 * else 0. */
int lp_hooks_check(struct lp_run *run);
int lp_hooks_check_run(struct lp_run *run, bool interval, bool recording);

/* lswitch.c: calls on_switch (when the script has one) with the view of
 * rec, a SWITCH or SWITCH_CPU_WIDE record of event's stream (whose
 * sample_type says whether it carries the CPU); the view expires when the
 * call returns.  0, or -1 when the call failed (reported).  The view
 * shares the light userdata's metatable with the sample's (lsample.c),
 * which hands it to switch_view.index and .tostring. */
int lp_switch_call(struct lp_run *run, const struct lp_record *rec, int event);

#endif
