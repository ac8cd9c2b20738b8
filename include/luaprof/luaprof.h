/* Part of include/luaprof/: the core's interface to the layer above it (lua/). */
/*
 * luaprof.h - umbrella header of the luaprof core library (core/).
 *
 * The core is plain C: it opens perf events, drains ring buffers, decodes
 * records, tracks processes and resolves symbols.  It never prints and never
 * exits.  Errors have one channel (err.h): int-returning functions return 0
 * or a negative errno, pointer constructors NULL with errno set, and where
 * a person is to read why, the failure site words it with lp_err() for the
 * caller to read from lp_last_error().  Warnings, which stop nothing, go
 * through lp_log(), whose sink the program chooses with lp_log_set_hook().
 */
#ifndef LUAPROF_H
#define LUAPROF_H

#include <stdarg.h>

#define LP_VERSION "0.1.0"

/* The size of the one-line messages the core words (lp_err, err.h).  The
 * values they quote are shown by lp_show (a few dozen bytes each), so a
 * message with its reason and its fix fits many times over; the room left
 * is for what the core lists itself (a PMU's terms, a program's USDT
 * probes). */
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

/* How a message quotes a value from outside (an option's value, a path,
 * an event string, a script's name): whole when it has at most
 * LP_SHOW_MAX bytes, else its first LP_SHOW_HEAD and last LP_SHOW_TAIL
 * bytes (fewer, not to split a UTF-8 character) around its length,
 *   'cpu-clock/name=xxxxxxxxxxxxxxxxxxxxxxxxx...[100016 bytes]...xxxxxxxxxxxxxxxxxxxxxxx/'
 * and control characters as '?', so that a message stays one line of a
 * bounded length and keeps its reason whatever it quotes.  Every message
 * that quotes a value it did not make shows it this way. */
#define LP_SHOW_MAX 80
#define LP_SHOW_HEAD 40
#define LP_SHOW_TAIL 24
struct lp_shown {
	char s[LP_SHOW_HEAD + LP_SHOW_TAIL + 48];       /* the marker's 48 */
};

/* Writes the value (len bytes at value; NULL shows as "") as messages show
 * it into *out, which the caller owns, and returns out->s. */
const char *lp_show_n(const char *value, size_t len, struct lp_shown *out);
/* lp_show_n of the string value. */
const char *lp_show(const char *value, struct lp_shown *out);
/* The shown value in a struct lp_shown that lives until the end of the
 * enclosing block: fail("bad value '%s'", LP_SHOW(v)). */
#define LP_SHOW(v) lp_show((v), &(struct lp_shown){ .s = { 0 } })
#define LP_SHOW_N(v, n) lp_show_n((v), (n), &(struct lp_shown){ .s = { 0 } })

/* Makes msg one line in place: control characters (a newline in an event
 * name or filter that a message echoes) become '?'.  Returns msg. */
char *lp_one_line(char *msg);

#endif
