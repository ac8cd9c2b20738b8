/*
 * curlsym.h - libcurl, loaded when the first sender starts (curlsym.c).
 *
 * Linking libcurl costs every run of luaprof its load and the constructors
 * of what it pulls in (TLS, Kerberos, LDAP: 28 libraries), though only a
 * pushing run (pprof --push) uses it: linked, it took most of a start's
 * time (docs/performance.md, "Measured choices in the code").  So
 * libcurl is opened with dlopen at the first lp_push_new, and called
 * through this table; the build still needs its headers.
 */
#ifndef LP_PUSH_CURLSYM_H
#define LP_PUSH_CURLSYM_H

#include <curl/curl.h>

struct lp_curl {
	CURLcode (*global_init)(long flags);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *c, CURLoption opt, ...);
	CURLcode (*easy_perform)(CURL *c);
	CURLcode (*easy_getinfo)(CURL *c, CURLINFO info, ...);
	const char *(*easy_strerror)(CURLcode rc);
	void (*easy_cleanup)(CURL *c);
	struct curl_slist *(*slist_append)(struct curl_slist *l, const char *s);
	void (*slist_free_all)(struct curl_slist *l);
	/* the URL API (url.c) */
	CURLU *(*url)(void);
	void (*url_cleanup)(CURLU *u);
	CURLUcode (*url_set)(CURLU *u, CURLUPart what, const char *part, unsigned int flags);
	CURLUcode (*url_get)(const CURLU *u, CURLUPart what, char **part, unsigned int flags);
	void (*free)(void *p);
	const char *(*url_strerror)(CURLUcode rc);      /* NULL before libcurl 7.80 */
};

/* Loads libcurl (once per process, thread-safe) and runs its global
 * initialisation.  Returns the table, valid for the life of the process,
 * or NULL with errno set: ELIBACC when the library or one of its
 * functions is missing (install libcurl4: make deps; url_strerror alone
 * may be missing, then NULL), else what curl_global_init failed with
 * (ENOMEM). */
const struct lp_curl *lp_curl_load(void);

#endif
