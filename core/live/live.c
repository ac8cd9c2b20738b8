/*
 * live.c - a live run: launch, poll, drain, merge, stop.
 *
 * Ordering: records are copied out of the rings into one queue per CPU
 * (freeing the ring for the kernel at once) and merged by their
 * timestamps.  A ring is in time order but for one case: the kernel
 * stamps a side-band record (COMM, MMAP, ...) before it reserves its room,
 * and a sample interrupting in between is written first, with the later
 * time.  So each queue keeps its records sorted as they come in
 * (tqueue.c).  A record is only handed
 * out once no other CPU can still produce an earlier one: at each pass the
 * clock is read before the rings are drained, and records older than that
 * instant minus a slack are safe, since the kernel writes a record soon
 * after stamping it: within microseconds on bare metal, but a vCPU the
 * host stops between the two can take milliseconds (a slack of 2 ms let
 * records out of order: docs/performance.md, "Measured choices in the
 * code"), so the slack is 20 ms, and grows when a record still comes
 * later than that (slack.h).  At the end everything is flushed.
 * Timestamps are CLOCK_MONOTONIC (use_clockid), the clock read here.
 *
 * A sampling run drains the rings on a thread of its own (drain.c) into
 * per-ring stages, which lp_live_next takes and sorts into the queues
 * when it needs records: "the clock read before the rings are drained" is
 * then the thread's, that of its last whole pass.  When the caller has
 * nothing it may hand out while the queue is at its bound, or an alarm is
 * due, it asks the thread for a pass at once (lp_drain_kick).  At the end
 * the thread is joined and drains the rings a last time.
 *
 * The kernel reports a ring's losses with a LOST record written when the
 * ring next has room, so a ring still full when the events stop (a script
 * slower than the samples, to the end) loses samples no record reports.
 * Each sampling event also counts what it lost (PERF_FORMAT_LOST, Linux
 * 6.0 on): at the end, what that count holds beyond the LOST records is
 * handed out as one more LOST record (so a recording holds it too), as
 * perf record reads the same counts at its end.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#include "live/drain.h"
#include "live/evlist.h"
#include "live/slack.h"
#include "live/tqueue.h"
#include "luaprof/capture.h"
#include "luaprof/err.h"
#include "luaprof/live.h"
#include "luaprof/luaprof.h"
#include "luaprof/probe.h"
#include "luaprof/proc.h"
#include "luaprof/ring.h"
#include "luaprof/workload.h"

#define POLL_MS        100
/* Held records are asked for in batches: a pass is asked for once the
 * earliest held record is this much past its slack, not as soon as it is
 * (with samples streaming in, that was a pass and two wake-ups per
 * millisecond: 3,300 passes a second at -F 20000 on two CPUs, the drain
 * costing 3x perf record's CPU; tests/bench, live throughput). */
#define BATCH_NS       10000000ull     /* 10 ms */


