/*
 * test_symtab.c - lp_symtab: ordering, sizeless ends, aliases, overlaps,
 * out-of-range lookups, the empty table, a large table, starts that differ
 * in every byte, borrowed names and reservation.
 */
#include <errno.h>
#include <time.h>

#include "test.h"
#include "luaprof/sym.h"
#include "sym/sym_int.h"

struct def { const char *name; uint64_t start, size; unsigned prio; };

/* Adds defs in the order given by perm (NULL: as listed) and finishes. */
static struct lp_symtab *build(const struct def *d, size_t n, const size_t *perm)
{
	struct lp_symtab *t = lp_symtab_new();

	TEST_TRUE(t != NULL);
	for (size_t i = 0; i < n; i++) {
		const struct def *x = &d[perm ? perm[i] : i];
		TEST_EQ(lp_symtab_add_ex(t, x->name, x->start, x->size, x->prio), 0);
	}
	TEST_EQ(lp_symtab_finish(t), 0);
	return t;
}

static void shuffle(size_t *perm, size_t n, unsigned *seed)
{
	for (size_t i = 0; i < n; i++)
		perm[i] = i;
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)rand_r(seed) % i;
		size_t tmp = perm[i - 1];
		perm[i - 1] = perm[j];
		perm[j] = tmp;
	}
}

static const char *name_at(const struct lp_symtab *t, uint64_t addr)
{
	const struct lp_sym *s = lp_symtab_find(t, addr);
	return s ? s->name : NULL;
}

static void test_random_order(void)
{
	enum { N = 1000 };
	static struct def d[N];
	static char names[N][16];
	size_t perm[N];
	unsigned seed = 42;

	for (size_t i = 0; i < N; i++) {
		snprintf(names[i], sizeof names[i], "f%zu", i);
		d[i] = (struct def){ names[i], 0x1000 + i * 0x40, 0x30, 0 };
	}
	shuffle(perm, N, &seed);
	struct lp_symtab *t = build(d, N, perm);
	TEST_EQ(lp_symtab_count(t), N);
	for (size_t i = 0; i < N; i++) {
		const struct lp_sym *s = lp_symtab_at(t, i);
		TEST_STREQ(s->name, names[i]);
		TEST_EQ_U64(s->start, 0x1000 + i * 0x40);
		TEST_EQ_U64(s->end, s->start + 0x30);
		TEST_TRUE(lp_symtab_find(t, s->start) == s);
		TEST_TRUE(lp_symtab_find(t, s->start + 0x2f) == s);
		TEST_TRUE(lp_symtab_find(t, s->start + 0x30) == NULL); /* gap */
	}
	lp_symtab_free(t);
}

static void test_sizeless_ends(void)
{
	const struct def d[] = {
		{ "c", 0x3000, 0, 0 }, { "a", 0x1000, 0, 0 },
		{ "b", 0x2000, 0x10, 0 }, { "last", 0x5010, 0, 0 },
	};
	struct lp_symtab *t = build(d, 4, NULL);

	TEST_EQ_U64(lp_symtab_at(t, 0)->end, 0x2000);   /* a: next start */
	TEST_EQ_U64(lp_symtab_at(t, 1)->end, 0x2010);   /* b: sized */
	TEST_EQ_U64(lp_symtab_at(t, 2)->end, 0x5010);   /* c: next start */
	TEST_EQ_U64(lp_symtab_at(t, 3)->end, 0x7000);   /* last: page rounding */
	TEST_STREQ(name_at(t, 0x1fff), "a");
	TEST_TRUE(name_at(t, 0x2010) == NULL);  /* after b's end, before c */
	TEST_STREQ(name_at(t, 0x3000), "c");
	TEST_STREQ(name_at(t, 0x6fff), "last");
	TEST_TRUE(name_at(t, 0x7000) == NULL);
	lp_symtab_free(t);
}

static void test_sizeless_gap_is_not_c(void)
{
	/* b is sized and ends before c: the hole [0x2010, 0x3000) is nobody's. */
	const struct def d[] = {
		{ "b", 0x2000, 0x10, 0 }, { "c", 0x3000, 0, 0 },
	};
	struct lp_symtab *t = build(d, 2, NULL);

	TEST_TRUE(name_at(t, 0x2010) == NULL);
	TEST_TRUE(name_at(t, 0x2fff) == NULL);
	TEST_STREQ(name_at(t, 0x3000), "c");
	lp_symtab_free(t);
}

