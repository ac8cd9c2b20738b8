/* test_event.c - event names and the perf_event_attr they produce.  The
 * hardware events cannot be opened on a machine without a PMU, so their
 * attrs are checked here field by field.  Names own their strings: a spec
 * parsed over another leaks the first name, so each test frees as it goes
 * (LeakSanitizer checks every test in make check-asan). */
#include <errno.h>
#include <time.h>

#include "luaprof/err.h"
#include "luaprof/event.h"
#include "luaprof/record.h"
#include "luaprof/trace.h"
#include "test.h"

/* lp_event_parse over a spec that may own a name from before. */
static int parse(const char *str, struct lp_event_spec *e)
{
	lp_event_spec_free(e);
	return lp_event_parse(str, e);
}

static const struct lp_sampling freq4k = { .freq = 4000, .inherit = true,
					   .enable_on_exec = true, .tracking = true };

static void names_and_aliases(void)
{
	struct lp_event_spec e = { 0 };
	TEST_EQ(parse("cycles", &e), 0);
	TEST_EQ(e.type, PERF_TYPE_HARDWARE);
	TEST_EQ(e.config, PERF_COUNT_HW_CPU_CYCLES);
	TEST_EQ(parse("cs", &e), 0);
	TEST_STREQ(e.name, "context-switches");
	TEST_EQ(e.config, PERF_COUNT_SW_CONTEXT_SWITCHES);
	TEST_EQ(parse("faults", &e), 0);
	TEST_STREQ(e.name, "page-faults");
	TEST_EQ(parse("branch-instructions", &e), 0);
	TEST_STREQ(e.name, "branches");
	TEST_EQ(parse("migrations:k", &e), 0);
	TEST_STREQ(e.name, "cpu-migrations:k");
	TEST_EQ(parse("stalled-cycles-backend", &e), 0);
	TEST_EQ(e.config, PERF_COUNT_HW_STALLED_CYCLES_BACKEND);
	TEST_EQ(parse("ref-cycles", &e), 0);
	TEST_EQ(e.config, PERF_COUNT_HW_REF_CPU_CYCLES);
	lp_event_spec_free(&e);
}

static void modifiers(void)
{
	struct lp_event_spec e = { 0 };
	TEST_EQ(parse("cycles:u", &e), 0);
	TEST_TRUE(!e.exclude_user && e.exclude_kernel);
	TEST_EQ(parse("cycles:k", &e), 0);
	TEST_TRUE(e.exclude_user && !e.exclude_kernel);
	TEST_EQ(parse("instructions:ppp", &e), 0);
	TEST_EQ(e.precise, 3);
	TEST_EQ(parse("cycles:upp", &e), 0);
	TEST_EQ(e.precise, 2);
	TEST_TRUE(e.exclude_kernel);
	TEST_EQ(parse("cycles:P", &e), 0);
	TEST_TRUE(e.precise_max);
	lp_event_spec_free(&e);
}

static void bad_names(void)
{
	struct lp_event_spec e = { 0 };
	TEST_EQ(parse("nonsense", &e), -ENOENT);
	TEST_EQ(parse("cycles:x", &e), -EINVAL);
	TEST_EQ(parse("cycles:pppp", &e), -EINVAL);
	TEST_EQ(parse("cycles:", &e), -EINVAL);
	TEST_EQ(parse("cycle", &e), -ENOENT);
	lp_event_spec_free(&e);
}

static void hardware_attr(void)
{
	struct lp_event_spec e = { 0 };
	struct perf_event_attr a;
	parse("cache-misses:upp", &e);
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
	lp_event_spec_free(&e);
}

static void default_is_precise_cycles(void)
{
	struct lp_event_spec e = { 0 };
	struct perf_event_attr a;
	lp_event_spec_free(&e);
	lp_event_default(&e);
	lp_event_attr(&e, &freq4k, &a);
	TEST_EQ(a.type, PERF_TYPE_HARDWARE);
	TEST_EQ(a.config, PERF_COUNT_HW_CPU_CYCLES);
	TEST_EQ(a.precise_ip, 3);
	lp_event_spec_free(&e);
}

static void period_callchain_and_no_tracking(void)
{
	struct lp_event_spec e = { 0 };
	struct perf_event_attr a;
	struct lp_sampling s = { .use_period = true, .period = 10007, .callchain = true };
	parse("page-faults", &e);
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
	lp_event_spec_free(&e);
}