struct lp_live {
	struct lp_evlist el;
	struct lp_format fmt;           /* the first event's: every trailer's layout */
	struct lp_format *fmts;         /* each event's: its samples' layout */
	struct lp_workload wl;
	bool has_cmd;
	const char *cmd;                /* argv[0], borrowed from the options */
	const char *exe;                /* the program's file (relocating watchpoints) */
	bool reloc;                     /* watchpoints wait for the load bias */
	int *target_fds;                /* pidfds of -p targets */
	size_t nr_targets;
	int wake[2];                    /* self-pipe for lp_live_stop */
	volatile sig_atomic_t stop;
	bool ending, ended;
	uint64_t safe_time;             /* records up to this time may go out */
	struct lp_slack slack;          /* how long before that the pass was */
	uint64_t deadline;              /* CLOCK_MONOTONIC ns, 0 = none */
	uint64_t alarm;                 /* lp_live_set_alarm's time, 0 = none */
	bool input_ready;               /* the watched fd was readable at the last poll */
	struct lp_tqueue *q;            /* one per CPU */
	uint64_t ring_lost;             /* samples LOST records reported */
	bool lost_checked;              /* the end's unreported losses were looked for */
	uint64_t lost_rec[16];          /* the LOST record made for them */
	struct pollfd *pfds;
	size_t nr_pfds;
	bool threaded;                  /* the rings are drained by lv->drain */
	struct lp_drain drain;
	struct lp_stage spare;          /* the buffer swapped for a stage */
	uint64_t drain_bad;             /* the thread's malformed rings counted so far */
	struct lp_live_stats stats;
	struct lp_event_spec *placed;   /* the events with tracefs probes (evdyn.c) */
	size_t nr_placed;
	struct lp_capcall calls;        /* library calls' strings (capcall.c) */
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------------------- drain */

/* The record's time for the merge, without decoding it: the full decode
 * (and its checks) happens once, when the record is handed out. */
static uint64_t record_time(struct lp_live *lv, const struct perf_event_header *h)
{
	uint64_t t;
	if (h->type == LP_RECORD_CAPTURE && h->size >= 16) {
		memcpy(&t, (const uint8_t *)h + 8, sizeof t);  /* its sample's time */
		return t;
	}
	if (lp_record_peek_time(h, h->size, &lv->fmt, &t)) {
		lv->stats.bad_records++;
		return UINT64_MAX;      /* dropped by the caller */
	}
	return t;
}

static int drain_ring(struct lp_live *lv, size_t cpu)
{
	struct lp_ring *ring = lv->el.rings[cpu];
	const struct perf_event_header *h;
	int err = 0, rc = 0;
	if (!ring)
		return 0;       /* counting: nothing is sampled */
	lp_ring_begin(ring);
	while (!rc && (h = lp_ring_next(ring, &err))) {
		uint64_t t = record_time(lv, h);
		if (t != UINT64_MAX)
			rc = lp_tqueue_push(&lv->q[cpu], t, h);
	}
	lp_ring_consume(ring);
	if (err) {
		lv->stats.bad_records++;
		lp_log(LP_WARN, "ring: cpu %d: malformed record, rest of the ring skipped",
		       lv->el.cpus[cpu]);
	}
	return rc;
}

static int drain_all(struct lp_live *lv)
{
	for (size_t c = 0; c < lv->el.nr_cpus; c++) {
		int rc = drain_ring(lv, c);
		if (rc)
			return rc;
	}
	return 0;
}

/* Sorts one stage's records (taken from the thread) into queue c. */
static int sort_in(struct lp_live *lv, size_t c, const struct lp_stage *st)
{
	for (size_t off = 0; off < st->len;) {
		const struct perf_event_header *h = (const void *)(st->buf + off);
		off += h->size;
		uint64_t t = record_time(lv, h);
		if (t == UINT64_MAX) {
			lp_drain_release(&lv->drain, h->size);
			continue;
		}
		int rc = lp_tqueue_push(&lv->q[c], t, h);
		if (rc)
			return rc;
	}
	return 0;
}

static struct lp_tqueue *earliest(struct lp_live *lv);

/* The backlog now: samples the thread staged that are not handed out
 * yet, and the age of the oldest record waiting at time pass. */
static void note_backlog(struct lp_live *lv, uint64_t pass)
{
	uint64_t staged, bad;
	lp_drain_counts(&lv->drain, &staged, &bad);
	lv->stats.bad_records += bad - lv->drain_bad;
	lv->drain_bad = bad;
	if (staged > lv->stats.samples && staged - lv->stats.samples > lv->stats.max_backlog)
		lv->stats.max_backlog = staged - lv->stats.samples;
	struct lp_tqueue *q = earliest(lv);
	if (q && pass > lp_tqueue_time(q) && pass - lp_tqueue_time(q) > lv->stats.max_lag_ns)
		lv->stats.max_lag_ns = pass - lp_tqueue_time(q);
	lv->stats.queue_full = __atomic_load_n(&lv->drain.full_times, __ATOMIC_RELAXED);
	lv->stats.queue_peak = __atomic_load_n(&lv->drain.max_held, __ATOMIC_RELAXED);
}

/* Takes what the thread staged into the queues; *pass receives the time
 * before the last whole pass that every stage taken holds.  The stages
 * are taken one by one, and the thread may finish a pass between two
 * takes: a later ring's stage then holds a pass that an earlier one's
 * does not, so the time is that of the first take (the smallest), or a
 * record of the earlier ring (a FORK) could go out after later ones of
 * another (its child's samples).  0 or -errno. */
static int take_all(struct lp_live *lv, uint64_t *pass)
{
	for (size_t c = 0; c < lv->el.nr_cpus; c++) {
		uint64_t p;
		int rc = lp_drain_take(&lv->drain, c, &lv->spare, &p);
		if (!c || p < *pass)
			*pass = p;
		if (!rc)
			rc = sort_in(lv, c, &lv->spare);
		lv->spare.len = 0;
		if (rc)
			return rc;
	}
	note_backlog(lv, lv->ending ? now_ns() : *pass);
	return 0;
}

/* The queue holding the earliest record, or NULL when all are empty. */
static struct lp_tqueue *earliest(struct lp_live *lv)
{
	struct lp_tqueue *best = NULL;
	uint64_t bt = UINT64_MAX;
	for (size_t c = 0; c < lv->el.nr_cpus; c++) {
		struct lp_tqueue *q = &lv->q[c];
		if (!lp_tqueue_empty(q) && (!best || lp_tqueue_time(q) < bt)) {
			best = q;
			bt = lp_tqueue_time(q);
		}
	}
	return best;
}

/* ------------------------------------------------------- stop checks */

static bool fd_readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	return fd >= 0 && poll(&p, 1, 0) == 1;
}