/* Aliases are settled by perf's rules whatever the insertion order; only an
 * exact tie (same size class, binding, underscores and length) goes to the
 * symbol added first, as perf keeps the earlier one. */
static void test_aliases_deterministic(void)
{
	const struct def d[] = {
		{ "zz_sized_local", 0x1000, 0x20, LP_SYM_LOCAL },
		{ "yyy_sized_global", 0x1000, 0x20, LP_SYM_GLOBAL },
		{ "_x_sized_global", 0x1000, 0x20, LP_SYM_GLOBAL },
		{ "aaaaaa_sizeless_global", 0x1000, 0, LP_SYM_GLOBAL },
		{ "bbbbbbbb_sized_weak", 0x1000, 0x20, LP_SYM_WEAK },
		{ "other", 0x2000, 0x10, 0 },
		{ "s2", 0x3000, 0, 0 }, { "s1", 0x3000, 0, 0 },
	};
	enum { N = sizeof d / sizeof d[0] };
	size_t perm[N];
	unsigned seed = 7;

	for (int round = 0; round < 200; round++) {
		shuffle(perm, N, &seed);
		struct lp_symtab *t = build(d, N, perm);
		size_t first_s = 0;
		while (strcmp(d[perm[first_s]].name, "s1") && strcmp(d[perm[first_s]].name, "s2"))
			first_s++;
		TEST_EQ(lp_symtab_count(t), 3);
		/* sized, global, no leading underscore: the longer global wins */
		TEST_STREQ(name_at(t, 0x1000), "yyy_sized_global");
		TEST_EQ_U64(lp_symtab_find(t, 0x1000)->end, 0x1020);
		TEST_STREQ(name_at(t, 0x3001), d[perm[first_s]].name);
		lp_symtab_free(t);
	}
}

static void test_sized_beats_prio(void)
{
	const struct def d[] = {
		{ "a_sizeless", 0x1000, 0, LP_SYM_GLOBAL },
		{ "b_sized", 0x1000, 8, LP_SYM_LOCAL },
	};
	struct lp_symtab *t = build(d, 2, NULL);

	TEST_STREQ(name_at(t, 0x1000), "b_sized");
	TEST_TRUE(name_at(t, 0x1008) == NULL);
	lp_symtab_free(t);
}

static void test_overlapping(void)
{
	const struct def d[] = {
		{ "outer", 0x1000, 0x1000, 0 },
		{ "inner", 0x1100, 0x100, 0 },
		{ "innermost", 0x1180, 0x10, 0 },
		{ "inner2", 0x1800, 0x100, 0 },
		{ "straddle", 0x1f00, 0x200, 0 },     /* overlaps outer's end */
		{ "after", 0x3000, 0x10, 0 },
	};
	size_t perm[6];
	unsigned seed = 3;

	for (int round = 0; round < 20; round++) {
		shuffle(perm, 6, &seed);
		struct lp_symtab *t = build(d, 6, perm);
		TEST_STREQ(name_at(t, 0x1000), "outer");
		TEST_STREQ(name_at(t, 0x10ff), "outer");
		TEST_STREQ(name_at(t, 0x1100), "inner");
		TEST_STREQ(name_at(t, 0x1185), "innermost");
		TEST_STREQ(name_at(t, 0x1190), "inner");
		TEST_STREQ(name_at(t, 0x1200), "outer");     /* past inner */
		TEST_STREQ(name_at(t, 0x1850), "inner2");
		TEST_STREQ(name_at(t, 0x1900), "outer");
		TEST_STREQ(name_at(t, 0x1f10), "straddle");
		TEST_STREQ(name_at(t, 0x2050), "straddle");
		TEST_TRUE(name_at(t, 0x2100) == NULL);
		TEST_STREQ(name_at(t, 0x3000), "after");
		lp_symtab_free(t);
	}
}

/* A label (sizeless) inside a function: lp_symtab_find gives the label,
 * lp_symtab_find_sized the function while the address is in it, the label
 * past the function's end (up to the next symbol). */
