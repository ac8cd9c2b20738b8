/*
 * push.c - the sender of push.h: a bounded queue of HTTP requests and one
 * thread that sends them with libcurl.
 *
 * Invariants:
 *  - the queue is a ring of opts.backlog slots; its head is the request
 *    being tried (or next to be), and stays in the queue until it is sent
 *    or given up, so lp_push_post never drops the request under way;
 *  - the sender owns the curl handle; the caller's thread only touches the
 *    queue, the events and the counts, under mu;
 *  - an event is made on a change of state only (see note_*), so a server
 *    down for an hour makes one line, not one per period.
 *
 * Workload: one request per period (seconds to minutes apart), of a few
 * KB to a few MB; nothing here runs per sample.
 *
 * Secrets: a request's URL may carry credentials (user and password, a
 * token in its query).  Events hold it as lp_url_shown gives it, without
 * them, computed once when the request is posted.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "luaprof/push.h"
#include "luaprof/thread.h"
#include "luaprof/url.h"
#include "push/curlsym.h"

#define NR_EVENTS 32
#define ANSWER_MAX 255          /* the first line of an answer kept, at most */

#define KEY_LEN 36              /* a UUID's text */

struct request {
	char *url;
	char *shown;            /* url without its credentials (lp_url_shown) */
	char *content_type;
	void *body;
	size_t len;
	unsigned attempts;      /* answered 408/429/5xx so far */
	char key[KEY_LEN + 1];  /* its Idempotency-Key, the same on every attempt */
};