static bool targets_gone(struct lp_live *lv)
{
	if (!lv->nr_targets)
		return false;
	for (size_t i = 0; i < lv->nr_targets; i++)
		if (!fd_readable(lv->target_fds[i]))
			return false;
	return true;
}

static bool should_end(struct lp_live *lv)
{
	if (lv->stop)
		return true;
	if (lv->has_cmd && (lv->wl.pidfd >= 0 ? fd_readable(lv->wl.pidfd)
					      : lp_workload_reap(&lv->wl, false)))
		return true;
	if (lv->deadline && now_ns() >= lv->deadline)
		return true;
	return targets_gone(lv);
}

/* Lowers *timeout (ms) to reach time t (ns), when t is set. */
static void until(uint64_t t, int *timeout)
{
	if (!t)
		return;
	uint64_t now = now_ns();
	uint64_t left_ms = t > now ? (t - now) / 1000000 + 1 : 0;
	if (left_ms < (uint64_t)*timeout)
		*timeout = (int)left_ms;
}

static void wait_for_data(struct lp_live *lv)
{
	int timeout = POLL_MS;
	struct lp_tqueue *q = earliest(lv);
	until(lv->deadline, &timeout);
	until(lv->alarm ? lv->alarm + lv->slack.ns : 0, &timeout);
	/* a record held back for the slack goes out once past it, not at the
	 * next poll's end: the drain thread, which took it at once (it wakes
	 * at every sample while capturing strings), has no later pass to say
	 * so until asked */
	until(q ? lp_tqueue_time(q) + lv->slack.ns + BATCH_NS : 0, &timeout);
	bool due = (lv->alarm || q) && !timeout;
	/* an alarm or a held record due, or nothing to hand out past the
	 * bound: a pass now */
	if (lv->threaded && (due || lp_drain_full(&lv->drain))) {
		lp_drain_kick(&lv->drain);
		timeout = POLL_MS;
	}
	int n = poll(lv->pfds, lv->nr_pfds + 1, timeout);     /* + the watched fd's slot */
	if (n > 0 && (lv->pfds[0].revents & POLLIN)) {
		char buf[64];
		while (read(lv->wake[0], buf, sizeof buf) > 0)
			;
	}
	if (n > 0 && lv->pfds[lv->nr_pfds].fd >= 0 && lv->pfds[lv->nr_pfds].revents)
		lv->input_ready = true;
	if (lv->threaded)
		lp_drain_ack(&lv->drain);
}

/* ------------------------------------------------------------- next */

static void count(struct lp_live *lv, const struct lp_record *r)
{
	lv->stats.records++;
	switch (r->type) {
	case PERF_RECORD_SAMPLE: lv->stats.samples++; break;
	case PERF_RECORD_LOST:
		lv->stats.lost += r->u.lost.lost;
		lv->ring_lost += r->u.lost.lost;
		break;
	case PERF_RECORD_LOST_SAMPLES: lv->stats.lost += r->u.lost_samples; break;
	case PERF_RECORD_THROTTLE:
		lv->stats.throttle++;
		if (r->has_sid && r->sid.pid == 0)      /* every event samples TID */
			lv->stats.throttle_idle++;
		break;
	case PERF_RECORD_UNTHROTTLE: lv->stats.unthrottle++; break;
	default: break;
	}
}