static void test_label_in_function(void)
{
	const struct def d[] = {
		{ "func", 0x1000, 0x100, 0 },
		{ "label", 0x1040, 0, 0 },
		{ "next", 0x1200, 0x10, 0 },
	};
	size_t perm[3] = { 0, 1, 2 };
	struct lp_symtab *t = build(d, 3, perm);

	TEST_STREQ(lp_symtab_find(t, 0x1050)->name, "label");
	TEST_STREQ(lp_symtab_find_sized(t, 0x1050)->name, "func");
	TEST_STREQ(lp_symtab_find_sized(t, 0x1040)->name, "func");
	TEST_STREQ(lp_symtab_find_sized(t, 0x1020)->name, "func");
	TEST_STREQ(lp_symtab_find_sized(t, 0x1100)->name, "label");
	TEST_STREQ(lp_symtab_find_sized(t, 0x1205)->name, "next");
	TEST_TRUE(lp_symtab_find_sized(t, 0x0fff) == NULL);
	lp_symtab_free(t);
}

static void test_out_of_range(void)
{
	const struct def d[] = {
		{ "a", 0x1000, 0x10, 0 }, { "b", 0x2000, 0x10, 0 },
		{ "top", UINT64_MAX - 0x10, 0x100, 0 },  /* size overflows: clamped */
	};
	struct lp_symtab *t = build(d, 3, NULL);

	TEST_TRUE(name_at(t, 0) == NULL);
	TEST_TRUE(name_at(t, 0xfff) == NULL);
	TEST_TRUE(name_at(t, 0x1010) == NULL);
	TEST_TRUE(name_at(t, 0x2010) == NULL);
	TEST_STREQ(name_at(t, UINT64_MAX - 1), "top");
	lp_symtab_free(t);
}

static void test_empty(void)
{
	struct lp_symtab *t = lp_symtab_new();

	TEST_TRUE(lp_symtab_find(t, 0x1000) == NULL);   /* not finished */
	TEST_EQ(lp_symtab_finish(t), 0);
	TEST_EQ(lp_symtab_count(t), 0);
	TEST_TRUE(lp_symtab_find(t, 0) == NULL);
	TEST_TRUE(lp_symtab_find(t, UINT64_MAX) == NULL);
	TEST_TRUE(lp_symtab_at(t, 0) == NULL);
	lp_symtab_free(t);
	lp_symtab_free(NULL);
}

static void test_refinish(void)
{
	struct lp_symtab *t = lp_symtab_new();

	TEST_EQ(lp_symtab_add(t, "a", 0x1000, 0), 0);
	TEST_EQ(lp_symtab_finish(t), 0);
	TEST_EQ_U64(lp_symtab_find(t, 0x1000)->end, 0x2000);
	TEST_EQ(lp_symtab_add(t, "b", 0x1800, 0), 0);
	TEST_TRUE(lp_symtab_find(t, 0x1000) == NULL);   /* unfinished again */
	TEST_EQ(lp_symtab_finish(t), 0);
	TEST_EQ_U64(lp_symtab_find(t, 0x1000)->end, 0x1800);
	TEST_STREQ(name_at(t, 0x1900), "b");
	lp_symtab_free(t);
}

static void test_tag_boundary(void)
{
	/* The last symbol of tag 0 does not extend to the far-away tag 1. */
	struct lp_symtab *t = lp_symtab_new();

	TEST_EQ(lp_symtab_add_tagged(t, "k1", 0xffffffff81000000ull, 0, 3, 0), 0);
	TEST_EQ(lp_symtab_add_tagged(t, "k2", 0xffffffff81000100ull, 0, 3, 0), 0);
	TEST_EQ(lp_symtab_add_tagged(t, "m1", 0xffffffffc0000000ull, 0, 3, 1), 0);
	TEST_EQ(lp_symtab_add_tagged(t, "m2", 0xffffffffc0000040ull, 0, 3, 1), 0);
	TEST_EQ(lp_symtab_finish(t), 0);
	TEST_EQ_U64(lp_symtab_find(t, 0xffffffff81000000ull)->end, 0xffffffff81000100ull);
	TEST_EQ_U64(lp_symtab_find(t, 0xffffffff81000100ull)->end, 0xffffffff81002000ull);
	TEST_TRUE(lp_symtab_find(t, 0xffffffff90000000ull) == NULL);
	const struct lp_sym *m = lp_symtab_find(t, 0xffffffffc0000010ull);
	TEST_STREQ(m->name, "m1");
	TEST_EQ(lp_symtab_tag(t, m), 1);
	TEST_EQ(lp_symtab_tag(t, lp_symtab_find(t, 0xffffffff81000000ull)), 0);
	lp_symtab_free(t);
}

