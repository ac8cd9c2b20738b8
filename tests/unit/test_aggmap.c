/*
 * test_aggmap.c - the one-liners' maps (core/agg/aggmap.c): keys of
 * integers and strings and the shape a map keeps (its number of parts and
 * their kinds), every op's arithmetic (count, sum with wrap-around, min,
 * max, avg and stats dividing toward zero, hist and lhist buckets), the
 * linear buckets and their labels (hist.c), the one printer (bpftrace's
 * map format: sorted by value then key, hist and lhist bars, stats, the
 * blank lines), clearing, one map fed by two sample readers (agg.c) and
 * by lp_aggmap_add at once, and many keys.
 */
#include <errno.h>
#include <linux/perf_event.h>

#include "luaprof/agg.h"
#include "luaprof/aggmap.h"
#include "luaprof/buf.h"
#include "luaprof/record.h"
#include "luaprof/trace.h"
#include "test.h"

static struct lp_aggkey I(int64_t n)
{
	return (struct lp_aggkey){ .num = n };
}

static struct lp_aggkey S(const char *s)
{
	return (struct lp_aggkey){ .str = s, .len = strlen(s) };
}

/* Adds v under the keys (nr of them); the result of lp_aggmap_add. */
static int add(struct lp_aggmap *m, int64_t v, unsigned nr, struct lp_aggkey k0, struct lp_aggkey k1)
{
	struct lp_aggkey keys[2] = { k0, k1 };
	unsigned bad = 99;
	return lp_aggmap_add(m, keys, nr, v, &bad);
}

/* m's text as "name" prints it, in a static buffer. */
static const char *text(const struct lp_aggmap *m, const char *name)
{
	static char out[8192];
	struct lp_buf b = { 0 };
	TEST_EQ(lp_aggmap_text(m, name, &b), 0);
	snprintf(out, sizeof out, "%s", b.p ? b.p : "");
	lp_buf_free(&b);
	return out;
}

/* One bar line of a histogram: label, count, a bar of w '@' of 52. */
static const char *row(const char *label, int n, int w)
{
	static char lines[32][128];
	static int next;
	char bar[53];
	memset(bar, '@', (size_t)w);
	memset(bar + w, ' ', (size_t)(52 - w));
	bar[52] = '\0';
	char *out = lines[next++ % 32];
	snprintf(out, 128, "%-16s%8d |%s|\n", label, n, bar);
	return out;
}

