/*
 * run.h - internal to lua/cmd: the driver loop (run.c), which feeds a
 * source's records (live.c, replay.c) to the host.
 */
#ifndef LP_RUN_H
#define LP_RUN_H

#include "lfields.h"
#include "lp.h"
#include "luaprof/source.h"

/* on_interval's clock. */
struct lp_run_interval {
	uint64_t ns;                    /* the period; 0: none */
	uint64_t next, prev;            /* the next boundary; the previous call's time */
	uint64_t first;                 /* the first timed record's time */
	uint64_t last_time;             /* the latest record time */
	uint64_t samples;               /* samples since the previous call */
	bool count_only;                /* nothing is sampled: intervals run from
					   lp_run_set_origin, not the first record */
	void (*set_alarm)(void *ctx, uint64_t t);       /* live runs: lp_live_set_alarm */
	void *alarm_ctx;
};

/* What the run counted, for on_end. */
struct lp_run_stats {
	uint64_t samples;               /* delivered to on_sample */
	uint64_t lost;                  /* LOST records and the kernel's LOST_SAMPLES */
	uint64_t lost_summary;          /* perf record's end-of-run LOST_SAMPLES */
};

/* What the loop knows of each event (run->loop->evinfo[event + 1]), settled at
 * the event's first sample. */
struct lp_evinfo {
	bool ready;
	bool handled;                   /* a handler takes its samples */
	const char *hook;               /* which: "on_event" or "on_sample" */
	bool on_sample;                 /* the handler is on_sample (LP_SLOT_ON_SAMPLE) */
	const struct lp_tp_format *fmt; /* s.args */
	struct lp_tpview *tp;           /* ltrace.c: s.args of a handled event with fmt */
	uint64_t sample_type;           /* what its samples carry (PERF_SAMPLE_*) */
	struct lp_agg *agg;             /* lagg.c: a one-liner's C aggregation takes
					 * its samples instead of the handler */
	bool agg_comm, agg_sym;         /* which want each sample's comm, sym */
};

/* A live run's counts for info.values (nr_specs entries; counts_prev
 * holds them at the previous on_interval), the command's CPU times and
 * the drain thread's backlog. */
struct lp_count;
struct lp_loop_live {
	int (*read_counts)(void *ctx, struct lp_count *out);
	void *counts_ctx;
	struct lp_count *counts_prev, *counts_now;
	int64_t user_ns, sys_ns;        /* -1: unknown */
	bool has_backlog;               /* the drain thread's backlog is known */
	uint64_t max_backlog;           /* most samples waiting for the script */
	uint64_t max_lag_ns;            /* how old the oldest of them was, at most */
};

/* The driver loop's own state (run->loop): what the host never reads,
 * beside the loop that owns it. */
struct lp_loop {
	struct lp_run_stats stats;
	struct lp_run_interval interval;
	struct lp_loop_live live;
	bool hook_error;                /* a hook's error stopped the loop: on_end
					 * still runs, with info.error */
	int watched;                    /* the fd the source watches for keys, -1: none */
	volatile sig_atomic_t interrupted;      /* a signal stopped the run (replays) */
	int end_signal;                 /* the exit status is 128+end_signal, for the
					 * signal that ended the run: luaprof dies of it */
	struct lp_evinfo *evinfo;       /* per event + 1, grown as events appear */
	size_t nr_evinfo;
};

/* run.c: makes loop an empty loop state (no interval, nothing watched)
 * and run's; lp_loop_free frees what it holds, once the Lua state is
 * closed (lp_vm_close). */
void lp_loop_init(struct lp_run *run, struct lp_loop *loop);
void lp_loop_free(struct lp_loop *loop);

/* run.c: the fields of on_start's info, live and replaying alike. */
extern const struct lp_fieldset lp_run_start_fields;

/* run.c: samples lost so far.  perf record ends a file with one
 * LOST_SAMPLES per event, at time 0, holding the kernel's count of that
 * event's lost samples: the losses the LOST records already told, so the
 * two are not added (perf report's "Total Lost Samples" is that count). */
uint64_t lp_run_lost(const struct lp_run *run);

/* run.c: calls on_end, if the script has one, with { samples, lost,
 * duration (ns), status (only when status >= 0: the command's exit status,
 * 128+N for signal N), user_time and sys_time (ns, when known), counts (live
 * runs: name -> { value, raw, enabled, running, supported }, the totals),
 * error (the line of the hook error that stopped the run, if one did) }.
 * With an interval, the last on_interval (info.last) comes first (not
 * after an error). */
void lp_run_end(struct lp_run *run, uint64_t duration, int status);

/* run.c: counting runs (nothing sampled): the intervals of on_interval
 * start at time t (CLOCK_MONOTONIC ns), and the last one ends at the end
 * of the run. */
void lp_run_set_origin(struct lp_run *run, uint64_t t);

/* run.c: feeds every record of src to the model and the script: samples
 * to their event's handler (on_event[NAME], else on_sample), COMM, FORK
 * and EXIT to on_comm, on_fork and on_exit, in the source's (time) order.
 * Returns 0, or -1 after a script error (already reported): a hook's
 * error (run->error) stops src and sets run->hook_error, and the caller
 * still ends the run with lp_run_end, whose on_end gets info.error. */
int lp_run_loop(struct lp_run *run, const struct lp_source *src);

/* run.c: calls on_comm, on_fork or on_exit (when the script has it) for a
 * COMM, FORK or EXIT record; 0 for other records.  Returns 0, or -1 after
 * a script error (already reported). */
int lp_run_task_hook(struct lp_run *run, const struct lp_record *rec);

/* run.c: one line on stderr for each key of the script's on_event that
 * names none of the nr events (known at start: live runs, and replays of a
 * file): a warning, or an error (-1) when the key is close to the name of
 * an event whose samples go to no hook at all (no on_sample, no on_event
 * entry for it): the key was meant for it ("did you mean").  Returns 0 or
 * -1. */
int lp_run_check_handlers(struct lp_run *run, const char *const *names, size_t nr);

#endif