static void test_large_and_names(void)
{
	enum { N = 200000 };
	struct lp_symtab *t = lp_symtab_new();
	char buf[64];

	for (unsigned i = 0; i < N; i++) {
		/* descending insertion, long-ish names across many arena chunks */
		unsigned k = N - 1 - i;
		snprintf(buf, sizeof buf, "function_with_a_long_name_%u", k);
		TEST_EQ(lp_symtab_add(t, buf, 0x400000 + (uint64_t)k * 16, 0), 0);
	}
	TEST_EQ(lp_symtab_finish(t), 0);
	TEST_EQ(lp_symtab_count(t), N);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	unsigned bad = 0;
	for (unsigned k = 0; k < N; k++) {
		const struct lp_sym *s = lp_symtab_find(t, 0x400000 + (uint64_t)k * 16 + 7);
		snprintf(buf, sizeof buf, "function_with_a_long_name_%u", k);
		bad += !s || strcmp(s->name, buf) || (k + 1 < N && s->end != s->start + 16);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	TEST_EQ(bad, 0);
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	fprintf(stderr, "  info: %d lookups+checks in %.1f ms\n", N, s * 1e3);
	lp_symtab_free(t);
}

/* Starts spread over the whole 64-bit range (every byte of the sort key
 * matters), each with a global and a local alias, added in order and
 * shuffled: both give the same table, in start order, globals kept. */
static void test_wide_starts(void)
{
	enum { N = 3000 };
	static struct def d[2 * N];
	static char names[2 * N][32];
	static size_t perm[2 * N];
	uint64_t x = 0x9e3779b97f4a7c15ull;
	unsigned seed = 11;

	for (size_t i = 0; i < N; i++) {
		uint64_t start = (i == 0 ? 0 : x & ~(uint64_t)0xff) + 0x10 * (i % 7);
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		snprintf(names[2 * i], sizeof names[0], "g%zu", i);
		snprintf(names[2 * i + 1], sizeof names[0], "l%zu_longer", i);
		d[2 * i] = (struct def){ names[2 * i], start, 0x10, LP_SYM_GLOBAL };
		d[2 * i + 1] = (struct def){ names[2 * i + 1], start, 0x10, LP_SYM_LOCAL };
	}
	for (size_t i = 0; i < 2 * N; i++)     /* sort by start for the in-order table */
		perm[i] = i;
	for (size_t i = 1; i < 2 * N; i++)
		for (size_t j = i; j > 0 && d[perm[j]].start < d[perm[j - 1]].start; j--) {
			size_t tmp = perm[j];
			perm[j] = perm[j - 1];
			perm[j - 1] = tmp;
		}
	struct lp_symtab *in_order = build(d, 2 * N, perm);
	shuffle(perm, 2 * N, &seed);
	struct lp_symtab *shuffled = build(d, 2 * N, perm);

	TEST_EQ(lp_symtab_count(in_order), N);
	TEST_EQ(lp_symtab_count(shuffled), N);
	size_t bad = 0;
	for (size_t i = 0; i < N; i++) {
		const struct lp_sym *a = lp_symtab_at(in_order, i), *b = lp_symtab_at(shuffled, i);
		bad += !a || !b || a->start != b->start || a->end != b->end ||
		       strcmp(a->name, b->name) || a->name[0] != 'g' ||
		       (i && a->start <= lp_symtab_at(in_order, i - 1)->start) ||
		       lp_symtab_find(shuffled, b->start) != b;
	}
	TEST_EQ(bad, 0);
	lp_symtab_free(in_order);
	lp_symtab_free(shuffled);
}

/* lp_symtab_add_borrowed keeps the caller's pointer; lp_symtab_reserve
 * makes room once (here more than is used, and past the huge-page size). */
static void test_borrowed_and_reserve(void)
{
	enum { N = 40000 };
	static char names[N][16];
	struct lp_symtab *t = lp_symtab_new();

	TEST_EQ(lp_symtab_reserve(t, 3 * N), 0);
	TEST_EQ(lp_symtab_reserve(t, 10), 0);           /* already room */
	for (size_t i = 0; i < N; i++) {
		snprintf(names[i], sizeof names[i], "b%zu", i);
		TEST_EQ(lp_symtab_add_borrowed(t, names[i], 0x10000 + i * 0x20, 0,
					       LP_SYM_GLOBAL, (uint16_t)(i / 1000)), 0);
	}
	TEST_EQ(lp_symtab_add(t, "copied", 0x10000 + N * 0x20, 0x20), 0);
	TEST_EQ(lp_symtab_finish(t), 0);
	TEST_EQ(lp_symtab_count(t), N + 1);
	size_t bad = 0;
	for (size_t i = 0; i < N; i++) {
		const struct lp_sym *s = lp_symtab_find(t, 0x10000 + i * 0x20 + 0x1f);
		bad += !s || s->name != names[i] || lp_symtab_tag(t, s) != i / 1000;
	}
	TEST_EQ(bad, 0);
	TEST_STREQ(name_at(t, 0x10000 + N * 0x20), "copied");
	TEST_TRUE(lp_symtab_reserve(t, (size_t)1 << 40) == -ENOMEM);
	lp_symtab_free(t);
}

/* Names longer than an arena chunk get a chunk of their own; the names
 * around them are intact. */
static void test_huge_name(void)
{
	enum { LEN = 3 << 20 };
	char *big = malloc(LEN + 1);
	struct lp_symtab *t = lp_symtab_new();

	TEST_TRUE(big != NULL && t != NULL);
	memset(big, 'x', LEN);
	big[LEN] = '\0';
	TEST_EQ(lp_symtab_add(t, "before", 0x1000, 0x10), 0);
	TEST_EQ(lp_symtab_add(t, big, 0x2000, 0x10), 0);
	TEST_EQ(lp_symtab_add(t, "after", 0x3000, 0x10), 0);
	memset(big, 'y', LEN);          /* the table has its own copy */
	TEST_EQ(lp_symtab_finish(t), 0);
	TEST_STREQ(name_at(t, 0x1000), "before");
	TEST_STREQ(name_at(t, 0x3000), "after");
	const char *s = name_at(t, 0x2000);
	TEST_TRUE(s && strlen(s) == LEN && s[0] == 'x' && s[LEN - 1] == 'x');
	lp_symtab_free(t);
	free(big);
}

/* Late symbols (PLT stubs) and holes: they sit inside a sizeless symbol
 * without ending it; a lookup in a hole finds nothing. */
static void test_late_and_holes(void)
{
	struct lp_symtab *t = lp_symtab_new();
	const struct lp_sym *s;

	TEST_EQ(lp_symtab_add(t, "_init", 0x1000, 0), 0);
	TEST_EQ(lp_symtab_add(t, "_start", 0x1100, 0x20), 0);
	TEST_EQ(lp_symtab_add_late(t, "puts@plt", 0x1030, 0x10), 0);
	TEST_EQ(lp_symtab_add_late(t, NULL, 0x1040, 0x20), 0);
	TEST_EQ(lp_symtab_finish(t), 0);
	s = lp_symtab_find(t, 0x1020);
	TEST_TRUE(s && !strcmp(s->name, "_init") && s->end == 0x1100);
	s = lp_symtab_find(t, 0x103f);
	TEST_TRUE(s && !strcmp(s->name, "puts@plt") && s->start == 0x1030);
	TEST_TRUE(lp_symtab_find(t, 0x1040) == NULL);
	TEST_TRUE(lp_symtab_find(t, 0x105f) == NULL);
	s = lp_symtab_find(t, 0x1060);
	TEST_TRUE(s && !strcmp(s->name, "_init"));
	s = lp_symtab_find(t, 0x1100);
	TEST_TRUE(s && !strcmp(s->name, "_start"));
	TEST_EQ(lp_symtab_count(t), 4);
	lp_symtab_free(t);
}

/* Late symbols and holes mixed with ordinary ones, added in start order
 * (the linear finish), ordinary ones first as dso.c adds them (the radix
 * sort) and shuffled: the same table each time.  A late symbol that wins
 * an alias takes its start out of the sizeless ends (g runs on to k); a
 * sizeless late one stays empty; k ends at qq, not at the late stubs
 * before it; of equal aliases the first added is kept. */
static void test_late_any_order(void)
{
	struct ldef { const char *name; uint64_t start, size; unsigned prio; bool late; };
	static const struct ldef d[] = {        /* in start order */
		{ "_init", 0x1000, 0, LP_SYM_GLOBAL, false },
		{ "a@plt", 0x1010, 0x10, 0, true },
		{ "b@plt", 0x1020, 0x10, 0, true },
		{ NULL, 0x1030, 0x10, 0, true },
		{ "f", 0x1100, 0x20, LP_SYM_GLOBAL, false },
		{ "g", 0x1200, 0, LP_SYM_GLOBAL, false },
		{ "h", 0x1300, 0x10, LP_SYM_LOCAL, false },
		{ "h@plt", 0x1300, 0x10, 0, true },
		{ "k", 0x1400, 0, LP_SYM_GLOBAL, false },
		{ "z@plt", 0x1500, 0x10, 0, true },
		{ "empty@plt", 0x1600, 0, 0, true },
		{ "qq", 0x1700, 0x10, LP_SYM_GLOBAL, false },
		{ "rr", 0x1700, 0x10, 0, true },
	};
	static const struct { uint64_t addr; const char *name; } want[] = {
		{ 0x1000, "_init" }, { 0x1015, "a@plt" }, { 0x102f, "b@plt" },
		{ 0x1030, NULL }, { 0x103f, NULL }, { 0x1040, "_init" },
		{ 0x10ff, "_init" }, { 0x1100, "f" }, { 0x1120, NULL },
		{ 0x1200, "g" }, { 0x1300, "h@plt" }, { 0x1350, "g" },
		{ 0x13ff, "g" }, { 0x1400, "k" }, { 0x1505, "z@plt" },
		{ 0x1510, "k" }, { 0x1600, "k" }, { 0x1700, "qq" },
		{ 0x16ff, "k" }, { 0x1710, NULL },
	};
	enum { N = sizeof d / sizeof d[0] };
	size_t orders[3][N], qq = 11, rr = 12, k = 0;
	unsigned seed = 7;

	for (size_t i = 0; i < N; i++)
		orders[0][i] = i;
	for (size_t pass = 0; pass < 2; pass++)         /* ordinary, then late */
		for (size_t i = 0; i < N; i++)
			if (d[i].late == (pass == 1))
				orders[1][k++] = i;
	shuffle(orders[2], N, &seed);
	for (size_t i = 0, *q = NULL; i < N; i++) {     /* qq before rr */
		if (orders[2][i] == qq || orders[2][i] == rr) {
			if (q) {
				*q = qq;
				orders[2][i] = rr;
			}
			q = &orders[2][i];
		}
	}
	for (size_t o = 0; o < 3; o++) {
		struct lp_symtab *t = lp_symtab_new();

		for (size_t i = 0; i < N; i++) {
			const struct ldef *x = &d[orders[o][i]];
			TEST_EQ(x->late ? lp_symtab_add_late(t, x->name, x->start, x->size)
					: lp_symtab_add_ex(t, x->name, x->start, x->size, x->prio), 0);
		}
		TEST_EQ(lp_symtab_finish(t), 0);
		TEST_EQ(lp_symtab_count(t), 11);
		for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
			const char *n = name_at(t, want[i].addr);
			if (want[i].name)
				TEST_STREQ(n, want[i].name);
			else
				TEST_TRUE(n == NULL);
		}
		lp_symtab_free(t);
	}
}