static void cycles_falls_back_without_pmu(void)
{
	struct lp_event_spec e = { 0 };
	unsigned fb = 0;
	lp_event_spec_free(&e);
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
	lp_event_spec_free(&e);
}

static bool have_tracefs(void)
{
	return lp_tracefs_dir() != NULL;
}

/* A tracepoint: its tracefs id, every hit (period 1) with its raw data and
 * the period (perf's attr for -e sched:sched_switch), unless the run sets
 * -F or -c. */
static void tracepoint_attr(void)
{
	struct lp_event_list l = { 0 };
	struct perf_event_attr a;
	uint64_t id = 0;
	if (!have_tracefs())
		TEST_SKIP("tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)");
	TEST_EQ(lp_event_list_add(&l, "sched:sched_switch"), 0);
	TEST_EQ(lp_tracefs_id("sched", "sched_switch", &id), 0);
	TEST_EQ(l.n, 1);
	TEST_STREQ(l.v[0].name, "sched:sched_switch");
	TEST_EQ(l.v[0].type, PERF_TYPE_TRACEPOINT);
	TEST_EQ_U64(l.v[0].config, id);
	lp_event_attr(&l.v[0], &freq4k, &a);
	TEST_EQ(a.freq, 0);
	TEST_EQ(a.sample_period, 1);
	TEST_EQ_U64(a.sample_type, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				   PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
				   PERF_SAMPLE_RAW);
	struct lp_sampling s = freq4k;
	s.user_rate = true;                     /* -F 4000 given: it wins */
	lp_event_attr(&l.v[0], &s, &a);
	TEST_TRUE(a.freq && a.sample_freq == 4000 && (a.sample_type & PERF_SAMPLE_RAW));
	s = (struct lp_sampling){ .use_period = true, .period = 5, .user_rate = true };
	lp_event_attr(&l.v[0], &s, &a);         /* -c 5: every fifth, no PERIOD */
	TEST_TRUE(!a.freq && a.sample_period == 5 && !(a.sample_type & PERF_SAMPLE_PERIOD));
	lp_event_list_free(&l);
}

static int count_tp(const char *system, const char *event, void *arg)
{
	(void)system;
	(void)event;
	(*(size_t *)arg)++;
	return 0;
}

static void lists_and_globs(void)
{
	struct lp_event_list l = { 0 };
	size_t n = 0;
	if (!have_tracefs())
		TEST_SKIP("tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)");
	TEST_EQ(lp_event_list_add(&l, "cpu-clock,sched:sched_switch,cs:u"), 0);
	TEST_EQ(l.n, 3);
	TEST_STREQ(l.v[2].name, "context-switches:u");
	TEST_EQ(lp_event_list_add(&l, "syscalls:sys_enter_getp*"), 0);
	TEST_EQ(lp_tracefs_each("syscalls", "sys_enter_getp*", count_tp, &n), 0);
	TEST_EQ(l.n, 3 + n);
	for (size_t i = 4; i < l.n; i++)     /* in name order */
		TEST_TRUE(strcmp(l.v[i - 1].name, l.v[i].name) < 0);
	TEST_TRUE(n >= 2 && !strcmp(l.v[3].name, "syscalls:sys_enter_getpeername"));
	lp_event_list_free(&l);
}

