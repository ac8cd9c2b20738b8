/* test_folded.c - folded stack lines: one or two counts, CRLF, comments
 * and blank lines skipped, bad lines refused with their number. */
#include "luaprof/folded.h"
#include "test.h"

static void lines(void)
{
	size_t n;
	uint64_t c[2];
	TEST_EQ(lp_folded_line("a;b;c 12", 8, &n, c), 1);
	TEST_EQ(n, 5); TEST_EQ(c[0], 12);
	TEST_EQ(lp_folded_line("a b;c 3 5\r", 10, &n, c), 2);
	TEST_EQ(n, 5); TEST_EQ(c[0], 5); TEST_EQ(c[1], 3);
	TEST_EQ(lp_folded_line("x  7", 4, &n, c), 1);
	TEST_EQ(n, 1);
	TEST_TRUE(lp_folded_line("nocount", 7, &n, c) < 0);
	TEST_TRUE(lp_folded_line(" 5", 2, &n, c) < 0);
	TEST_TRUE(lp_folded_line("a 1.5", 5, &n, c) < 0);
	TEST_TRUE(lp_folded_line("a 12345678901234567890", 22, &n, c) < 0);
	TEST_TRUE(lp_folded_line("a -1", 4, &n, c) < 0);
}

struct seen { int n; uint64_t sum; };

static int count(void *ctx, const char *s, size_t len, const uint64_t *c, int nr)
{
	struct seen *x = ctx;
	(void)s; (void)len; (void)nr;
	x->n++;
	x->sum += c[0];
	return 0;
}

static void whole_text(void)
{
	const char text[] = "# a comment\n\nm;a 2\nm;b 3\r\n\nm;a 1";
	struct seen x = { 0 };
	size_t bad = 0;
	TEST_EQ(lp_folded_parse(text, sizeof text - 1, count, &x, &bad), 0);
	TEST_EQ(x.n, 3);
	TEST_EQ(x.sum, 6);
	const char broken[] = "m;a 2\nm;b three\n";
	TEST_TRUE(lp_folded_parse(broken, sizeof broken - 1, count, &x, &bad) < 0);
	TEST_EQ(bad, 2);
}

TEST_MAIN("folded", TEST_CASE(lines), TEST_CASE(whole_text))
