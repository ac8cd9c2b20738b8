/*
 * test_agg.c - the aggregation engine: counts by integer and string keys,
 * sums, min/max, bpftrace's histogram buckets, filters, samples whose
 * fields lie outside their data, binding errors, clearing, and many keys
 * (the map grows; the entries keep their numbers and values).
 */
#include <errno.h>
#include <linux/perf_event.h>

#include "luaprof/agg.h"
#include "luaprof/aggmap.h"
#include "luaprof/record.h"
#include "luaprof/trace.h"
#include "test.h"

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
	"\tfield:unsigned long args[2];\toffset:64;\tsize:16;\tsigned:0;\n"
	"\n"
	"print fmt: \"x\"\n";

#define ST (PERF_SAMPLE_TID | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW)

struct rawsw {
	uint8_t b[80];
};

static struct lp_tp_format *format(void)
{
	struct lp_tp_format *f = NULL;
	TEST_EQ(lp_tp_format_parse(sched_switch, strlen(sched_switch), "sched", &f), 0);
	return f;
}

/* A sample of pid/tid/cpu whose raw data says prev_comm, prev_state and
 * next_pid. */
static struct lp_sample sample(struct rawsw *r, int pid, const char *comm, int64_t state, int32_t next)
{
	memset(r, 0, sizeof *r);
	memcpy(r->b + 8, comm, strlen(comm));
	memcpy(r->b + 32, &state, 8);
	memcpy(r->b + 56, &next, 4);
	struct lp_sample s = { .pid = (uint32_t)pid, .tid = (uint32_t)pid + 1, .cpu = 1,
			       .raw = r->b, .raw_size = sizeof r->b };
	return s;
}

static struct lp_agg_operand field(const char *name)
{
	struct lp_agg_operand o = { .src = LP_AGG_FIELD };
	snprintf(o.field, sizeof o.field, "%s", name);
	return o;
}

/* The entries of a's map (aggmap.h). */
static size_t agg_count(const struct lp_agg *a)
{
	return lp_aggmap_count(lp_agg_map(a));
}

static bool agg_key(const struct lp_agg *a, size_t i, unsigned j, const char **str, int64_t *num)
{
	return lp_aggmap_key(lp_agg_map(a), i, j, str, num);
}

static int64_t agg_value(const struct lp_agg *a, size_t i)
{
	return lp_aggmap_value(lp_agg_map(a), i);
}

static const uint64_t *agg_hist(const struct lp_agg *a, size_t i)
{
	size_t nr;
	return lp_aggmap_buckets(lp_agg_map(a), i, &nr);
}

static void agg_clear(struct lp_agg *a)
{
	lp_aggmap_clear(lp_agg_map(a));
}

/* The entry whose keys are (k0, k1) integers, or -1. */
static long find2(const struct lp_agg *a, int64_t k0, int64_t k1)
{
	for (size_t i = 0; i < agg_count(a); i++) {
		int64_t v0, v1;
		const char *s;
		if (!agg_key(a, i, 0, &s, &v0) && !agg_key(a, i, 1, &s, &v1) && v0 == k0 && v1 == k1)
			return (long)i;
	}
	return -1;
}

static void counts_by_two_fields(void)
{
	struct lp_tp_format *f = format();
	struct lp_agg_spec spec = { .op = LP_AGG_COUNT, .nr_keys = 2,
				    .keys = { field("prev_state"), field("next_pid") } };
	struct lp_agg *a = lp_agg_new(&spec, NULL);
	TEST_TRUE(a != NULL);
	TEST_EQ(lp_agg_bind(a, f, ST, NULL), 0);
	TEST_TRUE(!lp_agg_wants(a, LP_AGG_COMM));
	struct rawsw r;
	for (int i = 0; i < 10; i++) {
		struct lp_sample s = sample(&r, 5, "a", i % 2, i < 7 ? 100 : -3);
		TEST_EQ(lp_agg_add(a, &s, NULL), 0);
	}
	TEST_EQ(agg_count(a), 4);
	TEST_EQ(agg_value(a, (size_t)find2(a, 0, 100)), 4);
	TEST_EQ(agg_value(a, (size_t)find2(a, 1, 100)), 3);
	TEST_EQ(agg_value(a, (size_t)find2(a, 1, -3)), 2);
	TEST_EQ(agg_value(a, (size_t)find2(a, 0, -3)), 1);
	TEST_TRUE(agg_hist(a, 0) == NULL);
	agg_clear(a);
	TEST_EQ(agg_count(a), 0);
	lp_agg_free(a);
	lp_tp_format_free(f);
}

