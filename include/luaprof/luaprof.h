/* Part of include/luaprof/: the core's interface to the layer above it (lua/). */
/*
 * luaprof.h - umbrella header of the luaprof core library (core/).
 *
 * The core is plain C: it opens perf events, drains ring buffers, decodes
 * records, tracks processes and resolves symbols.  It never prints and never
 * exits; every diagnostic goes through lp_log(), whose sink the program
 * chooses with lp_log_set_hook().
 *
 * Error convention (everywhere in core/): int-returning functions return 0 or
 * a negative errno; pointer constructors return NULL and set errno.
 */
#ifndef LUAPROF_H
#define LUAPROF_H

#include <stdarg.h>

#define LP_VERSION "0.1.0"

/* The size of a buffer for the one-line messages the core writes into a
 * caller's err: they may quote a path or an event string (up to
 * LP_EVENT_STR_MAX, 4352) three times, with the reason and the fix. */
#define LP_ERRMSG_MAX (3 * 4352 + 512)

enum lp_log_level { LP_ERROR, LP_WARN, LP_INFO, LP_DEBUG };

typedef void (*lp_log_fn)(enum lp_log_level level, const char *msg, void *ctx);

/* Routes core diagnostics to fn (NULL restores the default, which drops
 * everything).  ctx is passed back untouched. */
void lp_log_set_hook(lp_log_fn fn, void *ctx);

/* Formats a diagnostic and hands it to the hook.  Messages name the module,
 * the object and the cause: "ring: mmap cpu 3 (fd 7): Cannot allocate memory". */
void lp_log(enum lp_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Makes msg one line in place: control characters (a newline in an event
 * name or filter that a message echoes) become '?'.  Returns msg. */
char *lp_one_line(char *msg);

#endif
