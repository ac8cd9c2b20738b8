/* Part of include/luaprof/: the core's interface to the layer above it (lua/). */
/*
 * buf.h - a growable byte buffer, and JSON string escaping into one.
 */
#ifndef LUAPROF_BUF_H
#define LUAPROF_BUF_H

#include <stddef.h>
#include <stdint.h>

struct lp_buf {
	char *p;                /* NUL-terminated when len > 0 */
	size_t len, cap;
	int err;                /* -ENOMEM once an append failed; later appends do nothing */
};

/* Appends n bytes of s.  Errors stick in b->err (checked once at the end). */
void lp_buf_add(struct lp_buf *b, const void *s, size_t n);
void lp_buf_puts(struct lp_buf *b, const char *s);
void lp_buf_printf(struct lp_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Frees the bytes; the buffer is empty and usable again. */
void lp_buf_free(struct lp_buf *b);

/* Appends s (n bytes) as a JSON string with its quotes: ", \ and control
 * characters escaped, valid UTF-8 copied as is, and each byte that is not
 * part of a valid UTF-8 sequence (overlong forms, surrogates and code
 * points past U+10FFFF included) replaced by \ufffd. */
void lp_json_string(struct lp_buf *b, const char *s, size_t n);

/* Appends d the shortest way that reads back as the same double (%.15g,
 * %.16g or %.17g).  d must be finite. */
void lp_json_double(struct lp_buf *b, double d);

/* The length of the valid UTF-8 sequence at s (n bytes left), or 0. */
size_t lp_utf8_len(const unsigned char *s, size_t n);

#endif
