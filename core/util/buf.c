/*
 * buf.c - growable byte buffers, and writing JSON strings and numbers
 * into them.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "luaprof/buf.h"

static int reserve(struct lp_buf *b, size_t n)
{
	if (b->err)
		return -1;
	if (b->len + n + 1 <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 4096;
	while (cap < b->len + n + 1) {
		if (cap > SIZE_MAX / 2)
			return b->err = -ENOMEM, -1;
		cap *= 2;
	}
	char *p = realloc(b->p, cap);
	if (!p)
		return b->err = -ENOMEM, -1;
	b->p = p;
	b->cap = cap;
	return 0;
}

void lp_buf_add(struct lp_buf *b, const void *s, size_t n)
{
	if (!n || reserve(b, n))
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void lp_buf_puts(struct lp_buf *b, const char *s)
{
	lp_buf_add(b, s, strlen(s));
}

void lp_buf_printf(struct lp_buf *b, const char *fmt, ...)
{
	va_list ap;
	char small[256];
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof small) {
		lp_buf_add(b, small, (size_t)n);
		return;
	}
	if (reserve(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void lp_buf_free(struct lp_buf *b)
{
	free(b->p);
	*b = (struct lp_buf){ 0 };
}

size_t lp_utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len;
	unsigned min;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, min = 0x10000;
	else
		return 0;
	if (n < len)
		return 0;
	unsigned cp = c & (0x3f >> (len - 1));
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

void lp_json_string(struct lp_buf *b, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	lp_buf_add(b, "\"", 1);
	size_t run = 0;                 /* bytes to copy as they are */
	for (size_t i = 0; i < n;) {
		unsigned c = s[i];
		size_t len = c >= 0x20 && c != '"' && c != '\\' ? lp_utf8_len(s + i, n - i) : 0;
		if (len) {
			i += len;
			run += len;
			continue;
		}
		lp_buf_add(b, s + i - run, run);
		run = 0;
		char esc[8];
		switch (c) {
		case '"': lp_buf_add(b, "\\\"", 2); break;
		case '\\': lp_buf_add(b, "\\\\", 2); break;
		case '\n': lp_buf_add(b, "\\n", 2); break;
		case '\r': lp_buf_add(b, "\\r", 2); break;
		case '\t': lp_buf_add(b, "\\t", 2); break;
		case '\b': lp_buf_add(b, "\\b", 2); break;
		case '\f': lp_buf_add(b, "\\f", 2); break;
		default:
			snprintf(esc, sizeof esc, "\\u%04x", c < 0x20 ? c : 0xfffd);
			lp_buf_add(b, esc, 6);
		}
		i++;
	}
	lp_buf_add(b, s + n - run, run);
	lp_buf_add(b, "\"", 1);
}

void lp_json_double(struct lp_buf *b, double d)
{
	char s[40];
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(s, sizeof s, "%.*g", prec, d);
		if (strtod(s, NULL) == d)
			break;
	}
	lp_buf_puts(b, s);
}
