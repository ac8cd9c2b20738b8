/*
 * drain.c - the thread that empties the rings into memory (see drain.h).
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "live/drain.h"
#include "luaprof/capture.h"
#include "luaprof/luaprof.h"
#include "luaprof/thread.h"

#define IDLE_MS 50      /* a pass at least this often: the consumer's clock */
#define DRAIN_NICE -10

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void signal_fd(int fd)
{
	uint64_t one = 1;
	ssize_t n = write(fd, &one, sizeof one);
	(void)n;        /* a full counter still wakes the reader */
}

static void empty_fd(int fd)
{
	uint64_t v;
	ssize_t n = read(fd, &v, sizeof v);
	(void)n;
}

/* Room for need more bytes in s.  0 or -ENOMEM. */
static int stage_reserve(struct lp_stage *s, size_t need)
{
	if (s->len + need <= s->cap)
		return 0;
	size_t cap = s->cap ? s->cap : 1 << 20;
	while (cap < s->len + need)
		cap *= 2;
	uint8_t *b = realloc(s->buf, cap);
	if (!b)
		return -ENOMEM;
	s->buf = b;
	s->cap = cap;
	return 0;
}

/* Copies every whole record of ring i into its stage; under mu.  The
 * bytes copied, or 0 at an error (recorded in d->error). */
static size_t drain_one(struct lp_drain *d, size_t i, uint64_t *samples)
{
	struct lp_ring *r = d->rings[i];
	struct lp_stage *s = &d->stage[i];
	const struct perf_event_header *h;
	int err = 0;
	size_t moved = 0;
	uint64_t avail = lp_ring_begin(r);
	if (!avail)
		return 0;
	if (stage_reserve(s, (size_t)avail)) {
		d->error = -ENOMEM;
		return 0;
	}
	while ((h = lp_ring_next(r, &err))) {
		if (d->capture && h->type == PERF_RECORD_SAMPLE) {
			bool drop = false;
			if (stage_reserve(s, LP_CAPTURE_ROOM + h->size)) {
				d->error = -ENOMEM;
				break;
			}
			size_t n = d->capture(d->capture_ctx, h, s->buf + s->len, LP_CAPTURE_ROOM, &drop);
			s->len += n;
			moved += n;
			if (drop)
				continue;
		}
		memcpy(s->buf + s->len, h, h->size);
		s->len += h->size;
		moved += h->size;
		*samples += h->type == PERF_RECORD_SAMPLE;
	}
	lp_ring_consume(r);
	if (err) {
		d->bad++;
		lp_log(LP_WARN, "ring %zu: malformed record, rest of the ring skipped", i);
	}
	return moved;
}

/* One whole pass over the rings; whether it staged anything.  The bound
 * is looked at before a pass, never inside one: a pass stopped half way
 * would leave the time of the last whole pass behind, and with it what
 * the consumer may hand out. */
static bool pass(struct lp_drain *d)
{
	uint64_t t = now_ns(), samples = 0;
	size_t moved = 0;
	pthread_mutex_lock(&d->mu);
	for (size_t i = 0; i < d->nr; i++)
		if (d->rings[i])
			moved += drain_one(d, i, &samples);
	if (!d->error)
		d->pass = t;
	d->samples += samples;
	pthread_mutex_unlock(&d->mu);
	size_t held = __atomic_add_fetch(&d->held, moved, __ATOMIC_RELAXED);
	if (held > __atomic_load_n(&d->max_held, __ATOMIC_RELAXED))
		__atomic_store_n(&d->max_held, held, __ATOMIC_RELAXED);
	return moved > 0;
}

/* Marks the bound reached; one line the first time. */
static void set_full(struct lp_drain *d)
{
	if (__atomic_exchange_n(&d->full, 1, __ATOMIC_RELAXED))
		return;
	if (!__atomic_fetch_add(&d->full_times, 1, __ATOMIC_RELAXED))
		lp_log(LP_WARN, "the script is %zu KiB of records behind, the limit of "
		       "--queue-size: the kernel drops samples (counted as lost) until "
		       "the script catches up", d->bound >> 10);
}

/* While capturing, the thread wakes at every sample (to read its strings
 * before a short-lived process is gone), but the consumer, which holds
 * records back for the merge's slack anyway, is told at most every
 * SIGNAL_NS: a wake-up of it per sample cost a quarter of a traced open's
 * time (tests/bench, strings). */
#define SIGNAL_NS 2000000ull

