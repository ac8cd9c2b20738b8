/*
 * test_ranges.c - lp_ranges: ranges found at every address of them and
 * nowhere else, in any order of adding (the tail and its merges), empty
 * ranges, clearing, the bound on the ranges kept, NULL sets.
 */
#include <stdlib.h>

#include "test.h"
#include "luaprof/ranges.h"

/* Whether r answers at as the range [lo, hi) of value val, or (val
 * UINT64_MAX) not at all. */
static bool answers(const struct lp_ranges *r, uint64_t at, uint64_t lo, uint64_t hi, uint64_t val)
{
	uint64_t v, l, h;
	bool found = lp_ranges_find(r, at, &v, &l, &h);
	return val == UINT64_MAX ? !found : found && v == val && l == lo && h == hi;
}

/* 5,000 ranges of random lengths with gaps between them, added in random
 * order: each of their addresses (and the gaps' addresses) answered
 * right after every add of a hundred, through several tail merges. */
static void test_random_order(void)
{
	enum { N = 5000 };
	static uint64_t lo[N], hi[N];
	static size_t order[N];
	unsigned seed = 3;
	uint64_t at = 0x400000;

	for (size_t i = 0; i < N; i++) {
		at += (uint64_t)(rand_r(&seed) % 3) * 16;       /* a gap, or none */
		lo[i] = at;
		hi[i] = at += 1 + (uint64_t)(rand_r(&seed) % 200);
		order[i] = i;
	}
	for (size_t i = N; i > 1; i--) {
		size_t j = (size_t)rand_r(&seed) % i, t = order[i - 1];
		order[i - 1] = order[j];
		order[j] = t;
	}
	struct lp_ranges *r = lp_ranges_new();
	TEST_TRUE(r != NULL);
	size_t wrong = 0;
	static bool added[N];
	for (size_t k = 0; k < N; k++) {
		size_t i = order[k];
		lp_ranges_add(r, lo[i], hi[i], i);
		added[i] = true;
		if (k % 100 != 99 && k != N - 1)
			continue;
		for (size_t j = 0; j < N; j++) {
			uint64_t want = added[j] ? j : UINT64_MAX;
			wrong += !answers(r, lo[j], lo[j], hi[j], want) ||
				 !answers(r, hi[j] - 1, lo[j], hi[j], want) ||
				 !answers(r, lo[j] + (hi[j] - lo[j]) / 2, lo[j], hi[j], want);
			if (j + 1 < N && hi[j] < lo[j + 1])     /* a gap: nobody's */
				wrong += !answers(r, hi[j], 0, 0, UINT64_MAX);
		}
	}
	TEST_EQ(wrong, 0);
	TEST_TRUE(answers(r, lo[0] - 1, 0, 0, UINT64_MAX));
	TEST_TRUE(answers(r, hi[N - 1], 0, 0, UINT64_MAX));
	lp_ranges_clear(r);
	TEST_TRUE(answers(r, lo[7], 0, 0, UINT64_MAX));
	lp_ranges_add(r, lo[7], hi[7], 70);
	TEST_TRUE(answers(r, lo[7], lo[7], hi[7], 70));
	lp_ranges_free(r);
}

/* An empty range is not kept; the top of the address space is one; a
 * NULL set finds nothing and takes nothing. */
static void test_edges(void)
{
	struct lp_ranges *r = lp_ranges_new();
	uint64_t v, l, h;

	lp_ranges_add(r, 0x1000, 0x1000, 1);
	TEST_TRUE(!lp_ranges_find(r, 0x1000, &v, &l, &h));
	lp_ranges_add(r, 0x2000, 0x1000, 1);            /* backwards: empty */
	TEST_TRUE(!lp_ranges_find(r, 0x1800, &v, &l, &h));
	lp_ranges_add(r, UINT64_MAX - 16, UINT64_MAX, 2);
	TEST_TRUE(answers(r, UINT64_MAX - 1, UINT64_MAX - 16, UINT64_MAX, 2));
	TEST_TRUE(!lp_ranges_find(r, UINT64_MAX, &v, &l, &h));
	lp_ranges_add(r, 0, 1, 3);
	TEST_TRUE(answers(r, 0, 0, 1, 3));
	lp_ranges_free(r);
	TEST_TRUE(!lp_ranges_find(NULL, 0, &v, &l, &h));
	lp_ranges_add(NULL, 0, 1, 3);
	lp_ranges_clear(NULL);
	lp_ranges_free(NULL);
}

/* Past 65,536 ranges no more are kept (memory is bounded), and those kept
 * still answer. */
static void test_bound(void)
{
	enum { N = 70000 };
	struct lp_ranges *r = lp_ranges_new();
	for (uint64_t i = 0; i < N; i++)
		lp_ranges_add(r, i * 2, i * 2 + 1, i);
	size_t kept = 0, wrong = 0;
	for (uint64_t i = 0; i < N; i++) {
		uint64_t v, l, h;
		if (lp_ranges_find(r, i * 2, &v, &l, &h)) {
			kept++;
			wrong += v != i || l != i * 2 || h != i * 2 + 1;
		}
	}
	TEST_EQ(kept, (size_t)1 << 16);
	TEST_EQ(wrong, 0);
	lp_ranges_free(r);
}

TEST_MAIN("ranges",
	TEST_CASE(test_random_order),
	TEST_CASE(test_edges),
	TEST_CASE(test_bound))