/* A table read back from its records (lp_symtab_import, as the caches
 * do) answers every lookup as the table it was written from, without
 * copying them: overlaps, a label in a function, late stubs, a hole.
 * Each symbol found is one pointer however it is found; the imported
 * table takes no more symbols. */
static void test_imported_answers_alike(void)
{
	struct lp_symtab *t = lp_symtab_new();
	TEST_EQ(lp_symtab_add(t, "outer", 0x1000, 0x1000), 0);
	TEST_EQ(lp_symtab_add(t, "inner", 0x1100, 0x100), 0);
	TEST_EQ(lp_symtab_add(t, "label", 0x1140, 0), 0);
	TEST_EQ(lp_symtab_add(t, "straddle", 0x1f00, 0x200), 0);
	TEST_EQ(lp_symtab_add(t, "sizeless", 0x2400, 0), 0);
	TEST_EQ(lp_symtab_add_late(t, "x@plt", 0x2480, 0x10), 0);
	TEST_EQ(lp_symtab_add_late(t, NULL, 0x2490, 0x20), 0);
	TEST_EQ(lp_symtab_add_tagged(t, "tagged", 0x3000, 0x10, 0, 1), 0);
	TEST_EQ(lp_symtab_finish(t), 0);

	size_t n = lp_symtab_count(t), len = 0;
	struct lp_symtab_rec *recs = calloc(n, sizeof *recs);
	char *names = calloc(1, 4096);
	TEST_TRUE(recs && names);
	for (size_t i = 0; i < n; i++) {
		TEST_TRUE(lp_symtab_rec(t, i, &recs[i]));
		recs[i].name = (uint32_t)len;
		const char *nm = lp_symtab_at(t, i)->name;
		memcpy(names + len, nm, strlen(nm) + 1);
		len += strlen(nm) + 1;
	}
	struct lp_symtab *m = lp_symtab_import(recs, n, names, len, 2, NULL);
	TEST_TRUE(m != NULL);
	TEST_EQ(lp_symtab_count(m), n);
	size_t differ = 0;
	for (uint64_t a = 0xf00; a < 0x3100; a++) {
		for (int sized = 0; sized < 2; sized++) {
			const struct lp_sym *x = sized ? lp_symtab_find_sized(t, a) : lp_symtab_find(t, a);
			const struct lp_sym *y = sized ? lp_symtab_find_sized(m, a) : lp_symtab_find(m, a);
			const struct lp_sym *y2 = sized ? lp_symtab_find_sized(m, a) : lp_symtab_find(m, a);
			differ += !x != !y || y != y2 ||
				  (x && (strcmp(x->name, y->name) || x->start != y->start || x->end != y->end ||
					 lp_symtab_tag(t, x) != lp_symtab_tag(m, y)));
		}
	}
	TEST_EQ(differ, 0);
	for (size_t i = 0; i < n; i++) {
		struct lp_symtab_rec r;
		TEST_TRUE(lp_symtab_rec(m, i, &r));
		TEST_TRUE(r.start == recs[i].start && r.end == recs[i].end && r.flags == recs[i].flags);
	}
	TEST_TRUE(lp_symtab_at(m, 0) == lp_symtab_find(m, 0x1000));
	TEST_STREQ(lp_symtab_find(m, 0x1145)->name, "label");
	TEST_STREQ(lp_symtab_find_sized(m, 0x1145)->name, "inner");
	TEST_TRUE(lp_symtab_find(m, 0x2495) == NULL);          /* the hole */
	TEST_EQ(lp_symtab_add(m, "more", 0x4000, 0x10), -EINVAL);
	TEST_EQ(lp_symtab_finish(m), 0);
	TEST_EQ(lp_symtab_count(m), n);
	lp_symtab_free(m);
	lp_symtab_free(t);
	free(recs);
	free(names);
}

