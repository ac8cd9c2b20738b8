/* Part of include/luaprof/: the core's interface to the layer above it (lua/). */
/*
 * err.h - how core/ reports a failure: one channel, as libbpf's.
 *
 * A core function that fails returns a negative errno (int functions) or
 * NULL with errno set (constructors).  Where a person is to read why, the
 * function also words it, at the failure site, with lp_err(): one line
 * naming the problem and the fix, kept in a per-thread last-error buffer
 * that the layer above reads with lp_last_error() when it prints it.  The
 * core never prints: a message reaches the user only through its caller.
 *
 * Every public function's contract comment says which of the two it
 * gives: "-errno" alone (the caller words the message from the code), or
 * "-errno with the message in lp_last_error()" (the function sets it at
 * each of its failures, so the caller needs no fallback).  The message is
 * that of the calling thread's last failure: read it right after the
 * failing call, before calling into the core again.  A function that fails
 * and then recovers (a fallback, an optional file) may have left a message
 * behind: lp_last_error() means something only after a failure whose
 * contract promises one.
 *
 * Warnings that do not stop an operation (a malformed feature skipped, a
 * probe not removed) are not errors: they go through lp_log() (luaprof.h)
 * to the program's log hook.
 */
#ifndef LUAPROF_ERR_H
#define LUAPROF_ERR_H

#include "luaprof/luaprof.h"

/* Words the failure code (a negative errno) in the calling thread's
 * last-error buffer, made one line (lp_one_line) and cut to LP_ERRMSG_MAX
 * bytes, hands it to the log hook at LP_DEBUG, and returns code:
 *   return lp_err(-EINVAL, "bad event '%s': ...", LP_SHOW(item));
 * The arguments may include lp_last_error() itself, to add context to a
 * message set below: lp_err(rc, "%s: %s", path, lp_last_error()). */
int lp_err(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* lp_err with the arguments as a va_list. */
int lp_verr(int code, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/* lp_err for a constructor: sets errno to -code and returns NULL. */
void *lp_err_null(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The message of the calling thread's last lp_err ("" before any, or
 * after lp_err_clear).  It stays valid until the thread's next lp_err. */
const char *lp_last_error(void);

/* Forgets the calling thread's last message: lp_last_error() is "" until
 * the next lp_err. */
void lp_err_clear(void);

#endif
