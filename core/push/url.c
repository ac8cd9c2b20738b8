/*
 * url.c - URLs through libcurl's URL API (see luaprof/url.h).
 *
 * The one parser of URLs here is libcurl's, the one the requests go
 * through.  The only text this file reads itself is a URL libcurl refused
 * (or any URL when libcurl cannot be opened), for the line that says so:
 * lp_url_shown_text keeps its scheme and what follows its credentials, and drops
 * everything from its query on, never reading past the string's end
 * (tests/fuzz/fuzz_url.c).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "luaprof/err.h"
#include "luaprof/url.h"
#include "push/curlsym.h"

const char *const lp_url_part_names[LP_URL_NPARTS] = {
	"scheme", "user", "password", "host", "zoneid", "port", "path", "query", "fragment",
};

static const CURLUPart curl_part[LP_URL_NPARTS] = {
	CURLUPART_SCHEME, CURLUPART_USER, CURLUPART_PASSWORD, CURLUPART_HOST, CURLUPART_ZONEID,
	CURLUPART_PORT, CURLUPART_PATH, CURLUPART_QUERY, CURLUPART_FRAGMENT,
};

/* -errno for a failed curl_url_set or _get, with why libcurl refused in
 * lp_last_error(). */
static int failure(const struct lp_curl *fn, CURLUcode rc)
{
	if (rc == CURLUE_OUT_OF_MEMORY)
		return lp_err(-ENOMEM, "out of memory");
	return lp_err(-EINVAL, "%s", fn->url_strerror ? fn->url_strerror(rc) :
		      "libcurl cannot take it apart");
}

void lp_url_free(struct lp_url *u)
{
	for (int i = 0; i < LP_URL_NPARTS; i++) {
		free(u->part[i]);
		u->part[i] = NULL;
	}
}

/* Copies the parts that h has into u.  0 or -ENOMEM. */
static int get_parts(const struct lp_curl *fn, CURLU *h, struct lp_url *u)
{
	for (int i = 0; i < LP_URL_NPARTS; i++) {
		char *p = NULL;
		CURLUcode rc = fn->url_get(h, curl_part[i], &p, 0);
		if (rc == CURLUE_OUT_OF_MEMORY)
			return -ENOMEM;
		if (rc != CURLUE_OK)
			continue;       /* absent: CURLUE_NO_USER and the like */
		u->part[i] = strdup(p);
		fn->free(p);
		if (!u->part[i])
			return -ENOMEM;
	}
	return 0;
}

int lp_url_parse(const char *s, struct lp_url *u)
{
	memset(u, 0, sizeof *u);
	const struct lp_curl *fn = lp_curl_load();
	if (!fn)
		return -errno;
	CURLU *h = fn->url();
	if (!h)
		return -ENOMEM;
	CURLUcode rc = fn->url_set(h, CURLUPART_URL, s, 0);
	int ret = rc ? failure(fn, rc) : get_parts(fn, h, u);
	fn->url_cleanup(h);
	if (ret)
		lp_url_free(u);
	return ret;
}

char *lp_url_build(const struct lp_url *u)
{
	const struct lp_curl *fn = lp_curl_load();
	if (!fn)
		return NULL;
	CURLU *h = fn->url();
	if (!h)
		return errno = ENOMEM, NULL;
	int ret = 0;
	for (int i = 0; i < LP_URL_NPARTS && !ret; i++) {
		CURLUcode rc = u->part[i] ? fn->url_set(h, curl_part[i], u->part[i], 0) : CURLUE_OK;
		if (rc)
			ret = failure(fn, rc);
	}
	char *p = NULL, *out = NULL;
	CURLUcode rc = ret ? CURLUE_OK : fn->url_get(h, CURLUPART_URL, &p, 0);
	if (!ret && rc)
		ret = failure(fn, rc);
	if (!ret && !(out = strdup(p)))
		ret = -ENOMEM;
	if (p)
		fn->free(p);
	fn->url_cleanup(h);
	if (ret)
		errno = -ret;
	return out;
}

/* Appends n bytes of s to out (size bytes) at *len, control characters as
 * '?'; *len counts what did not fit too. */
static void put(char *out, size_t size, size_t *len, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++, (*len)++) {
		unsigned char c = (unsigned char)s[i];
		if (*len + 1 < size)
			out[*len] = c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	if (size)
		out[*len < size ? *len : size - 1] = '\0';
}

size_t lp_url_shown_text(const char *s, char *out, size_t size)
{
	size_t end = strcspn(s, "?#"), len = 0;         /* the query and fragment go */
	const char *sep = strstr(s, "://");
	size_t scheme = sep && (size_t)(sep - s) < end ? (size_t)(sep - s) + 3 : 0, body = scheme;
	for (size_t i = scheme; i < end; i++)
		if (s[i] == '@')
			body = i + 1;           /* after the last '@': the host on */
	if (size)
		out[0] = '\0';
	put(out, size, &len, s, scheme);
	put(out, size, &len, s + body, end - body);
	return len;
}

/* The URL of h without its credentials, query and fragment, malloc'd by
 * libcurl into *p; false when libcurl would not. */
static bool shown_curl(const struct lp_curl *fn, CURLU *h, const char *s, char **p)
{
	static const CURLUPart drop[] = { CURLUPART_USER, CURLUPART_PASSWORD, CURLUPART_OPTIONS,
					  CURLUPART_QUERY, CURLUPART_FRAGMENT };
	if (fn->url_set(h, CURLUPART_URL, s, 0))
		return false;
	for (size_t i = 0; i < sizeof drop / sizeof drop[0]; i++)
		if (fn->url_set(h, drop[i], NULL, 0))
			return false;
	return !fn->url_get(h, CURLUPART_URL, p, 0);
}

size_t lp_url_shown(const char *s, char *out, size_t size)
{
	const struct lp_curl *fn = lp_curl_load();
	CURLU *h = fn ? fn->url() : NULL;
	char *p = NULL;
	size_t len = 0;

	if (h && shown_curl(fn, h, s, &p)) {
		if (size)
			out[0] = '\0';
		put(out, size, &len, p, strlen(p));
	} else {
		len = lp_url_shown_text(s, out, size);
	}
	if (p)
		fn->free(p);
	if (h)
		fn->url_cleanup(h);
	return len;
}