static void *drain_main(void *arg)
{
	struct lp_drain *d = arg;
	uint64_t signaled = 0;
	bool pending = false;           /* staged records the consumer was not told of */
	/* ahead of the script and the workload for the CPU, where allowed
	 * (root): the thread works little but must run soon after a wake-up,
	 * before the rings fill; otherwise its nice value stays as it is.
	 * Capturing strings, it runs as a real-time thread (SCHED_FIFO, the
	 * lowest priority): a process's strings are read as soon as its
	 * sample is written, not after the time slice of whatever runs. */
	if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), DRAIN_NICE))
		errno = 0;
	struct sched_param sp = { .sched_priority = 1 };
	if (d->capture && pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp))
		errno = 0;
	while (!__atomic_load_n(&d->quit, __ATOMIC_ACQUIRE)) {
		bool full = __atomic_load_n(&d->held, __ATOMIC_RELAXED) >= d->bound;
		if (full)
			set_full(d);
		else
			__atomic_store_n(&d->full, 0, __ATOMIC_RELAXED);
		/* past the bound only the control fd: the rings stay readable */
		int n = poll(d->pfds, full ? 1 : d->nr_pfds, pending ? (int)(SIGNAL_NS / 1000000) : IDLE_MS);
		if (n > 0 && (d->pfds[0].revents & POLLIN))
			empty_fd(d->ctl);
		if (__atomic_load_n(&d->quit, __ATOMIC_ACQUIRE))
			break;
		bool kicked = __atomic_exchange_n(&d->kicked, 0, __ATOMIC_ACQ_REL);
		if (full && !kicked)
			continue;
		pending |= pass(d);
		uint64_t now = d->capture ? now_ns() : 0;
		if ((pending || kicked) && !d->error && (kicked || !d->capture || now - signaled >= SIGNAL_NS)) {
			signal_fd(d->data);
			signaled = now;
			pending = false;
		}
		if (d->error) {
			signal_fd(d->data);
			break;
		}
	}
	return NULL;
}

int lp_drain_init(struct lp_drain *d, struct lp_ring **rings, const int *fds, size_t nr,
		  size_t bound)
{
	*d = (struct lp_drain){ .rings = rings, .nr = nr, .ctl = -1, .data = -1,
				.bound = bound ? bound : 1 };
	if (pthread_mutex_init(&d->mu, NULL))
		return -ENOMEM;
	d->stage = calloc(nr ? nr : 1, sizeof *d->stage);
	d->pfds = calloc(nr + 1, sizeof *d->pfds);
	if (!d->stage || !d->pfds)
		return -ENOMEM;
	if ((d->ctl = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0 ||
	    (d->data = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0)
		return -errno;
	d->pfds[d->nr_pfds++] = (struct pollfd){ .fd = d->ctl, .events = POLLIN };
	for (size_t i = 0; i < nr; i++)
		if (rings[i])
			d->pfds[d->nr_pfds++] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
	return 0;
}

int lp_drain_start(struct lp_drain *d)
{
	int rc = lp_thread_start(&d->thread, drain_main, d);
	if (rc)
		return rc;
	d->running = true;
	return 0;
}

void lp_drain_stop(struct lp_drain *d)
{
	if (!d->running)
		return;
	__atomic_store_n(&d->quit, 1, __ATOMIC_RELEASE);
	signal_fd(d->ctl);
	pthread_join(d->thread, NULL);
	d->running = false;
	pass(d);                /* what the kernel wrote since, bound or not */
}

int lp_drain_take(struct lp_drain *d, size_t i, struct lp_stage *mine, uint64_t *pass_time)
{
	pthread_mutex_lock(&d->mu);
	struct lp_stage t = d->stage[i];
	d->stage[i] = *mine;
	*mine = t;
	*pass_time = d->pass;
	int rc = d->error;
	pthread_mutex_unlock(&d->mu);
	return rc;
}

void lp_drain_counts(struct lp_drain *d, uint64_t *samples, uint64_t *bad)
{
	pthread_mutex_lock(&d->mu);
	*samples = d->samples;
	*bad = d->bad;
	pthread_mutex_unlock(&d->mu);
}

void lp_drain_release(struct lp_drain *d, size_t bytes)
{
	size_t held = __atomic_sub_fetch(&d->held, bytes, __ATOMIC_RELAXED);
	if (__atomic_load_n(&d->full, __ATOMIC_RELAXED) && held < d->bound &&
	    __atomic_exchange_n(&d->full, 0, __ATOMIC_RELAXED))
		signal_fd(d->ctl);
}

void lp_drain_kick(struct lp_drain *d)
{
	__atomic_store_n(&d->kicked, 1, __ATOMIC_RELEASE);
	signal_fd(d->ctl);
}

bool lp_drain_full(struct lp_drain *d)
{
	return __atomic_load_n(&d->full, __ATOMIC_RELAXED);
}

void lp_drain_ack(struct lp_drain *d)
{
	if (d->data >= 0)
		empty_fd(d->data);
}

void lp_drain_free(struct lp_drain *d)
{
	if (!d->pfds && !d->stage)
		return;
	lp_drain_stop(d);
	for (size_t i = 0; d->stage && i < d->nr; i++)
		free(d->stage[i].buf);
	if (d->ctl >= 0)
		close(d->ctl);
	if (d->data >= 0)
		close(d->data);
	free(d->stage);
	free(d->pfds);
	pthread_mutex_destroy(&d->mu);
	*d = (struct lp_drain){ .ctl = -1, .data = -1 };
}
