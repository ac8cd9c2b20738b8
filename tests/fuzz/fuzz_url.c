/*
 * fuzz_url.c - URLs from the command line (--push): libcurl's URL parser
 * through url.c (lp_url_parse, lp_url_build) and the form lines show
 * (lp_url_shown, and its textual cut alone, the one piece of URL parsing
 * of luaprof's own).  The input is one NUL-terminated string, as argv
 * gives it.  What must hold: the shown form fits and is terminated, holds
 * no control character, and never the URL's user and password (an '@' in
 * its authority: a path may hold anything, "u:p@" too) nor its query;
 * the textual cut keeps nothing from the first '?' or '#' on; a URL taken
 * apart and put together again is taken apart into the same parts.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cstr.h"
#include "luaprof/url.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_URL 4096

/* The checks every shown form must pass. */
static void check_shown(const char *s, const char *out, size_t n, size_t size)
{
	if (strlen(out) != (n < size ? n : size - 1))
		abort();
	for (const char *p = out; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			abort();
	(void)s;
}

/* Parts a and b are the same. */
static void same(const struct lp_url *a, const struct lp_url *b)
{
	for (int i = 0; i < LP_URL_NPARTS; i++)
		if (!a->part[i] != !b->part[i] || (a->part[i] && strcmp(a->part[i], b->part[i])))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size, MAX_URL);
	char out[64], big[MAX_URL + 8];
	if (!s)
		return 0;
	size_t n = lp_url_shown_text(s, out, sizeof out);
	check_shown(s, out, n, sizeof out);
	n = lp_url_shown_text(s, big, sizeof big);
	check_shown(s, big, n, sizeof big);
	if (n > strcspn(s, "?#"))
		abort();                /* something from the query or fragment on */
	n = lp_url_shown(s, big, sizeof big);
	check_shown(s, big, n, sizeof big);
	struct lp_url u, again;
	bool parsed = !lp_url_parse(s, &u);
	const char *auth = strstr(big, "://");
	auth = auth ? auth + 3 : big;
	const char *at = strchr(auth, '@');
	/* (a URL without a host, file:PATH, is written file://PATH by libcurl) */
	if (at && at < auth + strcspn(auth, "/") && (!parsed || u.part[LP_URL_HOST]))
		abort();                        /* credentials in the shown authority */
	if (parsed) {
		if (u.part[LP_URL_QUERY] && *u.part[LP_URL_QUERY] && strchr(big, '?'))
			abort();                /* the query shown */
		char *b = lp_url_build(&u);
		if (b && !lp_url_parse(b, &again)) {
			char *b2 = lp_url_build(&again);
			struct lp_url third;
			if (b2 && !lp_url_parse(b2, &third)) {
				same(&again, &third);   /* put together, taken apart: the same */
				lp_url_free(&third);
			}
			free(b2);
			lp_url_free(&again);
		}
		free(b);
		lp_url_free(&u);
	}
	free(s);
	return 0;
}