/* Decodes the earliest record of q into rec; false when it is malformed
 * (it is then dropped and counted).  Events differ in their samples'
 * layout (a tracepoint's RAW data, PERIOD), not in the trailer of other
 * records, so a sample's id (PERF_SAMPLE_IDENTIFIER, first in every
 * layout) chooses its event's format before it is decoded. */
static bool emit(struct lp_live *lv, struct lp_tqueue *q, struct lp_record *rec, int *event)
{
	const struct perf_event_header *h = lp_tqueue_pop(q);
	const struct lp_format *fmt = &lv->fmt;
	if (lv->threaded)
		lp_drain_release(&lv->drain, h->size);
	uint64_t id;
	*event = -1;
	if (h->type == PERF_RECORD_SAMPLE && !lp_record_peek_id(h, h->size, &lv->fmt, &id) &&
	    (*event = lp_evlist_event_of(&lv->el, id)) >= 0)
		fmt = &lv->fmts[*event];
	if (lp_record_parse(h, h->size, fmt, rec)) {
		lv->stats.bad_records++;
		return false;
	}
	count(lv, rec);
	if (rec->type != PERF_RECORD_SAMPLE && rec->has_sid)
		*event = lp_evlist_event_of(&lv->el, rec->sid.id);
	return true;
}

/* At the end, once: the losses the events counted beyond what LOST
 * records reported, as one more LOST record in rec (see the top); false
 * when there are none (or the kernel does not count them). */
static bool unreported_lost(struct lp_live *lv, struct lp_record *rec, int *event)
{
	if (lv->lost_checked)
		return false;
	lv->lost_checked = true;
	uint64_t all = lp_evlist_lost(&lv->el), id = 0;
	if (all <= lv->ring_lost || !lv->el.nr_fds || lv->el.fds[0] < 0 ||
	    ioctl(lv->el.fds[0], PERF_EVENT_IOC_ID, &id))
		return false;
	struct lp_record r = { .type = PERF_RECORD_LOST, .has_sid = true };
	r.u.lost = (struct lp_lost){ id, all - lv->ring_lost };
	r.sid.time = now_ns();          /* after every record: it comes last */
	r.sid.id = id;
	int n = lp_record_encode(&r, &lv->fmt, lv->lost_rec, sizeof lv->lost_rec);
	if (n < 0 || lp_record_parse(lv->lost_rec, (size_t)n, &lv->fmt, rec))
		return false;
	count(lv, rec);
	*event = lp_evlist_event_of(&lv->el, id);
	return true;
}

int lp_live_next(struct lp_live *lv, struct lp_record *rec, int *event)
{
	for (;;) {
		struct lp_tqueue *q = earliest(lv);
		if (q && (lv->ending || lp_tqueue_time(q) <= lv->safe_time)) {
			if (lp_slack_note(&lv->slack, lp_tqueue_time(q))) {
				lv->stats.late = lv->slack.late;
				lv->stats.max_late_ns = lv->slack.max_late_ns;
				lv->stats.slack_ns = lv->slack.ns;
			}
			if (emit(lv, q, rec, event))
				return 1;
			continue;
		}
		if (lv->ending)         /* drained and flushed */
			return unreported_lost(lv, rec, event) ? 1 : 0;
		bool end = should_end(lv);
		if (!end && lv->alarm && lv->safe_time >= lv->alarm) {
			lv->alarm = 0;
			return 2;       /* every record before the alarm is out */
		}
		if (!end && lv->input_ready) {
			lv->input_ready = false;
			return 3;       /* the watched fd is readable */
		}
		if (end) {
			lv->ending = true;
			lp_evlist_enable(&lv->el, 0);
			lp_capcall_enable(&lv->calls, 0);
			lp_drain_stop(&lv->drain);
		} else {
			wait_for_data(lv);
		}
		uint64_t pass = now_ns();
		int rc = lv->threaded ? take_all(lv, &pass) : drain_all(lv);
		if (rc)
			return rc;
		lv->safe_time = pass - lv->slack.ns;
	}
}

