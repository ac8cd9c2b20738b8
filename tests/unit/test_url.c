/* test_url.c - URLs through libcurl's URL API (core/push/url.c): the
 * parts of a URL with credentials and a query, put together again with
 * another path and query; the shown form without user, password, query
 * and fragment, by libcurl and, for a URL it refuses, by the textual cut
 * (never past the string, cut where the buffer ends); a malformed URL is
 * refused with libcurl's reason. */
#include <errno.h>
#include <stdlib.h>

#include "luaprof/err.h"
#include "luaprof/url.h"
#include "test.h"

/* lp_url_shown of s (libcurl or the cut, whichever applies). */
static const char *shown(const char *s)
{
	static char buf[256];
	lp_url_shown(s, buf, sizeof buf);
	return buf;
}

static void parts_and_build(void)
{
	struct lp_url u;
	int rc = lp_url_parse("http://ann:T0K@pyro:4040/base/?token=X#f", &u);
	if (rc == -ELIBACC)
		TEST_SKIP("libcurl cannot be opened");
	TEST_EQ(rc, 0);
	TEST_STREQ(u.part[LP_URL_SCHEME], "http");
	TEST_STREQ(u.part[LP_URL_USER], "ann");
	TEST_STREQ(u.part[LP_URL_PASSWORD], "T0K");
	TEST_STREQ(u.part[LP_URL_HOST], "pyro");
	TEST_STREQ(u.part[LP_URL_PORT], "4040");
	TEST_STREQ(u.part[LP_URL_PATH], "/base/");
	TEST_STREQ(u.part[LP_URL_QUERY], "token=X");
	TEST_STREQ(u.part[LP_URL_FRAGMENT], "f");
	free(u.part[LP_URL_PATH]);
	free(u.part[LP_URL_QUERY]);
	free(u.part[LP_URL_FRAGMENT]);
	u.part[LP_URL_PATH] = strdup("/base/ingest");
	u.part[LP_URL_QUERY] = strdup("token=X&name=a");
	u.part[LP_URL_FRAGMENT] = NULL;
	char *s = lp_url_build(&u);
	TEST_STREQ(s, "http://ann:T0K@pyro:4040/base/ingest?token=X&name=a");
	free(s);
	free(u.part[LP_URL_PORT]);
	u.part[LP_URL_PORT] = strdup("99999");
	TEST_TRUE(lp_url_build(&u) == NULL && errno == EINVAL);
	TEST_TRUE(strstr(lp_last_error(), "Port") != NULL);
	lp_url_free(&u);
	TEST_EQ(lp_url_parse("http://[::1", &u), -EINVAL);
	TEST_STREQ(lp_last_error(), "Bad IPv6 address");
	TEST_TRUE(u.part[LP_URL_SCHEME] == NULL);
}

static void shown_forms(void)
{
	TEST_STREQ(shown("http://ann:T0K@pyro:4040/base?token=X#f"), "http://pyro:4040/base");
	TEST_STREQ(shown("https://pyro"), "https://pyro/");
	/* refused by libcurl: the textual cut */
	TEST_STREQ(shown("http://ann:T0K@[::1"), "http://[::1");
	TEST_STREQ(shown("http://u:p/x@host/p?token=X"), "http://host/p");
	TEST_STREQ(shown("ann:T0K@host:4040"), "host:4040");
	TEST_STREQ(shown("http://a\tb\033/"), "http://a?b?/");
	char small[8];
	TEST_EQ(lp_url_shown_text("http://host/path", small, sizeof small), 16);
	TEST_STREQ(small, "http://");
	TEST_EQ(lp_url_shown_text("?x", small, sizeof small), 0);
	TEST_STREQ(small, "");
	TEST_EQ(lp_url_shown_text("abc", small, 0), 3);        /* no room at all: nothing written */
}

TEST_MAIN("url",
	TEST_CASE(parts_and_build),
	TEST_CASE(shown_forms))
