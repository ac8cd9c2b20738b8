/*
 * tqueue.h - internal to core/live: a queue of copied ring records, kept
 * in time order.
 *
 * A live run copies each CPU's records out of its ring into one queue
 * (so the ring is free for the kernel at once) and merges the queues by
 * time.  A ring is in time order but for one case: the kernel stamps a
 * side-band record (COMM, MMAP, ...) before it reserves the record's
 * room, and a sample interrupting in between is written first, with the
 * later time.  So a push older than the queue's newest record is moved
 * back past the newer ones, found from the tail: a few, and rare.
 *
 * Entries are [u64 time][u64 the previous entry's size][record], 8-byte
 * aligned, in one buffer that grows by doubling (from 1 MiB) and reclaims
 * what was popped before it grows.
 */
#ifndef LP_LIVE_TQUEUE_H
#define LP_LIVE_TQUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/perf_event.h>

struct lp_tqueue {
	uint8_t *buf;
	size_t head, len, cap;  /* entries in [head, len) */
	size_t last;            /* the newest entry, while not empty */
};

/* Copies the record h (h->size bytes) in at its place by time: after
 * every entry no newer than time.  A zeroed struct is an empty queue.
 * Returns 0 or -ENOMEM (the queue is unchanged). */
int lp_tqueue_push(struct lp_tqueue *q, uint64_t time, const struct perf_event_header *h);

/* Whether the queue holds no record. */
bool lp_tqueue_empty(const struct lp_tqueue *q);

/* The time of the oldest record; the queue must not be empty. */
uint64_t lp_tqueue_time(const struct lp_tqueue *q);

/* Removes the oldest record and returns it, valid until the next push
 * (or free); the queue must not be empty. */
const struct perf_event_header *lp_tqueue_pop(struct lp_tqueue *q);

/* Frees the buffer and empties the queue.  Accepts an empty queue. */
void lp_tqueue_free(struct lp_tqueue *q);

#endif