void lp_live_set_alarm(struct lp_live *lv, uint64_t t)
{
	lv->alarm = t;
}

void lp_live_watch(struct lp_live *lv, int fd)
{
	lv->pfds[lv->nr_pfds] = (struct pollfd){ .fd = fd < 0 ? -1 : fd, .events = POLLIN };
	lv->input_ready = false;
}

void lp_live_stop(struct lp_live *lv)
{
	lv->stop = 1;
	if (write(lv->wake[1], "", 1) < 0)
		return;         /* the pipe is full: a wake-up is pending anyway */
}

/* ------------------------------------------------------------- setup */

/* The run's events, and the library calls' probes, for task tid. */
static int open_task(struct lp_live *lv, pid_t tid)
{
	int rc = lp_evlist_open_task(&lv->el, tid);
	return rc ? rc : lp_capcall_open_task(&lv->calls, tid);
}

static int open_pid_threads(struct lp_live *lv, pid_t pid)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return lp_err(-ESRCH, "no process with pid %d", (int)pid);
	struct dirent *de;
	int rc = 0;
	while (!rc && (de = readdir(d)))
		if (de->d_name[0] >= '0' && de->d_name[0] <= '9')
			rc = open_task(lv, (pid_t)atoi(de->d_name));
	closedir(d);
	return rc;
}

/* System-wide events with -p targets (a script's system_wide) watch the
 * targets only for their exit, which ends the run. */
static int open_targets(struct lp_live *lv, const struct lp_live_opts *o)
{
	int rc;
	if (o->system_wide || o->argv) {
		rc = open_task(lv, o->system_wide ? -1 : lv->wl.pid);
		if (rc || !o->nr_pids)
			return rc;
	}
	lv->target_fds = malloc(o->nr_pids * sizeof *lv->target_fds);
	if (!lv->target_fds)
		return lp_err(-ENOMEM, "%s", strerror(ENOMEM));
	for (size_t i = 0; i < o->nr_pids; i++) {
		if (!o->system_wide && (rc = open_pid_threads(lv, o->pids[i])))
			return rc;
		long fd = syscall(SYS_pidfd_open, o->pids[i], 0);
		if (fd < 0 && errno == ESRCH)
			return lp_err(-ESRCH, "no process with pid %d", (int)o->pids[i]);
		lv->target_fds[lv->nr_targets++] = (int)fd;
	}
	return 0;
}

static int setup_poll(struct lp_live *lv)
{
	size_t n = 1 + lv->el.nr_cpus + 1 + lv->nr_targets + 1;     /* + lp_live_watch's */
	lv->pfds = calloc(n, sizeof *lv->pfds);
	lv->q = calloc(lv->el.nr_cpus, sizeof *lv->q);
	if (!lv->pfds || !lv->q)
		return -ENOMEM;
	lv->pfds[lv->nr_pfds++] = (struct pollfd){ .fd = lv->wake[0], .events = POLLIN };
	if (lv->threaded)
		lv->pfds[lv->nr_pfds++] = (struct pollfd){ .fd = lv->drain.data, .events = POLLIN };
	if (lv->wl.pidfd >= 0)
		lv->pfds[lv->nr_pfds++] = (struct pollfd){ .fd = lv->wl.pidfd, .events = POLLIN };
	for (size_t i = 0; i < lv->nr_targets; i++)
		lv->pfds[lv->nr_pfds++] = (struct pollfd){ .fd = lv->target_fds[i], .events = POLLIN };
	lv->pfds[lv->nr_pfds] = (struct pollfd){ .fd = -1 };  /* lp_live_watch's: none yet */
	return 0;
}

size_t lp_live_default_queue(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	uint64_t mem = pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : 0;
	uint64_t q = mem / 16;
	if (q < (16u << 20))
		q = 16u << 20;
	return q > SIZE_MAX ? SIZE_MAX : (size_t)q;
}

/* On the drain thread, for each sample as it is staged: the strings its
 * event's capture plan reads from the process, now, while a short-lived
 * process still runs (capture.h), as a record that goes before it.  A
 * library call's probe's sample becomes a call record instead, and is not
 * staged (capcall.c). */