static void sums_by_comm_and_string_field(void)
{
	struct lp_tp_format *f = format();
	struct lp_agg_spec spec = { .op = LP_AGG_SUM, .nr_keys = 3,
				    .keys = { { .src = LP_AGG_COMM }, field("prev_comm"), { .src = LP_AGG_PID } },
				    .value = field("prev_state") };
	struct lp_agg *a = lp_agg_new(&spec, NULL);
	TEST_EQ(lp_agg_bind(a, f, ST, NULL), 0);
	TEST_TRUE(lp_agg_wants(a, LP_AGG_COMM));
	struct rawsw r;
	struct lp_sample s = sample(&r, 7, "longer-than-fifteen", 40, 0);     /* char[16]: no NUL */
	const struct lp_agg_names cmd = { .comm = "cmd" }, none = { NULL, NULL };
	TEST_EQ(lp_agg_add(a, &s, &cmd), 0);
	s = sample(&r, 7, "longer-than-fifteen", -2, 0);
	TEST_EQ(lp_agg_add(a, &s, &cmd), 0);
	TEST_EQ(lp_agg_add(a, &s, &none), 1);  /* no comm: left out */
	TEST_EQ(lp_agg_add(a, &s, NULL), 1);
	TEST_EQ(agg_count(a), 1);
	const char *str;
	int64_t n;
	TEST_TRUE(agg_key(a, 0, 0, &str, &n));
	TEST_STREQ(str, "cmd");
	TEST_TRUE(agg_key(a, 0, 1, &str, &n));
	TEST_STREQ(str, "longer-than-fift");
	TEST_TRUE(!agg_key(a, 0, 2, &str, &n));
	TEST_EQ(n, 7);
	TEST_EQ(agg_value(a, 0), 38);
	lp_agg_free(a);
	lp_tp_format_free(f);
}

static void min_max_and_wrap(void)
{
	struct lp_tp_format *f = format();
	int64_t vals[] = { 5, -9, INT64_MAX, 3 };
	int64_t want[] = { -9, INT64_MAX };
	for (int op = LP_AGG_MIN; op <= LP_AGG_MAX; op++) {
		struct lp_agg_spec spec = { .op = (uint8_t)op, .value = field("prev_state") };
		struct lp_agg *a = lp_agg_new(&spec, NULL);
		TEST_EQ(lp_agg_bind(a, f, ST, NULL), 0);
		struct rawsw r;
		for (int i = 0; i < 4; i++) {
			struct lp_sample s = sample(&r, 1, "x", vals[i], 0);
			TEST_EQ(lp_agg_add(a, &s, NULL), 0);
		}
		TEST_EQ(agg_count(a), 1);
		TEST_EQ(agg_value(a, 0), want[op - LP_AGG_MIN]);
		lp_agg_free(a);
	}
	struct lp_agg_spec spec = { .op = LP_AGG_SUM, .value = field("prev_state") };
	struct lp_agg *a = lp_agg_new(&spec, NULL);
	TEST_EQ(lp_agg_bind(a, f, ST, NULL), 0);
	struct rawsw r;
	struct lp_sample s = sample(&r, 1, "x", INT64_MAX, 0);
	lp_agg_add(a, &s, NULL);
	s = sample(&r, 1, "x", 2, 0);
	lp_agg_add(a, &s, NULL);
	TEST_EQ(agg_value(a, 0), INT64_MIN + 1);    /* wraps, as Lua's integers */
	lp_agg_free(a);
	lp_tp_format_free(f);
}

static void hist_buckets_and_filter(void)
{
	TEST_EQ(lp_agg_bucket(-5), 0);
	TEST_EQ(lp_agg_bucket(INT64_MIN), 0);
	TEST_EQ(lp_agg_bucket(0), 1);
	TEST_EQ(lp_agg_bucket(1), 2);
	TEST_EQ(lp_agg_bucket(2), 3);
	TEST_EQ(lp_agg_bucket(3), 3);
	TEST_EQ(lp_agg_bucket(4), 4);
	TEST_EQ(lp_agg_bucket(1023), 11);
	TEST_EQ(lp_agg_bucket(1024), 12);
	TEST_EQ(lp_agg_bucket(INT64_MAX), LP_AGG_BUCKETS - 1);
	struct lp_tp_format *f = format();
	struct lp_agg_spec spec = { .op = LP_AGG_HIST, .nr_keys = 1, .keys = { { .src = LP_AGG_CPU } },
				    .value = field("prev_state"), .has_filter = true,
				    .filter = field("next_pid"), .cmp = LP_AGG_GE, .filter_const = 10 };
	struct lp_agg *a = lp_agg_new(&spec, NULL);
	TEST_EQ(lp_agg_bind(a, f, ST, NULL), 0);
	struct rawsw r;
	int64_t vals[] = { 0, 1, 5, 6, 7, 1000, -1 };
	for (int i = 0; i < 7; i++) {
		struct lp_sample s = sample(&r, 1, "x", vals[i], 10);
		TEST_EQ(lp_agg_add(a, &s, NULL), 0);
	}
	struct lp_sample s = sample(&r, 1, "x", 5, 9);
	TEST_EQ(lp_agg_add(a, &s, NULL), 1);   /* filtered out */
	TEST_EQ(agg_count(a), 1);
	TEST_EQ(agg_value(a, 0), 7);
	const uint64_t *b = agg_hist(a, 0);
	TEST_EQ(b[0], 1);
	TEST_EQ(b[1], 1);
	TEST_EQ(b[2], 1);
	TEST_EQ(b[4], 3);
	TEST_EQ(b[11], 1);
	lp_agg_free(a);
	lp_tp_format_free(f);
}

