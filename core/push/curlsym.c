/*
 * curlsym.c - libcurl opened at its first use (see curlsym.h).
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "push/curlsym.h"

/* The library's name as Debian's libcurl4 (OpenSSL) installs it, then
 * libcurl3-gnutls's, whose ABI is the same. */
static const char *const libnames[] = { "libcurl.so.4", "libcurl-gnutls.so.4" };

static const struct { const char *name; size_t off; bool optional; } syms[] = {
	{ "curl_global_init", offsetof(struct lp_curl, global_init) },
	{ "curl_easy_init", offsetof(struct lp_curl, easy_init) },
	{ "curl_easy_setopt", offsetof(struct lp_curl, easy_setopt) },
	{ "curl_easy_perform", offsetof(struct lp_curl, easy_perform) },
	{ "curl_easy_getinfo", offsetof(struct lp_curl, easy_getinfo) },
	{ "curl_easy_strerror", offsetof(struct lp_curl, easy_strerror) },
	{ "curl_easy_cleanup", offsetof(struct lp_curl, easy_cleanup) },
	{ "curl_slist_append", offsetof(struct lp_curl, slist_append) },
	{ "curl_slist_free_all", offsetof(struct lp_curl, slist_free_all) },
	{ "curl_url", offsetof(struct lp_curl, url) },
	{ "curl_url_cleanup", offsetof(struct lp_curl, url_cleanup) },
	{ "curl_url_set", offsetof(struct lp_curl, url_set) },
	{ "curl_url_get", offsetof(struct lp_curl, url_get) },
	{ "curl_free", offsetof(struct lp_curl, free) },
	{ "curl_url_strerror", offsetof(struct lp_curl, url_strerror), true },    /* 7.80 */
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct lp_curl curl;
static int load_err;            /* 0 once curl is usable, else an errno */

static void load(void)
{
	void *h = NULL;
	for (size_t i = 0; !h && i < sizeof libnames / sizeof libnames[0]; i++)
		h = dlopen(libnames[i], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		load_err = ELIBACC;
		return;
	}
	for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
		void *f = dlsym(h, syms[i].name);
		if (!f && syms[i].optional)
			continue;
		if (!f) {
			load_err = ELIBACC;
			return;         /* h stays open: the process may try no more */
		}
		/* a function pointer from dlsym's object pointer (POSIX allows it) */
		*(void **)((char *)&curl + syms[i].off) = f;
	}
	load_err = curl.global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? 0 : ENOMEM;
}

const struct lp_curl *lp_curl_load(void)
{
	pthread_once(&once, load);
	if (load_err)
		return errno = load_err, NULL;
	return &curl;
}
