/*
 * evlist.h - internal: the open events of a live run.
 *
 * One fd per (event, cpu, thread).  On each CPU the first fd owns the ring
 * and every other fd of that CPU is redirected into it (SET_OUTPUT), so the
 * reader has exactly one ring per CPU.  Every fd's kernel id is recorded so
 * a sample's PERF_SAMPLE_IDENTIFIER names its event.  A group's members are
 * opened in their leader's group on the same (cpu, thread).
 *
 * Counting (sampling.count_only), as perf stat: task targets get one fd per
 * (event, thread) on any CPU (cpu -1), no ring is mapped, and an event the
 * machine cannot count is left out (fd -1, unsupported) instead of failing
 * the run.
 */
#ifndef LP_EVLIST_H
#define LP_EVLIST_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "luaprof/event.h"
#include "luaprof/record.h"

struct lp_ring;

struct lp_id_slot { uint64_t id; uint32_t event; };

struct lp_evlist {
	struct lp_event_spec *events;   /* borrowed, settled in place on open */
	size_t nr_events;
	struct lp_sampling sampling;
	int *cpus;
	size_t nr_cpus;
	int *fds;
	size_t nr_fds, cap_fds;
	struct lp_id_slot *ids;         /* hash by id, open addressing */
	size_t nr_id_slots;
	struct lp_ring **rings;         /* one per cpu */
	unsigned fallbacks;             /* LP_FALLBACK_* applied */
	struct perf_event_attr *attrs;  /* the attr each event was opened with */
	bool counting;                  /* sampling.count_only */
	bool no_tracking;               /* no event tracks (a second list: capcall.c) */
	bool *unsupported;              /* per event: left out (counting only) */
};

/* Prepares an evlist over the online CPUs.  Returns 0 or -errno. */
int lp_evlist_init(struct lp_evlist *el, struct lp_event_spec *events, size_t nr,
		   const struct lp_sampling *s);

/* Opens every event for task tid on every CPU (tid -1: system-wide), the
 * first event of each (tid, cpu) carrying the MMAP/COMM/TASK tracking.
 * ESRCH (the thread is gone) is not an error.  On failure returns -errno
 * with a one-line reason in lp_last_error(). */
int lp_evlist_open_task(struct lp_evlist *el, pid_t tid);

/* Maps one ring per CPU (pages each; unless exact, halved down to 8 on
 * EPERM/ENOMEM, with one LP_WARN line naming kernel.perf_event_mlock_kb)
 * and redirects the other fds into it.  Returns 0 or -errno with
 * lp_last_error() set (one line naming the setting to raise). */
int lp_evlist_mmap(struct lp_evlist *el, size_t pages, bool exact);

/* access.c: whether this process may do what kernel.perf_event_paranoid
 * forbids users (CAP_PERFMON or CAP_SYS_ADMIN). */
bool lp_perf_privileged(void);
/* access.c: 0, or -EACCES with one line in lp_last_error() when the
 * paranoid level (3 and above) lets this user profile nothing at all. */
int lp_access_check(void);
/* access.c: the end of the line for an event (ev) that the kernel refused
 * (EACCES/EPERM) for task tid (-1: every CPU), naming the setting and the
 * value it needs, into buf (size bytes), starting with ": ". */
void lp_access_hint(const struct lp_event_spec *ev, pid_t tid, char *buf, size_t size);

/* Enables or disables every fd. */
void lp_evlist_enable(struct lp_evlist *el, int on);

/* Reads every event's count into out (nr_events entries), summed over its
 * fds: a group's leader reads the whole group.  Returns 0 or -errno. */
int lp_evlist_read(const struct lp_evlist *el, struct lp_count *out);

/* The samples the kernel could not write into the rings, summed over the
 * sampling events that read them (PERF_FORMAT_LOST; with inherit, the
 * children's too): every loss, reported by a LOST record or not.  0
 * without read_lost; a group's events are left out (their read layout has
 * no lost count).  An fd that cannot be read counts nothing. */
uint64_t lp_evlist_lost(const struct lp_evlist *el);

/* The event index of a sample id, or -1. */
int lp_evlist_event_of(const struct lp_evlist *el, uint64_t id);

void lp_evlist_close(struct lp_evlist *el);

/* evdyn.c: makes uprobes, uretprobes and USDT probes of v (n specs)
 * tracefs uprobe events, opened as tracepoints (spec->type, config,
 * dyn_event: see event.h), after removing the probes of luaprof runs that
 * are gone: each whose strings the kernel is to copy (spec->fetch,
 * fetch_argv: fetch arguments at fetch_off), and with inherited (events
 * that follow the targets' new threads and processes) every one, since
 * the kernel re-reads a uprobe PMU event's path from the forking
 * process's memory when it copies the event at a fork (perf_uprobe_init),
 * where it is not: the fork fails with EFAULT.  One that tracefs refuses
 * stays a PMU uprobe, without its fetch arguments (fetch cleared: one
 * LP_WARN line, none for the library wrappers' probes, whose caller says
 * it once) and, inherited, with no_inherit set (the caller says it).
 * Returns 0, or the -errno of the first refused. */
int lp_evdyn_place(struct lp_event_spec *v, size_t n, bool inherited);
/* Removes the tracefs probes lp_evdyn_place made for v, once their events
 * are closed (one LP_WARN line for one that will not go). */
void lp_evdyn_remove(struct lp_event_spec *v, size_t n);

/* capcall.c: the probes on library wrappers that copy the strings of the
 * system calls a run keeps (see there).  Their samples go into the run's
 * rings, where the drain thread makes each a call record instead
 * (lp_capcall_take): they are never handed out. */
struct lp_capcall {
	struct lp_evlist el;            /* the probes (no rings of their own) */
	struct lp_event_spec *specs;    /* owned */
	size_t nr;
	struct lp_format *fmts;         /* each probe's samples' layout */
	char *argv;                     /* the drain thread's scratch */
	bool on;                        /* there are probes */
};

/* Makes the probes for the system call tracepoints of events (n) that keep
 * strings (and for sched:sched_process_exec's arguments, execve's),
 * placed through tracefs (those it refuses left out), and their list over
 * the CPUs, sampling as s.  0, or -errno (out of memory). */
int lp_capcall_init(struct lp_capcall *cc, const struct lp_event_spec *events, size_t n,
		    const struct lp_sampling *s);
/* Opens the probes for task tid (-1: every task), as lp_evlist_open_task. */
int lp_capcall_open_task(struct lp_capcall *cc, pid_t tid);
/* Sends the probes' samples into main's rings, once mapped.  0 or -errno. */
int lp_capcall_redirect(struct lp_capcall *cc, const struct lp_evlist *main);
void lp_capcall_enable(struct lp_capcall *cc, int on);
/* On the drain thread: *mine when h (a sample, its id read with fmt) is
 * one of the probes'; its call record is then written into out (room
 * bytes) and its size returned (0: nothing was copied). */
size_t lp_capcall_take(struct lp_capcall *cc, const struct perf_event_header *h,
		       const struct lp_format *fmt, void *out, size_t room, bool *mine);
/* Closes the probes, removes them from tracefs, frees everything. */
void lp_capcall_close(struct lp_capcall *cc);

#endif