static size_t capture_sample(void *ctx, const struct perf_event_header *h, void *out, size_t room,
			     bool *drop)
{
	struct lp_live *lv = ctx;
	struct lp_record r;
	uint64_t id;
	int e;
	size_t n = lp_capcall_take(&lv->calls, h, &lv->fmt, out, room, drop);
	if (*drop)
		return n;
	if (lp_record_peek_id(h, h->size, &lv->fmt, &id) || (e = lp_evlist_event_of(&lv->el, id)) < 0)
		return 0;
	const struct lp_capture_plan *plan = &lv->el.events[e].capture;
	if ((!plan->nr_ptrs && !plan->cmdline) || lp_record_parse(h, h->size, &lv->fmts[e], &r))
		return 0;
	return lp_capture_build(plan, &r.u.sample, out, room);
}

/* The drain thread's state over the rings (not started yet). */
static int setup_drain(struct lp_live *lv, size_t bound)
{
	size_t n = lv->el.nr_cpus;
	int *fds = calloc(n ? n : 1, sizeof *fds);
	if (!fds)
		return -ENOMEM;
	for (size_t c = 0; c < n; c++)
		fds[c] = lv->el.fds[c * lv->el.nr_events];
	lv->stats.queue_bytes = bound ? bound : lp_live_default_queue();
	int rc = lp_drain_init(&lv->drain, lv->el.rings, fds, n, lv->stats.queue_bytes);
	free(fds);
	lv->threaded = !rc;
	for (size_t e = 0; e < lv->el.nr_events; e++)
		if (lv->el.events[e].capture.nr_ptrs || lv->el.events[e].capture.cmdline || lv->calls.on) {
			lv->drain.capture = capture_sample;
			lv->drain.capture_ctx = lv;
		}
	return rc;
}

/* One line for the probes tracefs would not take (rc: its first refusal),
 * which follow only the threads they were opened on (evdyn.c), once they
 * opened. */
static void warn_not_inherited(const struct lp_event_spec *v, size_t n, int rc)
{
	size_t first = 0, count = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i].no_inherit && !count++)
			first = i;
	if (!count)
		return;
	bool one = count == 1;
	char more[48] = "";
	if (!one)
		snprintf(more, sizeof more, " and %zu other probe%s", count - 1, count > 2 ? "s" : "");
	lp_log(LP_WARN, "'%s'%s follow%s only the threads %s opened on, not the threads and "
	       "processes they start: tracefs's uprobe_events refused %s (%s), and the kernel "
	       "fails a fork that copies a uprobe PMU event (EFAULT); %s", v[first].name, more,
	       one ? "s" : "", one ? "it was" : "they were", one ? "it" : "them",
	       rc == -EINVAL ? "a path with a space" : strerror(-rc),
	       rc == -EINVAL ? "probe through a path without one (a symlink), or on every CPU (-a)"
			     : "run as root with tracefs mounted, or probe every CPU (-a)");
}

static int live_setup(struct lp_live *lv, const struct lp_live_opts *o)
{
	struct lp_sampling s = o->sampling;
	int rc;
	s.inherit = !o->system_wide;
	s.enable_on_exec = o->argv && !o->system_wide;
	if ((rc = lp_access_check()))
		return rc;
	if (pipe2(lv->wake, O_CLOEXEC | O_NONBLOCK))
		return lp_err(-errno, "%s", strerror(errno));
	lv->exe = o->exe;
	lv->reloc = false;
	for (size_t e = 0; e < o->nr_events; e++)
		lv->reloc |= o->events[e].reloc && o->argv;
	if (o->argv && (rc = lv->reloc ? lp_workload_prepare_stopped(&lv->wl, o->argv)
				       : lp_workload_prepare(&lv->wl, o->argv)))
		return lp_err(rc, "cannot start '%s': %s", LP_SHOW(o->argv[0]), strerror(-rc));
	lv->has_cmd = o->argv != NULL;
	lv->cmd = o->argv ? o->argv[0] : NULL;
	/* before their attrs are made */
	int placed = lp_evdyn_place(o->events, o->nr_events, s.inherit);
	lv->placed = o->events;
	lv->nr_placed = o->nr_events;
	if ((rc = lp_evlist_init(&lv->el, o->events, o->nr_events, &s)) ||
	    (!s.count_only && (rc = lp_capcall_init(&lv->calls, o->events, o->nr_events, &s))))
		return lp_err(rc, "cannot list the online CPUs: %s", strerror(-rc));
	if ((rc = open_targets(lv, o)))
		return rc;
	warn_not_inherited(o->events, o->nr_events, placed);
	if (!lv->el.nr_fds)
		return lp_err(-ESRCH, "nothing to profile: every target has exited");
	if ((rc = lp_evlist_mmap(&lv->el, o->mmap_pages, o->mmap_pages_exact)))
		return rc;
	if ((rc = lp_capcall_redirect(&lv->calls, &lv->el)))
		return lp_err(rc, "cannot send the library calls' probes into the rings: %s",
			      strerror(-rc));
	lp_format_from_attr(&lv->fmt, &lv->el.attrs[0]);
	if (!(lv->fmts = calloc(o->nr_events, sizeof *lv->fmts)))
		return lp_err(-ENOMEM, "%s", strerror(ENOMEM));
	for (size_t e = 0; e < o->nr_events; e++)
		lp_format_from_attr(&lv->fmts[e], &lv->el.attrs[e]);
	if ((!lv->el.counting && (rc = setup_drain(lv, o->queue_bytes))) || (rc = setup_poll(lv)))
		return lp_err(rc, "%s", strerror(-rc));
	return 0;
}

