/* Part of include/luaprof/: the core's interface to the layer above it (lua/). */
/*
 * live.h - a live profiling run as a stream of records in time order.
 *
 * lp_live_open() prepares everything (the command corked, events opened,
 * rings mapped); lp_live_start() lets the command exec (or enables the
 * events for -p/-a); lp_live_next() then returns records merged across CPUs
 * in time order until the run ends: the command exited, every -p target
 * exited, the duration passed, or lp_live_stop() was called.  Everything the
 * kernel wrote is drained before the end is reported.
 *
 * A thread of the run's own (drain.c) empties the rings into memory as the
 * kernel fills them, so a caller slower than the samples costs memory, up
 * to opts.queue_bytes, rather than samples.
 */
#ifndef LUAPROF_LIVE_H
#define LUAPROF_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "luaprof/event.h"
#include "luaprof/record.h"
#include "luaprof/source.h"

struct lp_live_opts {
	char *const *argv;              /* command to launch, or NULL */
	const pid_t *pids;              /* -p targets */
	size_t nr_pids;
	bool system_wide;               /* -a: every CPU, every process (with a command or
					 * pids, the run still ends when they do) */
	struct lp_event_spec *events;   /* settled in place by fallbacks */
	size_t nr_events;
	struct lp_sampling sampling;
	size_t mmap_pages;              /* per CPU, a power of two */
	bool mmap_pages_exact;          /* the user's -m: no smaller ring instead */
	uint64_t duration_ns;           /* 0: no limit */
	size_t queue_bytes;             /* records drained and not yet handed out,
					 * at most (0: lp_live_default_queue()) */
	const char *exe;                /* the command's program file: watchpoints
					 * waiting for its load bias (spec->reloc)
					 * are moved at its exec */
};

struct lp_live_stats {
	uint64_t records, samples;
	uint64_t lost;                  /* samples the kernel reported lost */
	uint64_t throttle, unthrottle;
	uint64_t throttle_idle;         /* of throttle: while the CPU ran its idle
					 * task (pid 0), whose tick had stopped */
	uint64_t bad_records;           /* rejected as malformed */
	uint64_t max_backlog;           /* most samples drained and not yet handed out */
	uint64_t max_lag_ns;            /* oldest record waiting for the script, at most */
	uint64_t queue_full;            /* times the queue reached its bound */
	size_t queue_bytes;             /* the bound */
	size_t queue_peak;              /* the most bytes the queue held at once */
	uint64_t late;                  /* records handed out after one stamped later:
					 * the kernel wrote them longer after their
					 * stamp than the merge waited (a stalled vCPU) */
	uint64_t max_late_ns;           /* how far behind, at most */
	uint64_t slack_ns;              /* the merge's wait after the last of them */
};

/* The default bound of the queue between the rings and the script: a
 * sixteenth of the machine's physical memory, at least 16 MiB. */
size_t lp_live_default_queue(void);

struct lp_live;

/* Prepares a run.  On failure returns NULL with errno set and one line
 * saying why in lp_last_error() (err.h).  The events' specs are updated
 * to what was actually opened; *fallbacks receives the LP_FALLBACK_* bits applied. */
struct lp_live *lp_live_open(const struct lp_live_opts *o, unsigned *fallbacks);

/* Starts the run.  Returns 0, or -errno with the message in lp_last_error()
 * (exec failure). */
int lp_live_start(struct lp_live *lv);

/* After lp_live_start: whether the run has really started.  With a
 * command, waits for its exec (lp_workload_wait_exec: it may cost the new
 * program one preemption, so a counting run leaves this out) and returns
 * -errno, with the message in lp_last_error(), when it failed: the command is reaped, nothing of
 * it ran.  0 once it runs, and at once for -p and -a. */
int lp_live_confirm(struct lp_live *lv);

/* The next record in time order.  Returns 1 with *rec (borrowed until the
 * next call) and *event (index into the events, or -1 when the record names
 * none), 2 when an alarm went off (lp_live_set_alarm), 3 when the fd of
 * lp_live_watch is readable (or hung up), 0 when the run has ended and
 * everything is drained, or -errno. */
