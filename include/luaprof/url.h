/* Part of include/luaprof/: the core's interface to the layer above it (lua/). */
/*
 * url.h - URLs taken apart and put together by libcurl's URL API
 * (curl_url), and shown without their credentials.
 *
 * A push URL comes from the command line and may carry a secret: a user
 * and password (http://USER:TOKEN@HOST, basic authentication) or a token
 * in its query (?token=...).  lp_url_shown is the form every line luaprof
 * prints uses.  libcurl is the one parser here, the one that sends the
 * requests: a URL both agree on is a URL taken as the request will be.
 * libcurl is opened at the first call (push/curlsym.c).
 */
#ifndef LUAPROF_URL_H
#define LUAPROF_URL_H

#include <stddef.h>

/* A URL's parts, in libcurl's terms; each NULL when absent. */
enum lp_url_part {
	LP_URL_SCHEME, LP_URL_USER, LP_URL_PASSWORD, LP_URL_HOST, LP_URL_ZONEID,
	LP_URL_PORT, LP_URL_PATH, LP_URL_QUERY, LP_URL_FRAGMENT, LP_URL_NPARTS
};

struct lp_url {
	char *part[LP_URL_NPARTS];      /* malloc'd, as written in the URL (not decoded) */
};

/* The parts' names: "scheme", "user", "password", "host", "zoneid",
 * "port", "path", "query", "fragment". */
extern const char *const lp_url_part_names[LP_URL_NPARTS];

/* Takes the absolute URL s apart into *u (to be freed with lp_url_free;
 * left empty on failure).  The host is given as libcurl writes it (an
 * IPv6 address in brackets); the path is "/" when s has none.  0, or
 * -EINVAL with why in lp_last_error() (err.h; one phrase: libcurl's, such
 * as "Malformed input to a URL function"), -ELIBACC when libcurl cannot
 * be opened, -ENOMEM. */
int lp_url_parse(const char *s, struct lp_url *u);

/* Puts the parts of u (those not NULL) together into a new URL (free()
 * it), libcurl checking each.  NULL with errno EINVAL (and why in
 * lp_last_error()), ELIBACC or ENOMEM. */
char *lp_url_build(const struct lp_url *u);

/* Frees the parts; u is empty after. */
void lp_url_free(struct lp_url *u);

/* s as lines may show it, into out (size bytes, NUL-terminated, cut when
 * longer): without user, password, query and fragment
 * ("http://HOST:PORT/PATH").  A URL libcurl cannot take apart (or without
 * libcurl) is cut textually: its scheme, then what follows the last '@'
 * before the first '?' or '#', up to that; control characters become '?'.
 * Returns the length of the whole shown form. */
size_t lp_url_shown(const char *s, char *out, size_t size);

/* lp_url_shown's textual cut alone, whatever libcurl would say (for the
 * fuzz target; lp_url_shown is the one to call). */
size_t lp_url_shown_text(const char *s, char *out, size_t size);

#endif
