/* test_push.c - the sender's backlog against a port nothing listens on:
 * the requests kept are the first `backlog`, whatever the sender is doing
 * (the one it tries stays in the queue), the newer are dropped and
 * counted; one event per change of state (unreachable once, full once);
 * freeing with requests unsent; a flush that times out says so. */
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <sys/socket.h>

#include "luaprof/push.h"
#include "test.h"

/* A URL of a port of 127.0.0.1 that nothing listens on (bound, then closed). */
static void closed_port_url(char *url, size_t size)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t n = sizeof a;
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) || getsockname(fd, (struct sockaddr *)&a, &n))
		TEST_SKIP("no loopback socket: %s", strerror(errno));
	close(fd);
	snprintf(url, size, "http://127.0.0.1:%d/ingest?name=x", ntohs(a.sin_port));
}

static void backlog_bound(void)
{
	char url[128];
	closed_port_url(url, sizeof url);
	struct lp_push_opts o = { .backlog = 3, .timeout_ms = 2000, .retry_ns = 20000000 };
	struct lp_push *p = lp_push_new(&o);
	TEST_TRUE(p);
	for (int i = 0; i < 3; i++)
		TEST_EQ(lp_push_post(p, url, "binary/octet-stream", "abc", 3), 0);
	for (int i = 0; i < 4; i++)
		TEST_EQ(lp_push_post(p, url, "binary/octet-stream", "abc", 3), -ENOBUFS);
	TEST_EQ(lp_push_flush(p, 300000000, NULL), -ETIMEDOUT);
	struct lp_push_stats st;
	lp_push_stats(p, &st);
	TEST_EQ(st.posted, 7);
	TEST_EQ(st.dropped, 4);
	TEST_EQ(st.sent, 0);
	TEST_EQ(st.refused, 0);
	TEST_EQ(st.waiting, 3);
	TEST_TRUE(st.attempts_failed >= 1);
	struct lp_push_event ev[8];
	uint64_t lost = 1;
	size_t n = lp_push_events(p, ev, 8, &lost);
	TEST_EQ(lost, 0);
	size_t unreachable = 0, full = 0;
	for (size_t i = 0; i < n; i++) {
		unreachable += ev[i].kind == LP_PUSH_UNREACHABLE;
		full += ev[i].kind == LP_PUSH_FULL;
		TEST_TRUE(!strchr(ev[i].url, '?'));
	}
	TEST_EQ(unreachable, 1);
	TEST_EQ(full, 1);
	TEST_EQ(lp_push_events(p, ev, 8, NULL), 0);
	lp_push_free(p);
	lp_push_free(NULL);
}

static void defaults(void)
{
	struct lp_push *p = lp_push_new(NULL);
	TEST_TRUE(p);
	char url[128];
	closed_port_url(url, sizeof url);
	TEST_EQ(lp_push_post(p, url, "application/json", "{}", 2), 0);
	TEST_EQ(lp_push_post(p, url, "application/json", "{}", 2), -ENOBUFS);   /* backlog 1 */
	TEST_EQ(lp_push_flush(p, 0, NULL), -ETIMEDOUT);
	lp_push_free(p);
}

/* A flush stops waiting once its flag is set (a second Ctrl-C): at
 * once when set before, and within its 100 ms slice when set while it
 * waits, however long the wait it was given. */
static volatile sig_atomic_t stop_flag;

static void *set_stop(void *arg)
{
	(void)arg;
	struct timespec t = { 0, 150000000 };
	nanosleep(&t, NULL);
	stop_flag = 1;
	return NULL;
}

static void flush_stops(void)
{
	char url[128];
	closed_port_url(url, sizeof url);
	struct lp_push_opts o = { .backlog = 2, .timeout_ms = 2000, .retry_ns = 20000000 };
	struct lp_push *p = lp_push_new(&o);
	TEST_TRUE(p);
	TEST_EQ(lp_push_post(p, url, "binary/octet-stream", "abc", 3), 0);
	stop_flag = 1;
	TEST_EQ(lp_push_flush(p, 60000000000u, &stop_flag), -EINTR);
	stop_flag = 0;
	pthread_t t;
	TEST_EQ(pthread_create(&t, NULL, set_stop, NULL), 0);
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	TEST_EQ(lp_push_flush(p, 60000000000u, &stop_flag), -EINTR);
	clock_gettime(CLOCK_MONOTONIC, &b);
	pthread_join(t, NULL);
	TEST_TRUE(b.tv_sec - a.tv_sec < 30);    /* not the minute given */
	lp_push_free(p);
}

TEST_MAIN("push", TEST_CASE(backlog_bound), TEST_CASE(defaults), TEST_CASE(flush_stops))