int lp_live_next(struct lp_live *lv, struct lp_record *rec, int *event);

/* Sets an alarm at time t (CLOCK_MONOTONIC ns, the samples' clock; 0
 * clears it): once every record with an earlier time has been returned
 * and the clock has passed t (plus the merge's slack), lp_live_next()
 * returns 2, with no record, and the alarm is cleared.  It does not go off
 * once the run is ending. */
void lp_live_set_alarm(struct lp_live *lv, uint64_t t);

/* Watches fd (a terminal's input, say) while waiting for records: once it
 * is readable, or hung up, lp_live_next() returns 3 when it would
 * otherwise wait, with no record.  The caller must then read it (or watch
 * another fd, or -1 for none), or 3 comes back at every wait.  Records
 * waiting to go out come first.  One fd at a time; not while the run is
 * ending. */
void lp_live_watch(struct lp_live *lv, int fd);

/* Asks the run to end: the rings are drained and lp_live_next() then
 * returns 0.  Async-signal-safe. */
void lp_live_stop(struct lp_live *lv);

/* The launched command's pid, or -1. */
pid_t lp_live_pid(const struct lp_live *lv);

/* Sends sig to the launched command if it is still running. */
void lp_live_signal(struct lp_live *lv, int sig);

/* After lp_live_wait: -errno when the command could not be run (its exec
 * failed: the run counted nothing of it), else 0 (also when
 * lp_live_confirm has returned the failure already). */
int lp_live_exec_error(struct lp_live *lv);

/* The launched command's resource usage once it was waited for (user and
 * system time), or NULL. */
const struct rusage *lp_live_usage(const struct lp_live *lv);

/* Waits for the launched command and returns its wait status, or -ECHILD
 * when there is no command.  grace_ms < 0 waits as long as it takes;
 * otherwise a command still running after grace_ms gets SIGTERM, and
 * SIGKILL two seconds later. */
int lp_live_wait(struct lp_live *lv, int grace_ms);

/* Reads each event's count (nr_events entries into out; see lp_count),
 * summed over its fds.  Works while the run goes and after it ended (until
 * lp_live_close).  Returns 0 or -errno. */
int lp_live_read_counts(struct lp_live *lv, struct lp_count *out);

/* The attr event was opened with (index as in opts). */
const struct perf_event_attr *lp_live_attr(const struct lp_live *lv, size_t event);
/* The first event's format: the layout of every non-sample record's
 * sample_id trailer, which all events share (each event's samples are
 * decoded with its own). */
const struct lp_format *lp_live_format(const struct lp_live *lv);

/* The kernel ids of event's fds (for writing a recording). */
size_t lp_live_ids(const struct lp_live *lv, size_t event, uint64_t *ids, size_t max);

const struct lp_live_stats *lp_live_stats(const struct lp_live *lv);

/* Stops counting, unmaps and closes everything; does not wait for the
 * command (use lp_live_wait first).  Accepts NULL. */
void lp_live_close(struct lp_live *lv);

struct lp_live_source;

/* The run's records as a source (source.h) for the loop: next, stop and
 * watch are lp_live_next, lp_live_stop and lp_live_watch; event idx is
 * events[idx] (nr_events of them, as given to lp_live_open, both borrowed
 * until lp_live_source_free), its samples' bits those lv opened it with,
 * and a tracepoint's format is read from tracefs at its first sample (a
 * probe's tracefs event has none: its arguments are its own).  A format
 * that cannot be read is said through lp_log at LP_WARN (at each ask: the
 * loop asks once per event), and event_format returns NULL.  Fills *out, whose ctx is the returned
 * context: lp_live_source_free it after the loop.  NULL with errno
 * ENOMEM. */
struct lp_live_source *lp_live_source_new(struct lp_live *lv, const struct lp_event_spec *events,
					  size_t nr_events, struct lp_source *out);

/* Frees the context and the formats it read.  Accepts NULL. */
void lp_live_source_free(struct lp_live_source *ls);

#endif
