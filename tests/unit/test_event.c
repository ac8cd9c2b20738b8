/* test_event.c - event names and the perf_event_attr they produce.  The
 * hardware events cannot be opened on a machine without a PMU, so their
 * attrs are checked here field by field. */
#include <errno.h>
#include <time.h>

#include "luaprof/event.h"
#include "luaprof/record.h"
#include "test.h"

static const struct lp_sampling freq4k = { .freq = 4000, .inherit = true,
					   .enable_on_exec = true, .tracking = true };

static void names_and_aliases(void)
{
	struct lp_event_spec e;
	TEST_EQ(lp_event_parse("cycles", &e), 0);
	TEST_EQ(e.type, PERF_TYPE_HARDWARE);
	TEST_EQ(e.config, PERF_COUNT_HW_CPU_CYCLES);
	TEST_EQ(lp_event_parse("cs", &e), 0);
	TEST_STREQ(e.name, "context-switches");
	TEST_EQ(e.config, PERF_COUNT_SW_CONTEXT_SWITCHES);
	TEST_EQ(lp_event_parse("faults", &e), 0);
	TEST_STREQ(e.name, "page-faults");
	TEST_EQ(lp_event_parse("branch-instructions", &e), 0);
	TEST_STREQ(e.name, "branches");
	TEST_EQ(lp_event_parse("migrations:k", &e), 0);
	TEST_STREQ(e.name, "cpu-migrations:k");
	TEST_EQ(lp_event_parse("stalled-cycles-backend", &e), 0);
	TEST_EQ(e.config, PERF_COUNT_HW_STALLED_CYCLES_BACKEND);
	TEST_EQ(lp_event_parse("ref-cycles", &e), 0);
	TEST_EQ(e.config, PERF_COUNT_HW_REF_CPU_CYCLES);
}

static void modifiers(void)
{
	struct lp_event_spec e;
	TEST_EQ(lp_event_parse("cycles:u", &e), 0);
	TEST_TRUE(!e.exclude_user && e.exclude_kernel);
	TEST_EQ(lp_event_parse("cycles:k", &e), 0);
	TEST_TRUE(e.exclude_user && !e.exclude_kernel);
	TEST_EQ(lp_event_parse("instructions:ppp", &e), 0);
	TEST_EQ(e.precise, 3);
	TEST_EQ(lp_event_parse("cycles:upp", &e), 0);
	TEST_EQ(e.precise, 2);
	TEST_TRUE(e.exclude_kernel);
	TEST_EQ(lp_event_parse("cycles:P", &e), 0);
	TEST_TRUE(e.precise_max);
}

static void bad_names(void)
{
	struct lp_event_spec e;
	TEST_EQ(lp_event_parse("nonsense", &e), -ENOENT);
	TEST_EQ(lp_event_parse("cycles:x", &e), -EINVAL);
	TEST_EQ(lp_event_parse("cycles:pppp", &e), -EINVAL);
	TEST_EQ(lp_event_parse("cycles:", &e), -EINVAL);
	TEST_EQ(lp_event_parse("cycle", &e), -ENOENT);
}

static void hardware_attr(void)
{
	struct lp_event_spec e;
	struct perf_event_attr a;
	lp_event_parse("cache-misses:upp", &e);
	lp_event_attr(&e, &freq4k, &a);
	TEST_EQ(a.size, sizeof a);
	TEST_EQ(a.type, PERF_TYPE_HARDWARE);
	TEST_EQ(a.config, PERF_COUNT_HW_CACHE_MISSES);
	TEST_EQ(a.freq, 1);
	TEST_EQ(a.sample_freq, 4000);
	TEST_EQ(a.precise_ip, 2);
	TEST_EQ(a.exclude_kernel, 1);
	TEST_EQ(a.exclude_user, 0);
	TEST_EQ(a.exclude_hv, 1);
	TEST_EQ_U64(a.sample_type, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				   PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD);
	TEST_TRUE(a.disabled && a.inherit && a.enable_on_exec && a.sample_id_all);
	TEST_TRUE(a.mmap && a.mmap2 && a.comm && a.comm_exec && a.task);
	TEST_TRUE(a.use_clockid && a.clockid == CLOCK_MONOTONIC);
}

static void default_is_precise_cycles(void)
{
	struct lp_event_spec e;
	struct perf_event_attr a;
	lp_event_default(&e);
	lp_event_attr(&e, &freq4k, &a);
	TEST_EQ(a.type, PERF_TYPE_HARDWARE);
	TEST_EQ(a.config, PERF_COUNT_HW_CPU_CYCLES);
	TEST_EQ(a.precise_ip, 3);
}

static void period_callchain_and_no_tracking(void)
{
	struct lp_event_spec e;
	struct perf_event_attr a;
	struct lp_sampling s = { .use_period = true, .period = 10007, .callchain = true };
	lp_event_parse("page-faults", &e);
	lp_event_attr(&e, &s, &a);
	TEST_EQ(a.freq, 0);
	TEST_EQ(a.sample_period, 10007);
	TEST_TRUE(a.sample_type & PERF_SAMPLE_CALLCHAIN);
	/* A fixed period without PERIOD, as perf: with it the kernel samples
	 * every software event. */
	TEST_TRUE(!(a.sample_type & PERF_SAMPLE_PERIOD));
	TEST_TRUE(!a.mmap && !a.comm && !a.task && !a.inherit);
	/* and readers take the attr's period for it */
	struct lp_format f;
	lp_format_from_attr(&f, &a);
	TEST_EQ(f.period, 10007);
}

static void cycles_falls_back_without_pmu(void)
{
	struct lp_event_spec e;
	unsigned fb = 0;
	lp_event_default(&e);
	struct lp_sampling s = { .freq = 1000 };
	int fd = lp_event_open(&e, &s, 0, -1, &fb);
	TEST_TRUE(fd >= 0);
	if (fd >= 0)
		close(fd);
	if (fb & LP_FALLBACK_CPU_CLOCK) {       /* no PMU here, as on most VMs */
		TEST_EQ(e.type, PERF_TYPE_SOFTWARE);
		TEST_EQ(e.config, PERF_COUNT_SW_CPU_CLOCK);
		TEST_STREQ(e.name, "cpu-clock");
	} else {
		TEST_EQ(e.type, PERF_TYPE_HARDWARE);
	}
}

TEST_MAIN("event", TEST_CASE(names_and_aliases), TEST_CASE(modifiers), TEST_CASE(bad_names),
	  TEST_CASE(hardware_attr), TEST_CASE(default_is_precise_cycles),
	  TEST_CASE(period_callchain_and_no_tracking), TEST_CASE(cycles_falls_back_without_pmu))