struct lp_live *lp_live_open(const struct lp_live_opts *o, unsigned *fallbacks)
{
	struct lp_live *lv = calloc(1, sizeof *lv);
	if (!lv)
		return lp_err_null(-ENOMEM, "out of memory");
	lv->wl = (struct lp_workload){ .pid = -1, .go_fd = -1, .err_fd = -1, .pidfd = -1 };
	lv->wake[0] = lv->wake[1] = -1;
	lp_slack_init(&lv->slack);
	int rc = live_setup(lv, o);
	*fallbacks = lv->el.fallbacks;
	if (rc) {
		lp_workload_kill(&lv->wl, SIGKILL);
		lp_workload_reap(&lv->wl, true);
		lp_live_close(lv);
		return errno = -rc, NULL;
	}
	if (o->duration_ns)
		lv->deadline = o->duration_ns;  /* made absolute at start */
	return lv;
}

/* Moves the watchpoints of the command's variables by its load bias, now
 * that it is stopped at its exec (PERF_EVENT_IOC_MODIFY_ATTRIBUTES: the
 * one change the kernel allows an open breakpoint). */
static int relocate(struct lp_live *lv)
{
	uint64_t bias = 0;
	int rc = lv->exe ? lp_elf_load_bias(lv->wl.pid, lv->exe, &bias) : -ENOENT;
	for (size_t e = 0; !rc && e < lv->el.nr_events; e++) {
		struct lp_event_spec *ev = &lv->el.events[e];
		if (!ev->reloc)
			continue;
		/* the attr exactly as opened (the first event tracks), but there */
		struct lp_sampling s = lv->el.sampling;
		struct perf_event_attr a;
		s.tracking = e == 0 && !lv->el.counting;
		lp_event_attr(ev, &s, &a);
		/* the exec enabled it: the kernel cleared enable_on_exec, and a
		 * disabled attr would leave it off */
		a.enable_on_exec = 0;
		a.disabled = 0;
		a.bp_addr = ev->config1 + bias;
		for (size_t i = e; !rc && i < lv->el.nr_fds; i += lv->el.nr_events)
			if (lv->el.fds[i] >= 0 && ioctl(lv->el.fds[i], PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &a))
				rc = -errno;
		ev->config1 = lv->el.attrs[e].bp_addr = a.bp_addr;
		ev->reloc = false;
	}
	if (rc)
		lp_err(rc, "cannot place the watchpoints in '%s' where it was loaded: %s",
		       LP_SHOW(lv->cmd), strerror(-rc));
	return rc;
}