static void shape_and_keys(void)
{
	struct lp_aggmap *m = lp_aggmap_new(LP_AGG_COUNT, NULL);
	TEST_EQ(lp_aggmap_nr_keys(m), -1);
	TEST_EQ(add(m, 0, 2, S("sh"), I(7)), 0);
	TEST_EQ(lp_aggmap_nr_keys(m), 2);
	TEST_TRUE(lp_aggmap_key_is_str(m, 0) && !lp_aggmap_key_is_str(m, 1));
	TEST_EQ(add(m, 0, 2, S("sh"), I(7)), 0);
	TEST_EQ(add(m, 0, 2, S("ls"), I(-7)), 0);
	/* another number of parts, another kind: refused, nothing added */
	unsigned bad = 99;
	struct lp_aggkey one[1] = { S("sh") }, swapped[2] = { I(1), S("x") }, same[2] = { S("a"), I(1) };
	TEST_EQ(lp_aggmap_add(m, one, 1, 0, &bad), -ERANGE);
	TEST_EQ(bad, 2);
	TEST_EQ(lp_aggmap_add(m, swapped, 2, 0, &bad), -EINVAL);
	TEST_EQ(bad, 0);
	bool is_str[2] = { true, true };
	TEST_EQ(lp_aggmap_shape(m, 2, is_str, &bad), -EINVAL);
	TEST_EQ(bad, 1);
	TEST_EQ(lp_aggmap_shape(m, 2, (bool[]){ true, false }, &bad), 0);
	struct lp_aggkey many[LP_AGGMAP_MAX_KEYS + 1];
	TEST_EQ(lp_aggmap_add(m, many, LP_AGGMAP_MAX_KEYS + 1, 0, &bad), -E2BIG);
	TEST_EQ(lp_aggmap_count(m), 2);
	/* a string ends at its first NUL, as bpftrace's */
	struct lp_aggkey nul = { .str = "sh\0junk", .len = 7 };
	same[0] = nul;
	same[1] = I(7);
	TEST_EQ(lp_aggmap_add(m, same, 2, 0, &bad), 0);
	TEST_EQ(lp_aggmap_count(m), 2);
	const char *s;
	int64_t n;
	TEST_TRUE(lp_aggmap_key(m, 0, 0, &s, &n));
	TEST_STREQ(s, "sh");
	TEST_TRUE(!lp_aggmap_key(m, 0, 1, &s, &n));
	TEST_EQ(n, 7);
	TEST_EQ(lp_aggmap_value(m, 0), 3);
	TEST_EQ(lp_aggmap_value(m, 1), 1);
	/* cleared: no entries, the same shape */
	uint64_t gen = lp_aggmap_gen(m);
	lp_aggmap_clear(m);
	TEST_TRUE(lp_aggmap_gen(m) != gen);
	TEST_EQ(lp_aggmap_count(m), 0);
	TEST_EQ(lp_aggmap_nr_keys(m), 2);
	TEST_EQ(add(m, 0, 2, S("sh"), I(7)), 0);
	TEST_EQ(lp_aggmap_value(m, 0), 1);
	lp_aggmap_free(m);
	/* no key: one entry */
	m = lp_aggmap_new(LP_AGG_COUNT, NULL);
	TEST_EQ(lp_aggmap_add(m, NULL, 0, 0, NULL), 0);
	TEST_EQ(lp_aggmap_add(m, NULL, 0, 0, NULL), 0);
	TEST_EQ(lp_aggmap_count(m), 1);
	TEST_STREQ(text(m, "@"), "@: 2\n");
	lp_aggmap_free(m);
	/* malformed */
	TEST_TRUE(!lp_aggmap_new(LP_AGG_NR_OPS, NULL) && errno == EINVAL);
	TEST_TRUE(!lp_aggmap_new(LP_AGG_LHIST, NULL) && errno == EINVAL);
}

static void arithmetic(void)
{
	static const int64_t vals[] = { -7, -8, 3, 4 };
	static const struct { unsigned op; int64_t want; } cases[] = {
		{ LP_AGG_COUNT, 4 }, { LP_AGG_SUM, -8 }, { LP_AGG_MIN, -8 }, { LP_AGG_MAX, 4 },
		{ LP_AGG_AVG, -2 }, { LP_AGG_STATS, -2 }, { LP_AGG_HIST, 4 },
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		struct lp_aggmap *m = lp_aggmap_new(cases[c].op, NULL);
		for (size_t i = 0; i < 4; i++)
			TEST_EQ(lp_aggmap_add(m, NULL, 0, vals[i], NULL), 0);
		TEST_EQ(lp_aggmap_value(m, 0), cases[c].want);
		uint64_t count;
		int64_t sum;
		lp_aggmap_stats(m, 0, &count, &sum);
		if (cases[c].op == LP_AGG_AVG || cases[c].op == LP_AGG_STATS) {
			TEST_EQ(count, 4);
			TEST_EQ(sum, -8);
		}
		lp_aggmap_free(m);
	}
	/* -7 / 2 is -3 (toward zero, as C and bpftrace divide) */
	struct lp_aggmap *m = lp_aggmap_new(LP_AGG_AVG, NULL);
	lp_aggmap_add(m, NULL, 0, -3, NULL);
	lp_aggmap_add(m, NULL, 0, -4, NULL);
	TEST_EQ(lp_aggmap_value(m, 0), -3);
	lp_aggmap_free(m);
	/* sums wrap, as Lua's integers */
	m = lp_aggmap_new(LP_AGG_SUM, NULL);
	lp_aggmap_add(m, NULL, 0, INT64_MAX, NULL);
	lp_aggmap_add(m, NULL, 0, 2, NULL);
	TEST_EQ(lp_aggmap_value(m, 0), INT64_MIN + 1);
	lp_aggmap_free(m);
	/* min and max take the first value as it is */
	m = lp_aggmap_new(LP_AGG_MIN, NULL);
	lp_aggmap_add(m, NULL, 0, 5, NULL);
	TEST_EQ(lp_aggmap_value(m, 0), 5);
	lp_aggmap_free(m);
}

