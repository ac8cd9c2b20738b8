/* test_buf.c - byte buffers and JSON strings and numbers: escapes, valid
 * UTF-8 kept, every invalid byte (stray continuation, overlong form,
 * surrogate, past U+10FFFF, cut sequence) replaced by U+FFFD. */
#include "luaprof/buf.h"
#include "test.h"

static const char *json(struct lp_buf *b, const char *s, size_t n)
{
	b->len = 0;
	lp_json_string(b, s, n);
	return b->p;
}

static void strings(void)
{
	struct lp_buf b = { 0 };
	TEST_STREQ(json(&b, "a\"b\\c\n\t\x01", 8), "\"a\\\"b\\\\c\\n\\t\\u0001\"");
	TEST_STREQ(json(&b, "\xc3\xa9\xf0\x9f\x98\x80", 6), "\"\xc3\xa9\xf0\x9f\x98\x80\"");
	TEST_STREQ(json(&b, "\x80", 1), "\"\\ufffd\"");
	TEST_STREQ(json(&b, "\xc0\xaf", 2), "\"\\ufffd\\ufffd\"");
	TEST_STREQ(json(&b, "\xed\xa0\x80", 3), "\"\\ufffd\\ufffd\\ufffd\"");
	TEST_STREQ(json(&b, "\xf4\x90\x80\x80", 4), "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
	TEST_STREQ(json(&b, "ok\xe2\x82", 4), "\"ok\\ufffd\\ufffd\"");
	TEST_STREQ(json(&b, "nul\0x", 5), "\"nul\\u0000x\"");
	lp_buf_free(&b);
}

static void numbers_and_growth(void)
{
	struct lp_buf b = { 0 };
	lp_json_double(&b, 0.1);
	lp_buf_puts(&b, " ");
	lp_json_double(&b, 1.0 / 3);
	lp_buf_puts(&b, " ");
	lp_json_double(&b, 1e300);
	TEST_STREQ(b.p, "0.1 0.3333333333333333 1e+300");
	b.len = 0;
	for (int i = 0; i < 10000; i++)
		lp_buf_printf(&b, "%05d", i);
	TEST_EQ(b.len, 50000);
	TEST_TRUE(!memcmp(b.p + 49995, "09999", 5));
	TEST_EQ(b.err, 0);
	lp_buf_free(&b);
}

TEST_MAIN("buf", TEST_CASE(strings), TEST_CASE(numbers_and_growth))