static void outside_data_left_out(void)
{
	struct lp_tp_format *f = format();
	struct lp_agg_spec spec = { .op = LP_AGG_COUNT, .nr_keys = 1, .keys = { field("next_pid") } };
	struct lp_agg *a = lp_agg_new(&spec, NULL);
	TEST_EQ(lp_agg_bind(a, f, ST, NULL), 0);
	struct rawsw r;
	struct lp_sample s = sample(&r, 1, "x", 0, 1);
	s.raw_size = 40;        /* next_pid lies at 56 */
	TEST_EQ(lp_agg_add(a, &s, NULL), 1);
	TEST_EQ(agg_count(a), 0);
	lp_agg_free(a);
	lp_tp_format_free(f);
}

static void binding_errors(void)
{
	struct lp_tp_format *f = format();
	const char *what = NULL;
	struct lp_agg_spec spec = { .op = LP_AGG_COUNT, .nr_keys = 1, .keys = { field("nope") } };
	struct lp_agg *a = lp_agg_new(&spec, NULL);
	TEST_EQ(lp_agg_bind(a, f, ST, &what), -ENOENT);
	TEST_STREQ(what, "nope");
	TEST_EQ(lp_agg_bind(a, NULL, ST, &what), -ENOENT);
	lp_agg_free(a);
	spec.keys[0] = field("common_pid");     /* s.args leaves it out */
	a = lp_agg_new(&spec, NULL);
	TEST_EQ(lp_agg_bind(a, f, ST, &what), -ENOENT);
	lp_agg_free(a);
	spec.keys[0] = field("args");           /* an array is no key */
	a = lp_agg_new(&spec, NULL);
	TEST_EQ(lp_agg_bind(a, f, ST, &what), -EINVAL);
	TEST_STREQ(what, "args");
	lp_agg_free(a);
	spec = (struct lp_agg_spec){ .op = LP_AGG_SUM, .value = field("prev_comm") };
	a = lp_agg_new(&spec, NULL);
	TEST_EQ(lp_agg_bind(a, f, ST, &what), -EINVAL);        /* a string is no value */
	lp_agg_free(a);
	spec = (struct lp_agg_spec){ .op = LP_AGG_COUNT, .nr_keys = 1, .keys = { { .src = LP_AGG_CPU } } };
	a = lp_agg_new(&spec, NULL);
	TEST_EQ(lp_agg_bind(a, f, PERF_SAMPLE_TID | PERF_SAMPLE_RAW, &what), -EINVAL);
	TEST_STREQ(what, "cpu");
	lp_agg_free(a);
	/* malformed specs */
	spec = (struct lp_agg_spec){ .op = LP_AGG_NR_OPS };
	TEST_TRUE(!lp_agg_new(&spec, NULL) && errno == EINVAL);
	spec = (struct lp_agg_spec){ .op = LP_AGG_COUNT, .nr_keys = LP_AGG_MAX_KEYS + 1 };
	TEST_TRUE(!lp_agg_new(&spec, NULL));
	spec = (struct lp_agg_spec){ .op = LP_AGG_SUM, .value = { .src = LP_AGG_COMM } };
	TEST_TRUE(!lp_agg_new(&spec, NULL));
	spec = (struct lp_agg_spec){ .op = LP_AGG_MAX, .value = { .src = LP_AGG_SYM } };
	TEST_TRUE(!lp_agg_new(&spec, NULL));
	spec = (struct lp_agg_spec){ .op = LP_AGG_COUNT, .nr_keys = 1, .keys = { { .src = LP_AGG_FIELD } } };
	TEST_TRUE(!lp_agg_new(&spec, NULL));
	memset(spec.keys[0].field, 'x', sizeof spec.keys[0].field);   /* no NUL */
	TEST_TRUE(!lp_agg_new(&spec, NULL));
	lp_tp_format_free(f);
}

/* The function sampled, looked up by the caller as the command name is:
 * counted by it and the pid; a sample with no symbol is left out; the
 * samples must carry their ip. */