static void linear_buckets(void)
{
	struct lp_lhist l;
	TEST_EQ(lp_lhist_init(&l, 0, 100, 10, 1000), 0);
	TEST_EQ(l.nr, 12);
	TEST_EQ(lp_lhist_bucket(&l, -1), 0);
	TEST_EQ(lp_lhist_bucket(&l, INT64_MIN), 0);
	TEST_EQ(lp_lhist_bucket(&l, 0), 1);
	TEST_EQ(lp_lhist_bucket(&l, 9), 1);
	TEST_EQ(lp_lhist_bucket(&l, 10), 2);
	TEST_EQ(lp_lhist_bucket(&l, 99), 10);
	TEST_EQ(lp_lhist_bucket(&l, 100), 11);
	TEST_EQ(lp_lhist_bucket(&l, INT64_MAX), 11);
	char lab[96];
	lp_lhist_label(0, lab, sizeof lab, &l);
	TEST_STREQ(lab, "(..., 0)");
	lp_lhist_label(3, lab, sizeof lab, &l);
	TEST_STREQ(lab, "[20, 30)");
	lp_lhist_label(11, lab, sizeof lab, &l);
	TEST_STREQ(lab, "[100, ...)");
	/* a step that does not divide the range: the last bucket cut at max */
	TEST_EQ(lp_lhist_init(&l, 0, 10, 3, 1000), 0);
	TEST_EQ(l.nr, 6);
	TEST_EQ(lp_lhist_bucket(&l, 9), 4);
	lp_lhist_label(4, lab, sizeof lab, &l);
	TEST_STREQ(lab, "[9, 10)");
	/* bpftrace's K and M, and a sign */
	TEST_EQ(lp_lhist_init(&l, -2048, 3 << 20, 1 << 20, 1000), 0);
	lp_lhist_label(0, lab, sizeof lab, &l);
	TEST_STREQ(lab, "(..., -2K)");
	lp_lhist_label(1, lab, sizeof lab, &l);
	TEST_STREQ(lab, "[-2K, 1022K)");
	TEST_EQ(lp_lhist_bucket(&l, (1 << 20) - 2048), 2);
	lp_lhist_label(l.nr - 1, lab, sizeof lab, &l);
	TEST_STREQ(lab, "[3M, ...)");
	/* the widest range */
	TEST_EQ(lp_lhist_init(&l, INT64_MIN, INT64_MAX, INT64_MAX, 1000), 0);
	TEST_EQ(l.nr, 5);
	TEST_EQ(lp_lhist_bucket(&l, -1), 2);
	lp_lhist_label(1, lab, sizeof lab, &l);
	TEST_STREQ(lab, "[-8E, -1)");
	/* refused */
	TEST_EQ(lp_lhist_init(&l, 10, 0, 1, 1000), -EINVAL);
	TEST_EQ(lp_lhist_init(&l, 0, 10, 0, 1000), -EINVAL);
	TEST_EQ(lp_lhist_init(&l, 0, 1001, 1, 1000), -E2BIG);
	TEST_EQ(lp_lhist_init(&l, 0, 1000, 1, 1000), 0);
}

