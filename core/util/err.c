/*
 * err.c - the core's error channel (include/luaprof/err.h): the failure
 * site words its error once, into a per-thread buffer, and returns the
 * code; the layer above reads the sentence when it prints it.  Two buffers
 * per thread, used in turn, so that a message may quote the one before it
 * (context added on the way up) without copying onto itself.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "luaprof/err.h"

static _Thread_local char msgs[2][LP_ERRMSG_MAX];
static _Thread_local unsigned cur;

/* Formats into the buffer not in use, then makes it the current one. */
__attribute__((format(printf, 2, 0)))
static int set(int code, const char *fmt, va_list ap)
{
	unsigned next = cur ^ 1;
	vsnprintf(msgs[next], sizeof msgs[next], fmt, ap);
	lp_one_line(msgs[next]);
	cur = next;
	lp_log(LP_DEBUG, "%s", msgs[next]);
	return code;
}

int lp_verr(int code, const char *fmt, va_list ap)
{
	return set(code, fmt, ap);
}

int lp_err(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	set(code, fmt, ap);
	va_end(ap);
	return code;
}

void *lp_err_null(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	set(code, fmt, ap);
	va_end(ap);
	errno = -code;
	return NULL;
}

const char *lp_last_error(void)
{
	return msgs[cur];
}

void lp_err_clear(void)
{
	msgs[cur][0] = '\0';
}