/* The reference answers, from the entries alone: of the entries holding
 * addr, the last (the greatest start), nothing when that is a hole;
 * sized, a label found gives way to the last sized (not late) entry
 * before it holding addr.  x: a table's entries as records. */
static int64_t ref_find(const struct lp_symtab_rec *x, size_t n, uint64_t addr, bool sized)
{
	int64_t e = -1;
	for (size_t i = 0; i < n; i++)
		if (x[i].start <= addr && addr < x[i].end)
			e = (int64_t)i;
	if (e < 0 || (x[e].flags & LP_SYMREC_HOLE))
		return -1;
	if (!sized || (x[e].flags & (LP_SYMREC_SIZED | LP_SYMREC_LATE)))
		return e;
	for (int64_t j = e - 1; j >= 0; j--)
		if ((x[j].flags & (LP_SYMREC_SIZED | LP_SYMREC_LATE)) == LP_SYMREC_SIZED &&
		    x[j].start <= addr && addr < x[j].end)
			return j;
	return e;
}

/* Lookups remember the ranges they answered (ranges.h) and answer from
 * them next time: every address of random tables (nested functions,
 * labels, late stubs, holes), looked up in random order, both kinds of
 * lookup mixed, each several times, in the table and in its imported
 * copy, answers as the entries say. */