static void printing(void)
{
	/* by value, then by the keys' text: "3069" before "68" */
	struct lp_aggmap *m = lp_aggmap_new(LP_AGG_COUNT, NULL);
	add(m, 0, 2, I(0), I(68));
	add(m, 0, 2, I(0), I(3069));
	add(m, 0, 2, I(1), I(5));
	add(m, 0, 2, I(1), I(5));
	add(m, 0, 2, I(-1), I(5));
	TEST_STREQ(text(m, "@"), "@[-1, 5]: 1\n@[0, 3069]: 1\n@[0, 68]: 1\n@[1, 5]: 2\n");
	lp_aggmap_free(m);
	/* strings as they are, a shorter key first, an empty one */
	m = lp_aggmap_new(LP_AGG_SUM, NULL);
	add(m, 5, 2, S("ab"), S("x"));
	add(m, 5, 2, S("abc"), S(""));
	add(m, -5, 2, S(""), S("z"));
	TEST_STREQ(text(m, "@bytes"), "@bytes[, z]: -5\n@bytes[ab, x]: 5\n@bytes[abc, ]: 5\n");
	lp_aggmap_free(m);
	/* a stack as a key: its lines as they are, as bpftrace prints them */
	m = lp_aggmap_new(LP_AGG_COUNT, NULL);
	add(m, 0, 2, S("\n    f+1\n    main+2\n"), S("a"));
	TEST_STREQ(text(m, "@"), "@[\n    f+1\n    main+2\n, a]: 1\n");
	lp_aggmap_free(m);
	/* avg and stats: by the average; a blank line after the map */
	m = lp_aggmap_new(LP_AGG_STATS, NULL);
	add(m, 10, 1, I(1), I(0));
	for (int i = 0; i < 3; i++)
		add(m, 4, 1, I(2), I(0));
	TEST_STREQ(text(m, "@s"), "@s[2]: count 3, average 4, total 12\n@s[1]: count 1, average 10, total 10\n\n");
	lp_aggmap_free(m);
	m = lp_aggmap_new(LP_AGG_AVG, NULL);
	add(m, -7, 0, I(0), I(0));
	add(m, -8, 0, I(0), I(0));
	TEST_STREQ(text(m, "@a"), "@a: -7\n\n");
	lp_aggmap_free(m);
	/* hist: sorted by the number of values; bars scaled to the largest */
	m = lp_aggmap_new(LP_AGG_HIST, NULL);
	add(m, 5, 1, S("b"), I(0));
	add(m, 1000, 1, S("a"), I(0));
	add(m, 1000, 1, S("a"), I(0));
	add(m, -1, 1, S("a"), I(0));
	char want[4096];
	snprintf(want, sizeof want, "@h[b]: \n%s\n@h[a]: \n%s%s%s%s%s%s%s%s%s%s%s%s\n", row("[4, 8)", 1, 52),
		 row("(..., 0)", 1, 26), row("[0]", 0, 0), row("[1]", 0, 0), row("[2, 4)", 0, 0), row("[4, 8)", 0, 0),
		 row("[8, 16)", 0, 0), row("[16, 32)", 0, 0), row("[32, 64)", 0, 0), row("[64, 128)", 0, 0),
		 row("[128, 256)", 0, 0), row("[256, 512)", 0, 0), row("[512, 1K)", 2, 52));
	TEST_STREQ(text(m, "@h"), want);
	size_t nr;
	TEST_TRUE(lp_aggmap_buckets(m, 0, &nr) != NULL);
	TEST_EQ(nr, LP_AGG_BUCKETS);
	lp_aggmap_free(m);
	/* lhist: from the first bucket that holds a value to the last */
	struct lp_lhist l;
	lp_lhist_init(&l, 0, 5120, 1024, 1000);
	m = lp_aggmap_new(LP_AGG_LHIST, &l);
	TEST_EQ(lp_aggmap_lhist(m)->step, 1024);
	add(m, 2000, 0, I(0), I(0));
	add(m, 4096, 0, I(0), I(0));
	add(m, 4100, 0, I(0), I(0));
	snprintf(want, sizeof want, "@l: \n%s%s%s%s\n", row("[1K, 2K)", 1, 26), row("[2K, 3K)", 0, 0),
		 row("[3K, 4K)", 0, 0), row("[4K, 5K)", 2, 52));
	TEST_STREQ(text(m, "@l"), want);
	lp_aggmap_free(m);
	/* an empty map prints nothing */
	m = lp_aggmap_new(LP_AGG_AVG, NULL);
	TEST_STREQ(text(m, "@"), "");
	lp_aggmap_free(m);
}

static const char sched_switch[] =
	"name: sched_switch\n"
	"ID: 372\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"x\"\n";

static struct lp_agg_operand field(const char *name)
{
	struct lp_agg_operand o = { .src = LP_AGG_FIELD };
	snprintf(o.field, sizeof o.field, "%s", name);
	return o;
}

/* One map fed by two readers of samples (two events' clauses) and by
 * lp_aggmap_add (a clause run in Lua): one entry per key; a reader's
 * kept entry numbers are forgotten when the map is cleared; a reader of
 * another shape does not bind. */