/* Each error is one line naming the event, and leaves the list as it was. */
static void list_errors(void)
{
	static const struct { const char *str, *msg; } bad[] = {
		{ "cpu-clock,nonsense", "unknown event 'nonsense'" },
		{ "cpu-clock,,cs", "empty event name" },
		{ "cycles:x", "bad modifier in event 'cycles:x'" },
		{ "sched:no_such_event", "unknown tracepoint 'sched:no_such_event'" },
		{ "sched:sched_[x", "bad glob 'sched:sched_[x'" },
		{ "sched:no_such_*", "no tracepoint matches 'sched:no_such_*'" },
		{ "sched:a:b", "a tracepoint is SYSTEM:EVENT" },
		/* a group and a term list are one item each, a path's slashes not */
		{ "{cpu-clock,nonsense}", "unknown event 'nonsense'" },
		{ "nopmu/event=1,umask=2/", "unknown event or PMU 'nopmu' in 'nopmu/event=1,umask=2/'" },
		{ "uprobe:/a/b/c:f,cs", "'uprobe:/a/b/c:f'" },
		/* the group's own mistakes; a member's failure undoes the members before it */
		{ "{cpu-clock,cs", "malformed group '{cpu-clock,cs': no closing '}'" },
		{ "{cpu-clock,{cs}}", "groups do not nest" },
		{ "{}", "malformed group '{}': it is empty" },
		{ "cs}", "'}' without '{'" },
		{ "{cpu-clock}x", "only modifiers" },
		{ "{cpu-clock}:q", "unknown modifier after '}'" },
		{ "cpu-clock/period=0/", "a bad value for term 'period'" },
		/* the kernel refuses a period with the top bit set */
		{ "cpu-clock/period=9223372036854775808/", "from 1 to 9223372036854775807" },
		{ "cpu-clock/frob=1/", "unknown term 'frob' in 'cpu-clock/frob=1/'" },
		{ "L1-icache-stores", "unknown event 'L1-icache-stores'" },     /* no such op */
		{ "mem:0x1001/4:w", "bad watchpoint 'mem:0x1001/4:w'" },        /* misaligned */
		{ "mem:0x1000:rx", "bad watchpoint" },
	};
	struct lp_event_list l = { 0 };
	if (!have_tracefs())
		TEST_SKIP("tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)");
	TEST_EQ(lp_event_list_add(&l, "cpu-clock"), 0);
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		lp_err_clear();
		TEST_TRUE(lp_event_list_add(&l, bad[i].str) < 0);
		if (!strstr(lp_last_error(), bad[i].msg))
			TEST_FAIL_("'%s': error \"%s\" lacks \"%s\"", bad[i].str, lp_last_error(), bad[i].msg);
		TEST_EQ(l.n, 1);
	}
	lp_event_list_free(&l);
}

/* A filter is set on the fd, and one the kernel rejects is -EINVAL. */
static void filters(void)
{
	struct lp_event_list l = { 0 };
	struct lp_sampling s = { .inherit = false };
	unsigned fb = 0;
	if (!have_tracefs() || geteuid())
		TEST_SKIP("needs root and tracefs (mount -t tracefs nodev /sys/kernel/tracing)");
	TEST_EQ(lp_event_list_add(&l, "sched:sched_switch"), 0);
	int fd = lp_event_open(&l.v[0], &s, 0, -1, &fb);
	TEST_TRUE(fd >= 0);
	TEST_EQ(lp_event_set_filter(fd, &l.v[0]), 0);   /* none: nothing to do */
	l.v[0].filter = strdup("prev_pid == 1");
	TEST_EQ(lp_event_set_filter(fd, &l.v[0]), 0);
	close(fd);
	free(l.v[0].filter);            /* the kernel takes one filter per event */
	l.v[0].filter = strdup("no_such_field == 1");
	fd = lp_event_open(&l.v[0], &s, 0, -1, &fb);
	TEST_EQ(lp_event_set_filter(fd, &l.v[0]), -EINVAL);
	close(fd);
	lp_event_list_free(&l);
}

/* The name a user-only fallback gives: ":u" added, or "u" joined to the
 * modifiers there are; a probe's colons are not modifiers. */
static void user_only_names(void)
{
	static const struct { const char *name; uint8_t probe; const char *want; } t[] = {
		{ "cycles", 0, "cycles:u" }, { "cycles:pp", 0, "cycles:ppu" },
		{ "cpu-clock:P", 0, "cpu-clock:Pu" }, { "r1a8", 0, "r1a8:u" },
		{ "uprobe:/bin/bash:readline", LP_PROBE_UPROBE, "uprobe:/bin/bash:readline:u" },
		{ "usdt:/bin/x:p:u", LP_PROBE_USDT, "usdt:/bin/x:p:u:u" },
	};
	for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
		struct lp_event_spec e = { .name = (char *)(uintptr_t)t[i].name, .probe = t[i].probe };
		char *n = lp_event_user_only_name(&e);
		TEST_STREQ(n, t[i].want);
		free(n);
	}
}

TEST_MAIN("event", TEST_CASE(names_and_aliases), TEST_CASE(user_only_names), TEST_CASE(modifiers), TEST_CASE(bad_names),
	  TEST_CASE(hardware_attr), TEST_CASE(default_is_precise_cycles),
	  TEST_CASE(period_callchain_and_no_tracking), TEST_CASE(cycles_falls_back_without_pmu),
	  TEST_CASE(tracepoint_attr), TEST_CASE(lists_and_globs), TEST_CASE(list_errors),
	  TEST_CASE(filters))
