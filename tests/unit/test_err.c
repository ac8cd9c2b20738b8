/* test_err.c - the core's error channel (core/util/err.c): lp_err returns
 * its code and keeps the message, one line, for lp_last_error(); a message
 * may quote the one before it; lp_err_null sets errno; lp_err_clear
 * forgets; a long message is cut at LP_ERRMSG_MAX; each thread has its
 * own last error; the log hook sees each message at LP_DEBUG. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "luaprof/err.h"
#include "test.h"

static void code_and_message(void)
{
	TEST_EQ(lp_err(-EINVAL, "bad event '%s': %d", "x", 3), -EINVAL);
	TEST_STREQ(lp_last_error(), "bad event 'x': 3");
	TEST_EQ(lp_err(-ENOENT, "two\nlines\tand a tab"), -ENOENT);
	TEST_STREQ(lp_last_error(), "two?lines?and a tab");
	lp_err_clear();
	TEST_STREQ(lp_last_error(), "");
	errno = 0;
	TEST_TRUE(lp_err_null(-ENOMEM, "out of memory") == NULL);
	TEST_EQ(errno, ENOMEM);
	TEST_STREQ(lp_last_error(), "out of memory");
}

static void context_added(void)
{
	lp_err(-EPROTO, "record too short");
	TEST_EQ(lp_err(-EPROTO, "%s: offset %d: %s", "perf.data", 64, lp_last_error()), -EPROTO);
	TEST_STREQ(lp_last_error(), "perf.data: offset 64: record too short");
	lp_err(-EPROTO, "again: %s", lp_last_error());
	TEST_STREQ(lp_last_error(), "again: perf.data: offset 64: record too short");
}

static void long_message_cut(void)
{
	size_t n = LP_ERRMSG_MAX * 2;
	char *big = malloc(n + 1);
	TEST_TRUE(big != NULL);
	if (!big)
		return;
	memset(big, 'a', n);
	big[n] = '\0';
	lp_err(-E2BIG, "%s", big);
	TEST_EQ(strlen(lp_last_error()), LP_ERRMSG_MAX - 1);
	free(big);
}

static void *other_thread(void *arg)
{
	(void)arg;
	lp_err(-EIO, "the other thread's");
	return strcmp(lp_last_error(), "the other thread's") ? (void *)1 : NULL;
}

static void per_thread(void)
{
	pthread_t t;
	void *bad = (void *)1;
	lp_err(-EINVAL, "this thread's");
	TEST_EQ(pthread_create(&t, NULL, other_thread, NULL), 0);
	pthread_join(t, &bad);
	TEST_TRUE(bad == NULL);
	TEST_STREQ(lp_last_error(), "this thread's");
}

static int nr_debug;
static char last_debug[64];

static void on_log(enum lp_log_level level, const char *msg, void *ctx)
{
	(void)ctx;
	if (level != LP_DEBUG)
		return;
	nr_debug++;
	snprintf(last_debug, sizeof last_debug, "%s", msg);
}

static void log_hook_sees_it(void)
{
	lp_log_set_hook(on_log, NULL);
	lp_err(-EACCES, "not allowed");
	lp_log_set_hook(NULL, NULL);
	TEST_EQ(nr_debug, 1);
	TEST_STREQ(last_debug, "not allowed");
}

TEST_MAIN("err",
	TEST_CASE(code_and_message),
	TEST_CASE(context_added),
	TEST_CASE(long_message_cut),
	TEST_CASE(per_thread),
	TEST_CASE(log_hook_sees_it))
