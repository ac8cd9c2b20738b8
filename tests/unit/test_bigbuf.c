/*
 * test_bigbuf.c - lp_bigbuf: small buffers, the move to a mapping, growth
 * of a mapping, contents kept across every step, capacities.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "test.h"
#include "util/bigbuf.h"

#define HUGE ((size_t)2 << 20)
#define PAGE ((size_t)4096)

/* Fills buf[from, to) with a pattern of the offset. */
static void fill(unsigned char *buf, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		buf[i] = (unsigned char)(i * 7 + (i >> 12));
}

/* Offsets in [0, n) whose byte is not the pattern. */
static size_t mismatches(const unsigned char *buf, size_t n)
{
	size_t bad = 0;

	for (size_t i = 0; i < n; i++)
		bad += buf[i] != (unsigned char)(i * 7 + (i >> 12));
	return bad;
}

static void test_grow_keeps_contents(void)
{
	void *p = NULL;
	size_t cap = 0;

	TEST_EQ(lp_bigbuf_reserve(&p, &cap, 1000), 0);
	TEST_TRUE(p != NULL && cap >= 1000 && cap < LP_BIGBUF_MIN);
	fill(p, 0, 1000);
	TEST_EQ(lp_bigbuf_reserve(&p, &cap, 500), 0);   /* big enough: unchanged */
	TEST_TRUE(cap >= 1000 && cap < LP_BIGBUF_MIN);
	TEST_EQ(lp_bigbuf_reserve(&p, &cap, 100000), 0);
	TEST_EQ(mismatches(p, 1000), 0);
	fill(p, 1000, 100000);

	/* malloc memory to a mapping: aligned, rounded to whole pages */
	TEST_EQ(lp_bigbuf_reserve(&p, &cap, 3 * HUGE + 1), 0);
	TEST_EQ(cap, 3 * HUGE + PAGE);
	TEST_EQ((uintptr_t)p % HUGE, 0);
	TEST_EQ(mismatches(p, 100000), 0);
	fill(p, 100000, cap);

	/* a mapping grown: pages moved, not lost */
	TEST_EQ(lp_bigbuf_reserve(&p, &cap, 9 * HUGE + 1), 0);
	TEST_EQ(cap, 9 * HUGE + PAGE);
	TEST_EQ((uintptr_t)p % HUGE, 0);
	TEST_EQ(mismatches(p, 3 * HUGE + PAGE), 0);
	fill(p, 3 * HUGE + PAGE, cap);          /* the new part is writable */
	TEST_EQ(mismatches(p, cap), 0);
	lp_bigbuf_free(p, cap);
}

static void test_fresh_mapping_and_free(void)
{
	void *p = NULL;
	size_t cap = 0;

	TEST_EQ(lp_bigbuf_reserve(&p, &cap, LP_BIGBUF_MIN), 0);
	TEST_EQ(cap, LP_BIGBUF_MIN);
	TEST_EQ(((unsigned char *)p)[cap - 1], 0);      /* fresh mappings are zero */
	lp_bigbuf_free(p, cap);
	lp_bigbuf_free(NULL, 0);
}

static void test_impossible_size(void)
{
	void *p = NULL;
	size_t cap = 0;

	TEST_EQ(lp_bigbuf_reserve(&p, &cap, 100), 0);
	void *keep = p;
	TEST_EQ(lp_bigbuf_reserve(&p, &cap, SIZE_MAX - 10), -ENOMEM);
	TEST_TRUE(p == keep);
	TEST_EQ(cap, 100);
	TEST_EQ(lp_bigbuf_reserve(&p, &cap, (size_t)1 << 62), -ENOMEM);
	TEST_TRUE(p == keep);
	lp_bigbuf_free(p, cap);
}

/* A buffer of a huge page and a bit, written whole, holds what it was
 * asked for: the tail is no second huge page (1.1 MiB of symbols took 2). */
static void test_tail_costs_what_it_holds(void)
{
	void *p = NULL;
	size_t cap = 0, want = HUGE + 100 * 1024;

	TEST_EQ(lp_bigbuf_reserve(&p, &cap, want), 0);
	TEST_EQ(cap, HUGE + 100 * 1024);
	memset(p, 1, cap);
	long rss = test_mapping_rss_kib(p);
	if (rss < 0) {
		lp_bigbuf_free(p, cap);
		TEST_SKIP("no /proc/self/smaps entry for the mapping");
	}
	TEST_EQ(rss, 2048 + 100);    /* the old rounding made it 4096 */
	lp_bigbuf_free(p, cap);
}

/* A buffer advised back to small pages costs the pages written, where a
 * huge page would cost 2 MiB for the first byte (pdorder.c's first slab). */
static void test_small_costs_pages_written(void)
{
	void *p = NULL;
	size_t cap = 0;

	TEST_EQ(lp_bigbuf_reserve(&p, &cap, HUGE), 0);
	TEST_EQ(cap, HUGE);
	lp_bigbuf_small(p, cap);
	memset(p, 1, 3 * PAGE);
	((unsigned char *)p)[HUGE - 1] = 1;
	long rss = test_mapping_rss_kib(p);
	if (rss < 0) {
		lp_bigbuf_free(p, cap);
		TEST_SKIP("no /proc/self/smaps entry for the mapping");
	}
	TEST_EQ(rss, 16);
	lp_bigbuf_free(p, cap);
}

TEST_MAIN("bigbuf",
	TEST_CASE(test_grow_keeps_contents),
	TEST_CASE(test_fresh_mapping_and_free),
	TEST_CASE(test_impossible_size),
	TEST_CASE(test_tail_costs_what_it_holds),
	TEST_CASE(test_small_costs_pages_written))
