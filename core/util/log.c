/*
 * log.c - the core's only diagnostic channel.  core/ never prints: messages
 * are formatted here and handed to the hook the program installed.  Every
 * message is one line, whatever text from outside it quotes.
 */
#include <stdio.h>

#include "luaprof/luaprof.h"

static lp_log_fn log_fn;
static void *log_ctx;

void lp_log_set_hook(lp_log_fn fn, void *ctx)
{
	log_fn = fn;
	log_ctx = ctx;
}

void lp_log(enum lp_log_level level, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (!log_fn)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	log_fn(level, lp_one_line(buf), log_ctx);
}

char *lp_one_line(char *msg)
{
	for (unsigned char *p = (unsigned char *)msg; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			*p = '?';
	return msg;
}