int lp_live_start(struct lp_live *lv)
{
	if (lv->deadline)
		lv->deadline += now_ns();
	int rc;
	if (lv->threaded && (rc = lp_drain_start(&lv->drain)))
		return lp_err(rc, "cannot start the thread that drains the rings: %s",
			      strerror(-rc));
	if (!lv->el.sampling.enable_on_exec)
		lp_evlist_enable(&lv->el, 1);
	if (!lv->el.sampling.enable_on_exec)
		lp_capcall_enable(&lv->calls, 1);
	if (!lv->has_cmd)
		return 0;
	rc = lp_workload_start(&lv->wl);
	if (rc)
		return lp_err(rc, "cannot run '%s': %s", LP_SHOW(lv->cmd), strerror(-rc));
	if (lv->reloc && (rc = relocate(lv))) {
		lp_workload_kill(&lv->wl, SIGKILL);
		lp_workload_resume(&lv->wl);
		return rc;
	}
	if ((rc = lp_workload_resume(&lv->wl)))
		lp_err(rc, "cannot let '%s' run: %s", LP_SHOW(lv->cmd), strerror(-rc));
	return rc;
}

int lp_live_confirm(struct lp_live *lv)
{
	int rc = lv->has_cmd ? lp_workload_wait_exec(&lv->wl) : 0;
	if (rc)
		lp_err(rc, "cannot run '%s': %s", lv->cmd, strerror(-rc));
	return rc;
}

int lp_live_read_counts(struct lp_live *lv, struct lp_count *out)
{
	return lp_evlist_read(&lv->el, out);
}

int lp_live_exec_error(struct lp_live *lv)
{
	return lv->has_cmd ? lp_workload_exec_error(&lv->wl) : 0;
}

const struct rusage *lp_live_usage(const struct lp_live *lv)
{
	return lv->has_cmd && lv->wl.reaped ? &lv->wl.usage : NULL;
}

/* ------------------------------------------------------------ finish */

pid_t lp_live_pid(const struct lp_live *lv)
{
	return lv->has_cmd ? lv->wl.pid : -1;
}

void lp_live_signal(struct lp_live *lv, int sig)
{
	if (lv->has_cmd)
		lp_workload_kill(&lv->wl, sig);
}

/* Polls for the command's exit for up to ms milliseconds. */
static bool reaped_within(struct lp_live *lv, int ms)
{
	for (int i = 0; i < ms / 10 && !lp_workload_reap(&lv->wl, false); i++)
		usleep(10000);
	return lp_workload_reap(&lv->wl, false);
}

int lp_live_wait(struct lp_live *lv, int grace_ms)
{
	if (!lv->has_cmd)
		return -ECHILD;
	if (grace_ms >= 0 && !reaped_within(lv, grace_ms)) {
		lp_workload_kill(&lv->wl, SIGTERM);
		if (!reaped_within(lv, 2000))
			lp_workload_kill(&lv->wl, SIGKILL);
	}
	lp_workload_reap(&lv->wl, true);
	return lv->wl.status;
}

const struct perf_event_attr *lp_live_attr(const struct lp_live *lv, size_t event)
{
	return &lv->el.attrs[event];
}

const struct lp_format *lp_live_format(const struct lp_live *lv)
{
	return &lv->fmt;
}

size_t lp_live_ids(const struct lp_live *lv, size_t event, uint64_t *ids, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < lv->el.nr_id_slots; i++)
		if (lv->el.ids[i].id && lv->el.ids[i].event == event && n < max)
			ids[n++] = lv->el.ids[i].id;
	return n;
}

const struct lp_live_stats *lp_live_stats(const struct lp_live *lv)
{
	return &lv->stats;
}

void lp_live_close(struct lp_live *lv)
{
	if (!lv)
		return;
	lp_drain_free(&lv->drain);      /* joins the thread before the rings go */
	free(lv->spare.buf);
	for (size_t c = 0; lv->q && c < lv->el.nr_cpus; c++)
		lp_tqueue_free(&lv->q[c]);
	lp_capcall_close(&lv->calls);
	lp_evlist_close(&lv->el);
	lp_evdyn_remove(lv->placed, lv->nr_placed);     /* once their fds are closed */
	lp_workload_close(&lv->wl);
	for (size_t i = 0; i < lv->nr_targets; i++)
		if (lv->target_fds[i] >= 0)
			close(lv->target_fds[i]);
	for (int i = 0; i < 2; i++)
		if (lv->wake[i] >= 0)
			close(lv->wake[i]);
	free(lv->q);
	free(lv->fmts);
	free(lv->pfds);
	free(lv->target_fds);
	free(lv);
}
