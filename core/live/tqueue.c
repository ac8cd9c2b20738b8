/*
 * tqueue.c - a queue of copied ring records in time order (see tqueue.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "live/tqueue.h"

#define ENTRY_HDR 16

static uint64_t field(const struct lp_tqueue *q, size_t off, size_t i)
{
	uint64_t v;
	memcpy(&v, q->buf + off + 8 * i, 8);
	return v;
}

static void set_field(struct lp_tqueue *q, size_t off, size_t i, uint64_t v)
{
	memcpy(q->buf + off + 8 * i, &v, 8);
}

/* Room for need more bytes at the end: what was popped is reclaimed
 * first, then the buffer grows.  0 or -ENOMEM. */
static int reserve(struct lp_tqueue *q, size_t need)
{
	if (q->len + need <= q->cap)
		return 0;
	if (q->head) {
		memmove(q->buf, q->buf + q->head, q->len - q->head);
		q->len -= q->head;
		q->last -= q->head;
		q->head = 0;
	}
	if (q->len + need <= q->cap)
		return 0;
	size_t cap = q->cap ? q->cap * 2 : 1 << 20;
	while (cap < q->len + need)
		cap *= 2;
	uint8_t *b = realloc(q->buf, cap);
	if (!b)
		return -ENOMEM;
	q->buf = b;
	q->cap = cap;
	return 0;
}

/* Where an entry of time t goes: after the last entry no newer than t,
 * looked for from the tail, never below head. */
static size_t insertion_point(const struct lp_tqueue *q, uint64_t t)
{
	if (lp_tqueue_empty(q) || field(q, q->last, 0) <= t)
		return q->len;
	size_t at = q->last;
	while (at > q->head) {
		size_t prev = at - field(q, at, 1);
		if (field(q, prev, 0) <= t)
			break;
		at = prev;
	}
	return at;
}

int lp_tqueue_push(struct lp_tqueue *q, uint64_t time, const struct perf_event_header *h)
{
	size_t need = ENTRY_HDR + ((h->size + 7u) & ~7u);
	if (reserve(q, need))
		return -ENOMEM;
	size_t at = insertion_point(q, time);
	uint64_t prev_size;
	if (at == q->len) {
		prev_size = lp_tqueue_empty(q) ? 0 : q->len - q->last;
		q->last = at;
	} else {                        /* before newer entries: move them up */
		prev_size = field(q, at, 1);
		memmove(q->buf + at + need, q->buf + at, q->len - at);
		set_field(q, at + need, 1, need);
		q->last += need;
	}
	set_field(q, at, 0, time);
	set_field(q, at, 1, prev_size);
	memcpy(q->buf + at + ENTRY_HDR, h, h->size);
	q->len += need;
	return 0;
}

bool lp_tqueue_empty(const struct lp_tqueue *q)
{
	return q->head == q->len;
}

uint64_t lp_tqueue_time(const struct lp_tqueue *q)
{
	return field(q, q->head, 0);
}

const struct perf_event_header *lp_tqueue_pop(struct lp_tqueue *q)
{
	const struct perf_event_header *h = (const void *)(q->buf + q->head + ENTRY_HDR);
	q->head += ENTRY_HDR + ((h->size + 7u) & ~7u);
	if (q->head == q->len)
		q->head = q->len = 0;
	return h;
}

void lp_tqueue_free(struct lp_tqueue *q)
{
	free(q->buf);
	*q = (struct lp_tqueue){ 0 };
}
