/* Part of include/luaprof/: the core's interface to the layer above it (lua/). */
/*
 * workload.h - a command started "corked": forked, then held before exec
 * until the profiler has opened its events on it, so that counting (with
 * enable_on_exec) starts exactly at the command's first instruction and no
 * code of the profiler's own is sampled.
 */
#ifndef LUAPROF_WORKLOAD_H
#define LUAPROF_WORKLOAD_H

#include <stdbool.h>
#include <sys/resource.h>
#include <sys/types.h>

struct lp_workload {
	pid_t pid;              /* -1 before prepare / after reaping */
	int go_fd;              /* write end: one byte releases the child */
	int err_fd;             /* read end: the child's errno if exec failed */
	int pidfd;              /* readable when the child exits, -1 if none */
	int status;             /* wait status once reaped */
	bool reaped;
	bool stopped;           /* held at its exec (lp_workload_prepare_stopped) */
	struct rusage usage;    /* its resource usage (children included) once reaped */
};

/* Forks argv[0] (looked up in PATH) and leaves it waiting.  The child keeps
 * the caller's stdin/stdout/stderr, gets SIGTERM if the caller dies, and has
 * an empty signal mask, and the default action for every signal the
 * caller catches (as after its exec), so that one that comes before the
 * exec acts as it would on the command.  Returns 0 or -errno. */
int lp_workload_prepare(struct lp_workload *w, char *const argv[]);

/* The same, and lp_workload_start then returns with the new program
 * stopped right after its exec, before its first instruction (the child
 * asks to be traced: PTRACE_TRACEME), so that the caller can read where it
 * was loaded; lp_workload_resume lets it run.  Returns 0 or -errno. */
int lp_workload_prepare_stopped(struct lp_workload *w, char *const argv[]);

/* Releases the child into exec, and returns at once: waiting for the exec
 * would wake the caller just as the new program starts (the close of the
 * error pipe), and the wake-up may preempt it, adding a context switch to
 * what is counted from its exec (perf stat does not wait either).  A
 * failed exec shows later, in lp_workload_exec_error.  A child prepared
 * stopped is waited for: this returns once it is held at its exec.
 * Returns 0, or -errno (a failed exec of a stopped child, reaped here). */
int lp_workload_start(struct lp_workload *w);

/* After lp_workload_start: waits until the child's exec is done (at once
 * for a child prepared stopped, or when this was asked before).  0 once
 * the new program is loaded, or -errno when the exec failed (the child is
 * reaped then: nothing of the program ran).  The caller wakes as the new
 * program starts, which may preempt it once (see lp_workload_start): what
 * counts the program exactly does without. */
int lp_workload_wait_exec(struct lp_workload *w);

/* Once the child has exited (reaped): -errno when its exec failed (it
 * then exited 127 without running the program), else 0. */
int lp_workload_exec_error(struct lp_workload *w);

/* Lets a child held at its exec run on (detaching from it).  Returns 0 or
 * -errno. */
int lp_workload_resume(struct lp_workload *w);

/* Reaps the child if it has exited (wait true: blocks until it does).
 * Returns true once reaped; w->status then holds the wait status. */
bool lp_workload_reap(struct lp_workload *w, bool wait);

/* Cancels a child never started, or signals a running one.  Accepts a
 * workload that was never prepared. */
void lp_workload_kill(struct lp_workload *w, int sig);

/* Closes the descriptors.  Does not wait. */
void lp_workload_close(struct lp_workload *w);

#endif
