/* The live run's record queue (core/live/tqueue.c): records come out in
 * time order however they went in, with equal times in arrival order,
 * across pops, reclaims and growth; checked against a sorted model. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "live/tqueue.h"

/* A record of size bytes (a multiple of 8, at least 16) carrying its
 * sequence number after the header. */
static const struct perf_event_header *rec(uint64_t seq, uint16_t size)
{
	static uint64_t buf[64];
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = size };
	memset(buf, 0, sizeof buf);
	memcpy(buf, &h, sizeof h);
	buf[1] = seq;
	return (const void *)buf;
}

static uint64_t seq_of(const struct perf_event_header *h)
{
	uint64_t s;
	memcpy(&s, (const uint8_t *)h + 8, 8);
	return s;
}

/* Pushes times[i] as record i, pops everything, and checks the order
 * against want (record numbers). */
static void check_order(const uint64_t *times, const uint64_t *want, size_t n)
{
	struct lp_tqueue q = { 0 };
	for (size_t i = 0; i < n; i++)
		TEST_EQ(lp_tqueue_push(&q, times[i], rec(i, (uint16_t)(16 + 8 * (i % 3)))), 0);
	for (size_t i = 0; i < n; i++) {
		TEST_TRUE(!lp_tqueue_empty(&q));
		TEST_EQ(lp_tqueue_time(&q), times[want[i]]);
		const struct perf_event_header *h = lp_tqueue_pop(&q);
		TEST_EQ(seq_of(h), want[i]);
		TEST_EQ(h->size, 16 + 8 * (want[i] % 3));
	}
	TEST_TRUE(lp_tqueue_empty(&q));
	lp_tqueue_free(&q);
}

static void in_order(void)
{
	static const uint64_t t[] = { 1, 2, 2, 3, 10 }, w[] = { 0, 1, 2, 3, 4 };
	check_order(t, w, 5);
}

/* A side-band record stamped before the sample that was written first. */
static void one_behind(void)
{
	static const uint64_t t[] = { 10, 20, 26, 21, 30 }, w[] = { 0, 1, 3, 2, 4 };
	check_order(t, w, 5);
}

/* Older than everything queued: it goes first; equal times keep their
 * arrival order. */
static void to_the_front(void)
{
	static const uint64_t t[] = { 5, 6, 7, 1, 6, 0 }, w[] = { 5, 3, 0, 1, 4, 2 };
	check_order(t, w, 6);
}

/* Pushes and pops interleaved over several growths and reclaims, times
 * mostly rising with one in eight stepped back, against a model: the same
 * records sorted by (time, arrival). */
static void against_model(void)
{
	enum { N = 200000 };
	struct lp_tqueue q = { 0 };
	uint64_t *t = malloc(N * sizeof *t);
	uint64_t *order = malloc(N * sizeof *order);
	size_t pushed = 0, popped = 0, bad = 0;
	uint64_t now = 1000;
	srand(7);
	for (size_t i = 0; i < N; i++) {
		now += (uint64_t)(rand() % 50);
		t[i] = rand() % 8 ? now : now - (uint64_t)(rand() % 200);
	}
	/* the model: a stable sort of the indices by time */
	for (size_t i = 0; i < N; i++)
		order[i] = i;
	for (size_t i = 1; i < N; i++) {
		uint64_t x = order[i];
		size_t j = i;
		while (j > 0 && t[order[j - 1]] > t[x]) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = x;
	}
	/* Pops only what no later push can precede: times more than 200
	 * below the newest pushed (as the live run's slack). */
	while (popped < N) {
		int k = rand() % 64;
		for (int i = 0; i < k && pushed < N; i++, pushed++)
			TEST_EQ(lp_tqueue_push(&q, t[pushed], rec(pushed, (uint16_t)(16 + 8 * (pushed % 5)))), 0);
		uint64_t safe = pushed ? t[pushed - 1] : 0;
		while (!lp_tqueue_empty(&q) && (pushed == N || lp_tqueue_time(&q) + 250 < safe)) {
			const struct perf_event_header *h = lp_tqueue_pop(&q);
			if (seq_of(h) != order[popped] && bad++ < 3)
				TEST_FAIL_("pop %zu: record %llu, want %llu", popped,
					   (unsigned long long)seq_of(h), (unsigned long long)order[popped]);
			popped++;
		}
	}
	TEST_EQ(bad, 0);
	TEST_TRUE(lp_tqueue_empty(&q));
	lp_tqueue_free(&q);
	lp_tqueue_free(&q);             /* twice: harmless */
	free(t);
	free(order);
}

TEST_MAIN("tqueue", TEST_CASE(in_order), TEST_CASE(one_behind), TEST_CASE(to_the_front),
	  TEST_CASE(against_model))