struct lp_push {
	struct lp_push_opts o;
	pthread_t thread;
	bool started;
	pthread_mutex_t mu;
	pthread_cond_t wake;    /* the sender: a request came, or hurry, or quit */
	pthread_cond_t done;    /* lp_push_flush: the queue emptied */
	struct request *q;      /* o.backlog slots */
	size_t head, count;
	uint64_t next_try;      /* CLOCK_MONOTONIC ns before which the head waits */
	uint64_t wait_ns;       /* the next wait before a retry */
	bool quit;
	/* the state the events tell of */
	bool failing;           /* the last attempt failed */
	bool dropping;          /* the last post found the backlog full */
	long last_status;       /* of the last refusal event, 0: none since a success */
	char last_text[ANSWER_MAX + 1];
	struct lp_push_event ev[NR_EVENTS];
	size_t ev_head, ev_count;
	uint64_t ev_lost;
	struct lp_push_stats st;
	/* the sender's own */
	const struct lp_curl *curl_fn;       /* libcurl, opened at the first sender */
	CURL *curl;
	char errbuf[CURL_ERROR_SIZE];
	char answer[ANSWER_MAX + 1];
	size_t answer_len;
	bool answer_done;       /* the first line is complete */
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void request_free(struct request *r)
{
	free(r->url);
	free(r->shown);
	free(r->content_type);
	free(r->body);
	memset(r, 0, sizeof *r);
}

/* ------------------------------------------------------------- events */

/* Adds an event (under mu) about the request to url (its shown form);
 * the oldest goes when NR_EVENTS wait. */
static void event_add(struct lp_push *p, enum lp_push_kind kind, const char *url, long status,
		      int retry, const char *text)
{
	if (p->ev_count == NR_EVENTS) {
		p->ev_head = (p->ev_head + 1) % NR_EVENTS;
		p->ev_count--;
		p->ev_lost++;
	}
	struct lp_push_event *e = &p->ev[(p->ev_head + p->ev_count++) % NR_EVENTS];
	memset(e, 0, sizeof *e);
	e->kind = kind;
	e->status = status;
	e->retry = retry;
	if (url)
		snprintf(e->url, sizeof e->url, "%s", url);
	snprintf(e->text, sizeof e->text, "%s", text ? text : "");
}

static void note_unreachable(struct lp_push *p, const char *url, const char *err)
{
	if (!p->failing || p->last_status)
		event_add(p, LP_PUSH_UNREACHABLE, url, 0, 1, err);
	p->failing = true;
	p->last_status = 0;
}

static void note_refused(struct lp_push *p, const char *url, long status, int retry, const char *text)
{
	if (p->last_status != status || strcmp(p->last_text, text))
		event_add(p, LP_PUSH_REFUSED, url, status, retry, text);
	p->failing = true;
	p->last_status = status;
	snprintf(p->last_text, sizeof p->last_text, "%s", text);
}

static void note_sent(struct lp_push *p, const char *url)
{
	if (p->failing)
		event_add(p, LP_PUSH_BACK, url, 0, 0, NULL);
	p->failing = false;
	p->last_status = 0;
	p->last_text[0] = '\0';
}

/* ------------------------------------------------------------- sending */

/* Keeps the first line of the answer, printable, for a refusal's event. */
static size_t on_answer(char *data, size_t size, size_t n, void *ctx)
{
	struct lp_push *p = ctx;
	for (size_t i = 0; i < size * n && !p->answer_done; i++) {
		unsigned char c = (unsigned char)data[i];
		if (c == '\n' || c == '\r') {
			p->answer_done = p->answer_len > 0;
			continue;
		}
		if (p->answer_len < ANSWER_MAX)
			p->answer[p->answer_len++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	p->answer[p->answer_len] = '\0';
	return size * n;
}

/* Abandons an attempt when the sender is told to quit. */
static int on_progress(void *ctx, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	(void)dt, (void)dn, (void)ut, (void)un;
	struct lp_push *p = ctx;
	pthread_mutex_lock(&p->mu);
	bool quit = p->quit;
	pthread_mutex_unlock(&p->mu);
	return quit;
}

/* One attempt of r: the HTTP status, or 0 when no answer came (errbuf
 * says why). */
static long attempt(struct lp_push *p, const struct request *r)
{
	char ct[512], key[64];
	snprintf(ct, sizeof ct, "Content-Type: %s", r->content_type);
	snprintf(key, sizeof key, "Idempotency-Key: \"%s\"", r->key);
	struct curl_slist *hdr = p->curl_fn->slist_append(NULL, ct);
	hdr = hdr ? p->curl_fn->slist_append(hdr, "Expect:") : NULL;   /* no 100-continue round trip */
	hdr = hdr ? p->curl_fn->slist_append(hdr, key) : NULL;
	if (!hdr) {
		snprintf(p->errbuf, sizeof p->errbuf, "out of memory");
		return 0;
	}
	p->errbuf[0] = '\0';
	p->answer_len = 0;
	p->answer[0] = '\0';
	p->answer_done = false;
	p->curl_fn->easy_setopt(p->curl, CURLOPT_URL, r->url);
	p->curl_fn->easy_setopt(p->curl, CURLOPT_HTTPHEADER, hdr);
	p->curl_fn->easy_setopt(p->curl, CURLOPT_POSTFIELDS, r->body ? r->body : "");
	p->curl_fn->easy_setopt(p->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)r->len);
	CURLcode rc = p->curl_fn->easy_perform(p->curl);
	long status = 0;
	if (rc == CURLE_OK)
		p->curl_fn->easy_getinfo(p->curl, CURLINFO_RESPONSE_CODE, &status);
	else if (!p->errbuf[0])
		snprintf(p->errbuf, sizeof p->errbuf, "%s", p->curl_fn->easy_strerror(rc));
	p->curl_fn->easy_setopt(p->curl, CURLOPT_HTTPHEADER, NULL);
	p->curl_fn->slist_free_all(hdr);
	return status;
}

static bool retryable(long status)
{
	return status == 408 || status == 429 || (status >= 500 && status <= 599);
}

/* Settles the head after an attempt that got status (under mu). */
static void settle(struct lp_push *p, long status)
{
	struct request *r = &p->q[p->head];
	bool drop = false;
	if (status >= 200 && status <= 299) {
		p->st.sent++;
		note_sent(p, r->shown);
		p->wait_ns = p->o.retry_ns;
		drop = true;
	} else {
		p->st.attempts_failed++;
		bool again = !status || (retryable(status) && ++r->attempts < p->o.attempts);
		if (!status)
			note_unreachable(p, r->shown, p->errbuf);
		else
			note_refused(p, r->shown, status, again, p->answer);
		if (again) {
			p->next_try = now_ns() + p->wait_ns;
			p->wait_ns = p->wait_ns * 2 > p->o.retry_max_ns ? p->o.retry_max_ns : p->wait_ns * 2;
		} else {
			p->st.refused++;
			drop = true;
		}
	}
	if (drop) {
		request_free(r);
		p->head = (p->head + 1) % p->o.backlog;
		if (!--p->count)
			pthread_cond_broadcast(&p->done);
	}
}

/* Waits (under mu) until the head may be tried or quit; false on quit. */
static bool wait_turn(struct lp_push *p)
{
	for (;;) {
		if (p->quit)
			return false;
		uint64_t t = now_ns();
		if (p->count && t >= p->next_try)
			return true;
		if (!p->count) {
			pthread_cond_wait(&p->wake, &p->mu);
			continue;
		}
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		uint64_t ns = (uint64_t)until.tv_nsec + (p->next_try - t);
		until.tv_sec += (time_t)(ns / 1000000000u);
		until.tv_nsec = (long)(ns % 1000000000u);
		pthread_cond_timedwait(&p->wake, &p->mu, &until);
	}
}

static void *sender(void *arg)
{
	struct lp_push *p = arg;
	pthread_mutex_lock(&p->mu);
	while (wait_turn(p)) {
		struct request r = p->q[p->head];      /* the slot stays put while unlocked */
		pthread_mutex_unlock(&p->mu);
		long status = attempt(p, &r);
		pthread_mutex_lock(&p->mu);
		if (p->quit)
			break;
		settle(p, status);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* ------------------------------------------------------------ lifecycle */

static void defaults(struct lp_push_opts *o)
{
	if (!o->backlog)
		o->backlog = 1;
	if (!o->timeout_ms)
		o->timeout_ms = 10000;
	if (!o->retry_ns)
		o->retry_ns = 500000000u;
	if (!o->retry_max_ns)
		o->retry_max_ns = 30000000000u;
	if (o->retry_max_ns < o->retry_ns)
		o->retry_max_ns = o->retry_ns;
	if (!o->attempts)
		o->attempts = 3;
}

static int curl_setup(struct lp_push *p)
{
	if (!(p->curl = p->curl_fn->easy_init()))
		return -ENOMEM;
	CURL *c = p->curl;
	p->curl_fn->easy_setopt(c, CURLOPT_NOSIGNAL, 1L);              /* a thread of a program with signals */
	p->curl_fn->easy_setopt(c, CURLOPT_ERRORBUFFER, p->errbuf);
	p->curl_fn->easy_setopt(c, CURLOPT_TIMEOUT_MS, p->o.timeout_ms);
	p->curl_fn->easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, p->o.timeout_ms);
	p->curl_fn->easy_setopt(c, CURLOPT_WRITEFUNCTION, on_answer);
	p->curl_fn->easy_setopt(c, CURLOPT_WRITEDATA, p);
	p->curl_fn->easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	p->curl_fn->easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
	p->curl_fn->easy_setopt(c, CURLOPT_XFERINFODATA, p);
#if LIBCURL_VERSION_NUM >= 0x075500      /* 7.85: CURLOPT_PROTOCOLS is deprecated */
	p->curl_fn->easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	p->curl_fn->easy_setopt(c, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	p->curl_fn->easy_setopt(c, CURLOPT_USERAGENT, "luaprof");
	/* credentials for a URL without them from ~/.netrc (machine HOST login
	 * USER password TOKEN): a command line is every user's to read (ps) */
	p->curl_fn->easy_setopt(c, CURLOPT_NETRC, (long)CURL_NETRC_OPTIONAL);
	return 0;
}

/* Starts the sender with every signal blocked: they are the main thread's. */
static int start(struct lp_push *p)
{
	int rc = lp_thread_start(&p->thread, sender, p);
	if (rc)
		return rc;
	p->started = true;
	return 0;
}

struct lp_push *lp_push_new(const struct lp_push_opts *opts)
{
	const struct lp_curl *fn = lp_curl_load();
	if (!fn)
		return NULL;
	struct lp_push *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->curl_fn = fn;
	if (opts)
		p->o = *opts;
	defaults(&p->o);
	p->wait_ns = p->o.retry_ns;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->wake, NULL);
	pthread_cond_init(&p->done, NULL);
	int rc = -ENOMEM;
	if (!(p->q = calloc(p->o.backlog, sizeof *p->q)) || (rc = curl_setup(p)) || (rc = start(p))) {
		lp_push_free(p);
		return errno = -rc, NULL;
	}
	return p;
}

static char *dup_mem(const void *s, size_t n, bool nul)
{
	char *d = malloc(n + nul);
	if (d) {
		memcpy(d, s, n);
		if (nul)
			d[n] = '\0';
	}
	return d;
}

/* A random (version 4) UUID into key, KEY_LEN + 1 bytes: the request's
 * Idempotency-Key.  A getrandom that fails (a kernel before 3.17) leaves
 * the clock and a count: unique within the process, which is what a
 * retry needs. */
static void new_key(char *key)
{
	static unsigned long count;
	uint8_t b[16];
	struct timespec t;
	if (getrandom(b, sizeof b, GRND_NONBLOCK) != (ssize_t)sizeof b) {
		clock_gettime(CLOCK_REALTIME, &t);
		uint64_t v[2] = { (uint64_t)t.tv_sec << 32 ^ (uint64_t)t.tv_nsec,
				  (uint64_t)getpid() << 32 ^ __atomic_add_fetch(&count, 1, __ATOMIC_RELAXED) };
		memcpy(b, v, sizeof b);
	}
	b[6] = (uint8_t)((b[6] & 0x0f) | 0x40);         /* version 4 */
	b[8] = (uint8_t)((b[8] & 0x3f) | 0x80);         /* the RFC 4122 variant */
	char *o = key;
	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			*o++ = '-';
		o += sprintf(o, "%02x", b[i]);
	}
}

int lp_push_post(struct lp_push *p, const char *url, const char *content_type,
		 const void *body, size_t len)
{
	struct request r = { 0 };
	char shown[sizeof ((struct lp_push_event *)0)->url];
	lp_url_shown(url, shown, sizeof shown);
	r.url = dup_mem(url, strlen(url), true);
	r.shown = dup_mem(shown, strlen(shown), true);
	r.content_type = dup_mem(content_type, strlen(content_type), true);
	r.body = dup_mem(body, len, false);
	r.len = len;
	new_key(r.key);
	if (!r.url || !r.shown || !r.content_type || (!r.body && len)) {
		request_free(&r);
		return -ENOMEM;
	}
	pthread_mutex_lock(&p->mu);
	p->st.posted++;
	int rc = 0;
	if (p->count == p->o.backlog) {
		p->st.dropped++;
		if (!p->dropping)
			event_add(p, LP_PUSH_FULL, r.shown, 0, 0, NULL);
		p->dropping = true;
		request_free(&r);
		rc = -ENOBUFS;
	} else {
		p->q[(p->head + p->count++) % p->o.backlog] = r;
		p->dropping = false;
		pthread_cond_signal(&p->wake);
	}
	pthread_mutex_unlock(&p->mu);
	return rc;
}

size_t lp_push_events(struct lp_push *p, struct lp_push_event *out, size_t max, uint64_t *lost)
{
	pthread_mutex_lock(&p->mu);
	size_t n = 0;
	for (; n < max && p->ev_count; n++, p->ev_count--) {
		out[n] = p->ev[p->ev_head];
		p->ev_head = (p->ev_head + 1) % NR_EVENTS;
	}
	if (lost)
		*lost = p->ev_lost;
	p->ev_lost = 0;
	pthread_mutex_unlock(&p->mu);
	return n;
}

void lp_push_stats(struct lp_push *p, struct lp_push_stats *st)
{
	pthread_mutex_lock(&p->mu);
	*st = p->st;
	st->waiting = p->count;
	pthread_mutex_unlock(&p->mu);
}

#define FLUSH_SLICE_NS 100000000u       /* how often a flush looks at *stop */

/* CLOCK_REALTIME (the condition variable's) ns from now. */
static struct timespec realtime_in(uint64_t ns)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	ns += (uint64_t)t.tv_nsec;
	t.tv_sec += (time_t)(ns / 1000000000u);
	t.tv_nsec = (long)(ns % 1000000000u);
	return t;
}

int lp_push_flush(struct lp_push *p, uint64_t wait_ns, const volatile sig_atomic_t *stop)
{
	uint64_t end = now_ns() + wait_ns;
	pthread_mutex_lock(&p->mu);
	p->next_try = 0;
	pthread_cond_signal(&p->wake);
	int rc = 0;
	for (uint64_t now = now_ns(); p->count && now < end && !(stop && *stop); now = now_ns()) {
		struct timespec until = realtime_in(end - now < FLUSH_SLICE_NS ? end - now : FLUSH_SLICE_NS);
		pthread_cond_timedwait(&p->done, &p->mu, &until);
	}
	if (p->count)
		rc = stop && *stop ? -EINTR : -ETIMEDOUT;
	pthread_mutex_unlock(&p->mu);
	return rc;
}

void lp_push_free(struct lp_push *p)
{
	if (!p)
		return;
	if (p->started) {
		pthread_mutex_lock(&p->mu);
		p->quit = true;
		pthread_cond_signal(&p->wake);
		pthread_mutex_unlock(&p->mu);
		pthread_join(p->thread, NULL);
	}
	if (p->curl)
		p->curl_fn->easy_cleanup(p->curl);
	for (size_t i = 0; p->q && i < p->count; i++)
		request_free(&p->q[(p->head + i) % p->o.backlog]);
	free(p->q);
	pthread_cond_destroy(&p->wake);
	pthread_cond_destroy(&p->done);
	pthread_mutex_destroy(&p->mu);
	free(p);
}
