/* test_show.c - how messages show values from outside (lp_show): short
 * ones whole, long ones by start, length and end, one line, UTF-8
 * characters never split. */
#include <stdlib.h>

#include "luaprof/luaprof.h"
#include "test.h"

static void whole(void)
{
	struct lp_shown s;
	TEST_STREQ(lp_show("cpu-clock", &s), "cpu-clock");
	TEST_STREQ(lp_show("", &s), "");
	TEST_STREQ(lp_show(NULL, &s), "");
	TEST_STREQ(lp_show("a\nb\tc\x7f", &s), "a?b?c?");
	char v[LP_SHOW_MAX + 1];
	memset(v, 'x', LP_SHOW_MAX);
	v[LP_SHOW_MAX] = '\0';
	TEST_STREQ(lp_show(v, &s), v);
	TEST_STREQ(LP_SHOW_N("abcdef", 3), "abc");
}

static void cut(void)
{
	size_t n = 100000;
	char *v = malloc(n + 1);
	TEST_TRUE(v != NULL);
	for (size_t i = 0; i < n; i++)
		v[i] = (char)('a' + i % 26);
	v[n] = '\0';
	v[10] = '\n';
	struct lp_shown s;
	const char *got = lp_show(v, &s);
	TEST_TRUE(strlen(got) < sizeof s.s);
	TEST_TRUE(!strncmp(got, "abcdefghij?lmnop", 16));
	TEST_TRUE(strstr(got, "...[100000 bytes]...") == got + LP_SHOW_HEAD);
	TEST_STREQ(got + strlen(got) - LP_SHOW_TAIL, v + n - LP_SHOW_TAIL);
	free(v);
}

static void utf8(void)
{
	/* "é" (2 bytes) across both cuts: left out, not split */
	char v[200];
	memset(v, 'x', sizeof v);
	v[sizeof v - 1] = '\0';
	v[LP_SHOW_HEAD - 1] = (char)0xc3, v[LP_SHOW_HEAD] = (char)0xa9;
	size_t t = sizeof v - 1 - LP_SHOW_TAIL;
	v[t - 1] = (char)0xc3, v[t] = (char)0xa9;
	struct lp_shown s;
	const char *got = lp_show(v, &s);
	TEST_TRUE(strchr(got, (char)0xc3) == NULL && strchr(got, (char)0xa9) == NULL);
	TEST_TRUE(strstr(got, "...[199 bytes]...") == got + LP_SHOW_HEAD - 1);
	TEST_EQ(strlen(strstr(got, "]...") + 4), (size_t)LP_SHOW_TAIL - 1);
}

TEST_MAIN("show", TEST_CASE(whole), TEST_CASE(cut), TEST_CASE(utf8))