static void test_ranges_remembered(void)
{
	unsigned seed = 7;
	enum { SPAN = 0x3000, BASE = 0x10000 };
	static size_t order[3 * SPAN];
	size_t wrong = 0;

	for (int round = 0; round < 40; round++) {
		struct lp_symtab *t = lp_symtab_new();
		int nsyms = 1 + rand_r(&seed) % 60;
		for (int i = 0; i < nsyms; i++) {
			uint64_t start = BASE + (uint64_t)(rand_r(&seed) % SPAN);
			uint64_t size = rand_r(&seed) % 4 ? (uint64_t)(rand_r(&seed) % 0x400) : 0;
			char name[16];
			snprintf(name, sizeof name, "s%d", i);
			int k = rand_r(&seed) % 10;
			TEST_EQ(k == 0 ? lp_symtab_add_late(t, name, start, size)
				: k == 1 ? lp_symtab_add_late(t, NULL, start, size + 1)
				: lp_symtab_add(t, name, start, size), 0);
		}
		TEST_EQ(lp_symtab_finish(t), 0);
		size_t n = lp_symtab_count(t), len = 0;
		struct lp_symtab_rec *recs = calloc(n + 1, sizeof *recs);
		char *names = calloc(n + 1, 16);
		TEST_TRUE(recs && names);
		for (size_t i = 0; i < n; i++) {
			TEST_TRUE(lp_symtab_rec(t, i, &recs[i]));
			const char *nm = lp_symtab_at(t, i)->name;
			recs[i].name = (uint32_t)len;
			memcpy(names + len, nm, strlen(nm) + 1);
			len += strlen(nm) + 1;
		}
		struct lp_symtab *m = lp_symtab_import(recs, n, names, len, 2, NULL);
		TEST_TRUE(m != NULL);
		/* every address of the span and around it, three times over */
		shuffle(order, 3 * SPAN, &seed);
		for (size_t i = 0; i < 3 * SPAN; i++) {
			uint64_t a = BASE - 0x100 + order[i] % (SPAN + 0x600);
			bool sized = (order[i] / SPAN + (size_t)round) % 2;
			int64_t want = ref_find(recs, n, a, sized);
			for (int which = 0; which < 2; which++) {
				const struct lp_symtab *q = which ? m : t;
				const struct lp_sym *got = sized ? lp_symtab_find_sized(q, a)
								 : lp_symtab_find(q, a);
				wrong += want < 0 ? got != NULL : got != lp_symtab_at(q, (size_t)want);
			}
		}
		lp_symtab_free(m);
		lp_symtab_free(t);
		free(recs);
		free(names);
	}
	TEST_EQ(wrong, 0);
}

