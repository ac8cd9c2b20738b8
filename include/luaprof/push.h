/* Part of include/luaprof/: the core's interface to the layer above it (lua/). */
/*
 * push.h - sending profiles to a server over HTTP, off the caller's thread.
 *
 * lp_push_new() starts a sender thread; lp_push_post() queues a copy of one
 * request (a POST of a body to a URL) and returns at once, whatever the
 * server does: a server that is slow, down or refusing never holds up the
 * caller (the thread that drains the rings and runs the script).  The
 * sender sends the queued requests in order, one at a time, with libcurl,
 * on one connection kept alive between them.
 *
 * The backlog: at most opts.backlog requests wait (the one being tried
 * included).  A request that finds the backlog full is dropped and counted,
 * as a continuous profiler's agent drops new profiles when its upload queue
 * is full: the requests kept are the oldest, sent in order once the server
 * takes them again.
 *
 * Retries: a request that cannot reach the server (no connection, a
 * timeout, a transfer cut short) is tried again, after a wait that doubles
 * from opts.retry_ns up to opts.retry_max_ns, for as long as it takes.  A
 * server's answer of 408, 429 or 5xx is tried again the same way up to
 * opts.attempts times in all; any other answer that is not 2xx is a
 * refusal of that request, which is dropped.
 *
 * Credentials: a URL's own (http://USER:PASSWORD@HOST), else those
 * ~/.netrc gives for its host (libcurl's CURL_NETRC_OPTIONAL), which keeps
 * them off the command line.
 *
 * Duplicates: an attempt that times out may have reached the server,
 * which then gets the request again.  Each request carries a header
 * Idempotency-Key: "UUID" (the IETF httpapi draft's name), random and the
 * same on every attempt of that request, by which a server or a proxy in
 * front of it can drop the second copy.
 *
 * The core prints nothing: what happened comes back as events
 * (lp_push_events), one per change (the server became unreachable, refused
 * with a new status or message, took requests again, the backlog filled),
 * not one per request, for the caller to say in a line.
 */
#ifndef LUAPROF_PUSH_H
#define LUAPROF_PUSH_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

struct lp_push;

struct lp_push_opts {
	size_t backlog;                 /* requests waiting, at most (0: 1) */
	long timeout_ms;                /* one attempt's limit, connecting included (0: 10 s) */
	uint64_t retry_ns;              /* the first wait before trying again (0: 0.5 s) */
	uint64_t retry_max_ns;          /* the longest (0: 30 s) */
	unsigned attempts;              /* tries of a request answered 408/429/5xx (0: 3) */
};

enum lp_push_kind {
	LP_PUSH_UNREACHABLE,            /* an attempt failed without an answer: text is libcurl's error */
	LP_PUSH_REFUSED,                /* the server answered status, not 2xx: text is the
					 * first line of its answer (the request is dropped,
					 * or tried again: see retry) */
	LP_PUSH_BACK,                   /* the server took a request after failures */
	LP_PUSH_FULL,                   /* the backlog was full: requests are being dropped */
};

struct lp_push_event {
	enum lp_push_kind kind;
	long status;                    /* LP_PUSH_REFUSED: the HTTP status */
	int retry;                      /* LP_PUSH_REFUSED: the request will be tried again */
	char url[256];                  /* the request's URL as lp_url_shown gives it: no
					 * credentials, query or fragment (cut at 255) */
	char text[256];                 /* see kind */
};

struct lp_push_stats {
	uint64_t posted;                /* lp_push_post calls */
	uint64_t sent;                  /* requests the server took (2xx) */
	uint64_t refused;               /* requests dropped after a refusal */
	uint64_t dropped;               /* requests dropped: the backlog was full */
	uint64_t attempts_failed;       /* attempts that failed, unreachable or refused */
	size_t waiting;                 /* requests in the backlog now */
};

/* Starts a sender with the options (NULL: every default); the first one
 * opens libcurl.  Returns it, to be freed with lp_push_free(), or NULL
 * with errno set: ELIBACC when libcurl cannot be opened, else ENOMEM, or
 * what libcurl's initialisation or pthread_create failed with. */
struct lp_push *lp_push_new(const struct lp_push_opts *opts);

/* Queues a POST of body (len bytes, copied) to url (an http:// or https://
 * URL, copied) with the Content-Type content_type and an Idempotency-Key
 * of its own, and returns: 0 when it
 * was queued, -ENOBUFS when the backlog was full (the request is dropped and
 * counted), -ENOMEM.  Never waits for the server. */
int lp_push_post(struct lp_push *p, const char *url, const char *content_type,
		 const void *body, size_t len);

/* Copies up to max events that happened since the last call into out,
 * oldest first, and returns how many.  Events beyond the 32 waiting to be
 * read are lost (the oldest first); *lost (may be NULL) gets their count
 * since the last call. */
size_t lp_push_events(struct lp_push *p, struct lp_push_event *out, size_t max, uint64_t *lost);

/* The counts so far. */
void lp_push_stats(struct lp_push *p, struct lp_push_stats *st);

/* Tries the waiting requests now (a wait before a retry is cut short once)
 * and waits until none is left, wait_ns passed, or *stop (when stop is not
 * NULL: a flag a signal handler sets) is nonzero, looked at every 100 ms
 * at most.  0 when none is left, -ETIMEDOUT or -EINTR otherwise. */
int lp_push_flush(struct lp_push *p, uint64_t wait_ns, const volatile sig_atomic_t *stop);

/* Stops the sender (an attempt under way is abandoned) and frees it and
 * the requests left unsent.  NULL is allowed. */
void lp_push_free(struct lp_push *p);

#endif
