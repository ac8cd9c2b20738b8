/* test_optval.c - script option strings: names, --name=value splitting,
 * and each type's values, good and bad. */
#include "luaprof/optval.h"
#include "test.h"

static void split(void)
{
	char name[LP_OPT_NAME_MAX + 1];
	const char *v;
	TEST_EQ(lp_opt_split("--limit=10", name, &v), 0);
	TEST_STREQ(name, "limit");
	TEST_STREQ(v, "10");
	TEST_EQ(lp_opt_split("--no-flag", name, &v), 0);
	TEST_STREQ(name, "no-flag");
	TEST_TRUE(v == NULL);
	TEST_EQ(lp_opt_split("--a=b=c", name, &v), 0);
	TEST_STREQ(v, "b=c");
	TEST_EQ(lp_opt_split("--x=", name, &v), 0);
	TEST_STREQ(v, "");
	TEST_TRUE(lp_opt_split("-x", name, &v) < 0);
	TEST_TRUE(lp_opt_split("--", name, &v) < 0);
	TEST_TRUE(lp_opt_split("--=1", name, &v) < 0);
	TEST_TRUE(lp_opt_split("--Upper", name, &v) < 0);
	TEST_TRUE(lp_opt_split("---x", name, &v) < 0);
	char longname[100];
	memset(longname, 'a', sizeof longname);
	memcpy(longname, "--", 2);
	longname[99] = '\0';
	TEST_TRUE(lp_opt_split(longname, name, &v) < 0);
}

static void values(void)
{
	int64_t i;
	double d;
	bool b;
	TEST_EQ(lp_opt_integer("42", &i), 0); TEST_EQ(i, 42);
	TEST_EQ(lp_opt_integer("-7", &i), 0); TEST_EQ(i, -7);
	TEST_EQ(lp_opt_integer("0x1f", &i), 0); TEST_EQ(i, 31);
	TEST_EQ(lp_opt_integer("010", &i), 0); TEST_EQ(i, 10);
	TEST_EQ(lp_opt_integer("5K", &i), 0); TEST_EQ(i, 5000);
	TEST_EQ(lp_opt_integer("2m", &i), 0); TEST_EQ(i, 2000000);
	TEST_TRUE(lp_opt_integer("", &i) < 0);
	TEST_TRUE(lp_opt_integer(" 1", &i) < 0);
	TEST_TRUE(lp_opt_integer("1.5", &i) < 0);
	TEST_TRUE(lp_opt_integer("5KB", &i) < 0);
	TEST_TRUE(lp_opt_integer("99999999999999999999", &i) < 0);
	TEST_TRUE(lp_opt_integer("9223372036854775807K", &i) < 0);
	TEST_EQ(lp_opt_number("2.5", &d), 0); TEST_TRUE(d == 2.5);
	TEST_EQ(lp_opt_number("1e3", &d), 0); TEST_TRUE(d == 1000);
	TEST_TRUE(lp_opt_number("nan", &d) < 0);
	TEST_TRUE(lp_opt_number("inf", &d) < 0);
	TEST_TRUE(lp_opt_number("1x", &d) < 0);
	TEST_EQ(lp_opt_boolean("Yes", &b), 0); TEST_TRUE(b);
	TEST_EQ(lp_opt_boolean("off", &b), 0); TEST_TRUE(!b);
	TEST_TRUE(lp_opt_boolean("maybe", &b) < 0);
	TEST_EQ(lp_opt_type("list"), LP_OPT_LIST);
	TEST_TRUE(lp_opt_type("float") < 0);
}

static void lists(void)
{
	const char *s = ",a,,bc,", *start;
	size_t len;
	TEST_TRUE(lp_opt_list_next(&s, &start, &len));
	TEST_EQ(len, 1); TEST_TRUE(!strncmp(start, "a", 1));
	TEST_TRUE(lp_opt_list_next(&s, &start, &len));
	TEST_EQ(len, 2); TEST_TRUE(!strncmp(start, "bc", 2));
	TEST_TRUE(!lp_opt_list_next(&s, &start, &len));
}

TEST_MAIN("optval", TEST_CASE(split), TEST_CASE(values), TEST_CASE(lists))