/* A table changed and finished again forgets the ranges it answered: a
 * symbol added inside a range answered before is found. */
static void test_ranges_forgotten(void)
{
	struct lp_symtab *t = lp_symtab_new();
	TEST_EQ(lp_symtab_add(t, "outer", 0x1000, 0x1000), 0);
	TEST_EQ(lp_symtab_finish(t), 0);
	TEST_STREQ(lp_symtab_find(t, 0x1800)->name, "outer");
	TEST_STREQ(lp_symtab_find(t, 0x1810)->name, "outer");
	TEST_EQ(lp_symtab_add(t, "inner", 0x1800, 0x100), 0);
	TEST_TRUE(lp_symtab_find(t, 0x1810) == NULL);   /* unfinished */
	TEST_EQ(lp_symtab_finish(t), 0);
	TEST_STREQ(lp_symtab_find(t, 0x1810)->name, "inner");
	TEST_STREQ(lp_symtab_find(t, 0x1900)->name, "outer");
	lp_symtab_free(t);
}

TEST_MAIN("symtab",
	TEST_CASE(test_random_order),
	TEST_CASE(test_sizeless_ends),
	TEST_CASE(test_sizeless_gap_is_not_c),
	TEST_CASE(test_aliases_deterministic),
	TEST_CASE(test_sized_beats_prio),
	TEST_CASE(test_overlapping),
	TEST_CASE(test_label_in_function),
	TEST_CASE(test_out_of_range),
	TEST_CASE(test_empty),
	TEST_CASE(test_refinish),
	TEST_CASE(test_tag_boundary),
	TEST_CASE(test_large_and_names),
	TEST_CASE(test_wide_starts),
	TEST_CASE(test_borrowed_and_reserve),
	TEST_CASE(test_huge_name),
	TEST_CASE(test_late_and_holes),
	TEST_CASE(test_late_any_order),
	TEST_CASE(test_imported_answers_alike),
	TEST_CASE(test_ranges_remembered),
	TEST_CASE(test_ranges_forgotten))