static void counts_by_sym(void)
{
	struct lp_tp_format *f = format();
	struct lp_agg_spec spec = { .op = LP_AGG_COUNT, .nr_keys = 2,
				    .keys = { { .src = LP_AGG_SYM }, { .src = LP_AGG_PID } } };
	struct lp_agg *a = lp_agg_new(&spec, NULL);
	TEST_EQ(lp_agg_bind(a, NULL, PERF_SAMPLE_TID, NULL), -EINVAL);        /* no IP */
	TEST_EQ(lp_agg_bind(a, NULL, PERF_SAMPLE_IP | PERF_SAMPLE_TID, NULL), 0);
	TEST_TRUE(lp_agg_wants(a, LP_AGG_SYM));
	TEST_TRUE(!lp_agg_wants(a, LP_AGG_COMM));
	struct rawsw r;
	struct lp_sample s = sample(&r, 7, "x", 0, 0);
	const struct lp_agg_names hot = { .sym = "hot_leaf" }, warm = { .sym = "warm_leaf" },
				  none = { .comm = "x" };
	for (int i = 0; i < 3; i++)
		TEST_EQ(lp_agg_add(a, &s, &hot), 0);
	TEST_EQ(lp_agg_add(a, &s, &warm), 0);
	TEST_EQ(lp_agg_add(a, &s, &none), 1);
	TEST_EQ(agg_count(a), 2);
	const char *str;
	int64_t n;
	TEST_TRUE(agg_key(a, 0, 0, &str, &n));
	TEST_STREQ(str, "hot_leaf");
	TEST_EQ(agg_value(a, 0), 3);
	TEST_TRUE(agg_key(a, 1, 0, &str, &n));
	TEST_STREQ(str, "warm_leaf");
	TEST_TRUE(!agg_key(a, 1, 1, &str, &n));
	TEST_EQ(n, 7);
	TEST_EQ(agg_value(a, 1), 1);
	lp_agg_free(a);

	/* one sym key: names known by their address after the first time;
	 * another pointer to the same name is the same entry */
	spec.nr_keys = 1;
	a = lp_agg_new(&spec, NULL);
	TEST_EQ(lp_agg_bind(a, NULL, PERF_SAMPLE_IP | PERF_SAMPLE_TID, NULL), 0);
	char copy[] = "hot_leaf";
	const struct lp_agg_names other = { .sym = copy };
	for (int i = 0; i < 5; i++) {
		TEST_EQ(lp_agg_add(a, &s, &hot), 0);
		TEST_EQ(lp_agg_add(a, &s, &other), 0);
		TEST_EQ(lp_agg_add(a, &s, &warm), 0);
	}
	TEST_EQ(agg_count(a), 2);
	TEST_EQ(agg_value(a, 0), 10);
	TEST_EQ(agg_value(a, 1), 5);
	agg_clear(a);                /* the cache forgets the entries too */
	TEST_EQ(lp_agg_add(a, &s, &warm), 0);
	TEST_EQ(lp_agg_add(a, &s, &hot), 0);
	TEST_EQ(lp_agg_add(a, &s, &hot), 0);
	TEST_EQ(agg_count(a), 2);
	TEST_TRUE(agg_key(a, 0, 0, &str, &n));
	TEST_STREQ(str, "warm_leaf");
	TEST_EQ(agg_value(a, 0), 1);
	TEST_EQ(agg_value(a, 1), 2);
	lp_agg_free(a);
	lp_tp_format_free(f);
}

static void many_keys(void)
{
	struct lp_tp_format *f = format();
	struct lp_agg_spec spec = { .op = LP_AGG_HIST, .nr_keys = 1, .keys = { field("next_pid") },
				    .value = field("prev_state") };
	struct lp_agg *a = lp_agg_new(&spec, NULL);
	TEST_EQ(lp_agg_bind(a, f, ST, NULL), 0);
	struct rawsw r;
	for (int round = 0; round < 3; round++)
		for (int i = 0; i < 20000; i++) {
			struct lp_sample s = sample(&r, 1, "x", i, i);
			TEST_EQ(lp_agg_add(a, &s, NULL), 0);
		}
	TEST_EQ(agg_count(a), 20000);
	for (size_t i = 0; i < 20000; i += 777) {
		const char *str;
		int64_t k;
		TEST_TRUE(!agg_key(a, i, 0, &str, &k));
		TEST_EQ(k, (int64_t)i);
		TEST_EQ(agg_value(a, i), 3);
		TEST_EQ(agg_hist(a, i)[lp_agg_bucket((int64_t)i)], 3);
	}
	lp_agg_free(a);
	lp_tp_format_free(f);
}

TEST_MAIN("agg", TEST_CASE(counts_by_two_fields), TEST_CASE(sums_by_comm_and_string_field),
	  TEST_CASE(counts_by_sym),
	  TEST_CASE(min_max_and_wrap), TEST_CASE(hist_buckets_and_filter),
	  TEST_CASE(outside_data_left_out), TEST_CASE(binding_errors), TEST_CASE(many_keys))