static void one_map_many_feeders(void)
{
	struct lp_tp_format *f = NULL;
	TEST_EQ(lp_tp_format_parse(sched_switch, strlen(sched_switch), "sched", &f), 0);
	struct lp_aggmap *m = lp_aggmap_new(LP_AGG_SUM, NULL);
	struct lp_agg_spec spec = { .op = LP_AGG_SUM, .nr_keys = 1, .keys = { field("next_pid") },
				    .value = field("prev_state") };
	struct lp_agg *a = lp_agg_new(&spec, m), *b = lp_agg_new(&spec, m);
	TEST_TRUE(a && b && lp_agg_map(a) == m);
	spec.op = LP_AGG_COUNT;
	TEST_TRUE(!lp_agg_new(&spec, m) && errno == EINVAL);      /* another op */
	const uint64_t st = PERF_SAMPLE_TID | PERF_SAMPLE_RAW;
	TEST_EQ(lp_agg_bind(a, f, st, NULL), 0);
	TEST_EQ(lp_agg_bind(b, f, st, NULL), 0);
	uint8_t raw[64] = { 0 };
	struct lp_sample s = { .pid = 1, .tid = 1, .raw = raw, .raw_size = sizeof raw };
	int64_t state = 5;
	int32_t next = 42;
	memcpy(raw + 32, &state, 8);
	memcpy(raw + 56, &next, 4);
	TEST_EQ(lp_agg_add(a, &s, NULL), 0);
	TEST_EQ(lp_agg_add(b, &s, NULL), 0);
	TEST_EQ(add(m, 100, 1, I(42), I(0)), 0);
	TEST_EQ(lp_aggmap_count(m), 1);
	TEST_EQ(lp_aggmap_value(m, 0), 110);
	/* cleared: a's previous key is no longer entry 0 of anything */
	lp_aggmap_clear(m);
	TEST_EQ(add(m, 1, 1, I(7), I(0)), 0);
	TEST_EQ(lp_agg_add(a, &s, NULL), 0);
	TEST_EQ(lp_aggmap_count(m), 2);
	TEST_STREQ(text(m, "@"), "@[7]: 1\n@[42]: 5\n");
	/* a string key where the map has an integer: no bind */
	spec = (struct lp_agg_spec){ .op = LP_AGG_SUM, .nr_keys = 1, .keys = { field("prev_comm") },
				     .value = field("prev_state") };
	struct lp_agg *c = lp_agg_new(&spec, m);
	const char *what = NULL;
	TEST_EQ(lp_agg_bind(c, f, st, &what), -EINVAL);
	TEST_STREQ(what, "prev_comm");
	spec.nr_keys = 0;
	struct lp_agg *d = lp_agg_new(&spec, m);
	TEST_EQ(lp_agg_bind(d, f, st, &what), -EINVAL);
	lp_agg_free(a);
	lp_agg_free(b);
	lp_agg_free(c);
	lp_agg_free(d);
	TEST_EQ(lp_aggmap_count(m), 2);         /* the caller's map stays */
	lp_aggmap_free(m);
	lp_tp_format_free(f);
}

static void many_entries(void)
{
	struct lp_lhist l;
	lp_lhist_init(&l, 0, 1000, 1, 1000);
	struct lp_aggmap *m = lp_aggmap_new(LP_AGG_LHIST, &l);
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < 5000; i++)
			TEST_EQ(add(m, i, 2, I(i), S(i % 2 ? "odd" : "even")), 0);
	TEST_EQ(lp_aggmap_count(m), 5000);
	for (size_t i = 0; i < 5000; i += 333) {
		size_t nr;
		const uint64_t *b = lp_aggmap_buckets(m, i, &nr);
		TEST_EQ(nr, 1002);
		TEST_EQ(b[lp_lhist_bucket(&l, (int64_t)i)], 2);
		TEST_EQ(lp_aggmap_value(m, i), 2);
	}
	lp_aggmap_free(m);
}

TEST_MAIN("aggmap", TEST_CASE(shape_and_keys), TEST_CASE(arithmetic), TEST_CASE(linear_buckets),
	  TEST_CASE(printing), TEST_CASE(one_map_many_feeders), TEST_CASE(many_entries))
