/* The live merge's wait for late records (core/live/slack.c): records in
 * order leave it alone; one stamped before a record already handed out
 * is counted, by how far behind, and the wait grows to twice what it
 * needed, never past a second. */
#include <stdint.h>

#include "test.h"
#include "live/slack.h"

#define MS 1000000ull

static void in_order(void)
{
	struct lp_slack s;
	lp_slack_init(&s);
	TEST_EQ(s.ns, LP_SLACK_NS);
	uint64_t t[] = { 5 * MS, 5 * MS, 6 * MS, 100 * MS };   /* equal stamps are in order */
	for (unsigned i = 0; i < 4; i++)
		TEST_TRUE(!lp_slack_note(&s, t[i]));
	TEST_EQ(s.late, 0);
	TEST_EQ(s.ns, LP_SLACK_NS);
}

static void late_grows_the_wait(void)
{
	struct lp_slack s;
	lp_slack_init(&s);
	lp_slack_note(&s, 100 * MS);
	TEST_TRUE(lp_slack_note(&s, 97 * MS));          /* 3 ms behind */
	TEST_EQ(s.late, 1);
	TEST_EQ(s.max_late_ns, 3 * MS);
	TEST_EQ(s.ns, 2 * (LP_SLACK_NS + 3 * MS));      /* 46 ms */
	TEST_TRUE(!lp_slack_note(&s, 101 * MS));        /* the newest stays 101 ms */
	TEST_TRUE(lp_slack_note(&s, 100 * MS));
	TEST_EQ(s.late, 2);
	TEST_EQ(s.max_late_ns, 3 * MS);                 /* 1 ms is less */
	TEST_EQ(s.ns, 2 * (2 * (LP_SLACK_NS + 3 * MS) + 1 * MS));
}

static void never_past_a_second(void)
{
	struct lp_slack s;
	lp_slack_init(&s);
	lp_slack_note(&s, UINT64_MAX - 1);
	TEST_TRUE(lp_slack_note(&s, 0));                /* as far behind as can be */
	TEST_EQ(s.ns, LP_SLACK_MAX_NS);
	TEST_EQ(s.max_late_ns, UINT64_MAX - 1);
	for (int i = 0; i < 3; i++)
		TEST_TRUE(lp_slack_note(&s, 1));
	TEST_EQ(s.ns, LP_SLACK_MAX_NS);
	TEST_EQ(s.late, 4);
}

TEST_MAIN("slack", TEST_CASE(in_order), TEST_CASE(late_grows_the_wait), TEST_CASE(never_past_a_second))
