/*
 * drain.h - internal to core/live: a thread that empties the kernel's
 * rings into memory, so that a consumer slower than the samples costs
 * memory rather than samples.
 *
 * The thread sleeps in poll on the rings' fds (and a control eventfd),
 * copies every whole record of each ring, byte for byte, into that ring's
 * stage (one growable buffer: no allocation, no syscall per record), frees
 * the ring for the kernel, and wakes the consumer through an eventfd.  The
 * consumer swaps a stage for an empty buffer of its own under a mutex
 * (lp_drain_take) and owns the records from then on.
 *
 * The bound: once the bytes drained and not yet handed out (held, lowered
 * by lp_drain_release as the consumer hands records out) reach the bound,
 * the thread starts no further pass over the rings, and the kernel drops
 * samples and counts them (LOST records), as perf record's own rings do.
 * A pass once started is whole, so the bound is exceeded by at most the
 * rings' size.  A consumer with nothing it may hand out (every record it
 * holds is too recent: see live.c) can ask for one pass past the bound
 * (lp_drain_kick).
 */
#ifndef LP_LIVE_DRAIN_H
#define LP_LIVE_DRAIN_H

#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "luaprof/ring.h"

/* Raw records as the ring held them, 8-byte aligned, back to back. */
struct lp_stage {
	uint8_t *buf;
	size_t len, cap;
};

struct lp_drain {
	struct lp_ring **rings;         /* borrowed; NULL entries are skipped */
	size_t nr;
	struct pollfd *pfds;            /* [0] the control eventfd, then the rings' fds */
	size_t nr_pfds;
	int ctl;                        /* eventfd: consumer -> thread (kick, room, quit) */
	int data;                       /* eventfd: thread -> consumer (records staged) */
	size_t bound;                   /* bytes */
	/* Called on the thread for every sample as it is staged: writes the
	 * record that goes just before it (capture.h) into out, room bytes,
	 * and returns its size (0: none), or sets *drop when the sample is
	 * the thread's alone (capcall.c) and is not staged.  NULL: nothing
	 * is added.  Set before lp_drain_start. */
	size_t (*capture)(void *ctx, const struct perf_event_header *h, void *out, size_t room,
			  bool *drop);
	void *capture_ctx;
	pthread_t thread;
	bool running;
	pthread_mutex_t mu;
	/* under mu */
	struct lp_stage *stage;         /* one per ring */
	uint64_t pass;                  /* CLOCK_MONOTONIC ns read before the last whole pass */
	uint64_t samples;               /* samples staged since the start */
	uint64_t bad;                   /* malformed rings seen */
	int error;                      /* -ENOMEM from a stage's growth */
	/* atomics */
	size_t held;                    /* bytes drained and not released */
	int full;                       /* the bound stops the draining */
	int kicked;                     /* the consumer asked for a pass */
	int quit;
	uint64_t full_times;            /* times the bound was reached */
	size_t max_held;                /* the most held at once (written by the
					 * thread alone) */
};

/* Prepares d over nr rings (the fds are polled for data) with a bound in
 * bytes.  Returns 0 or -errno; lp_drain_free undoes it in either case. */
int lp_drain_init(struct lp_drain *d, struct lp_ring **rings, const int *fds, size_t nr,
		  size_t bound);

/* Starts the thread (every signal blocked in it).  0 or -errno. */
int lp_drain_start(struct lp_drain *d);

/* Makes the thread finish its pass and joins it, then drains every ring
 * once more into the stages (past the bound: the run is ending).
 * Idempotent; nothing when it was never started. */
void lp_drain_stop(struct lp_drain *d);

/* Swaps ring i's stage with *mine (which must be empty: len 0, its
 * buffer reused); *pass receives the time read before the last whole
 * pass (every record stamped before it is staged or was taken), samples
 * the count staged since the start, bad the malformed rings.  Returns 0 or
 * the thread's -ENOMEM. */
int lp_drain_take(struct lp_drain *d, size_t i, struct lp_stage *mine, uint64_t *pass);

/* Staged samples and malformed rings since the start (under the lock). */
void lp_drain_counts(struct lp_drain *d, uint64_t *samples, uint64_t *bad);

/* The consumer handed out bytes of records: room for the thread. */
void lp_drain_release(struct lp_drain *d, size_t bytes);

/* Asks for one pass even past the bound; the thread then wakes the
 * consumer whether or not it found records. */
void lp_drain_kick(struct lp_drain *d);

/* Whether the bound stops the draining now. */
bool lp_drain_full(struct lp_drain *d);

/* Reads (empties) the data eventfd after the consumer woke on it. */
void lp_drain_ack(struct lp_drain *d);

/* Stops the thread and frees everything.  Accepts a zeroed struct. */
void lp_drain_free(struct lp_drain *d);

#endif
