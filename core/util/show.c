/*
 * show.c - how every message shows a value it did not make: an option's
 * value, a path, an event string, a script's name.  One rule for all of
 * them, so that no message grows with what it quotes and none loses its
 * reason to a cut: a short value whole, a long one by its start and its
 * end around its length, always on one line.
 */
#include <stdio.h>
#include <string.h>

#include "luaprof/luaprof.h"

/* Whether byte c continues a UTF-8 sequence (10xxxxxx). */
static int continues(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

/* Copies n bytes of src to dst, control characters as '?'; returns dst + n. */
static char *copy_line(char *dst, const char *src, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)src[i];
		dst[i] = c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	return dst + n;
}

const char *lp_show_n(const char *value, size_t len, struct lp_shown *out)
{
	char *p = out->s;
	if (!value)
		value = "", len = 0;
	if (len <= LP_SHOW_MAX) {
		*copy_line(p, value, len) = '\0';
		return out->s;
	}
	/* a multi-byte character is shown whole or not at all */
	size_t head = LP_SHOW_HEAD, tail = len - LP_SHOW_TAIL;
	while (head > 0 && continues((unsigned char)value[head]))
		head--;
	while (tail < len && continues((unsigned char)value[tail]))
		tail++;
	p = copy_line(p, value, head);
	p += snprintf(p, sizeof out->s - (size_t)(p - out->s), "...[%zu bytes]...", len);
	*copy_line(p, value + tail, len - tail) = '\0';
	return out->s;
}

const char *lp_show(const char *value, struct lp_shown *out)
{
	return lp_show_n(value, value ? strlen(value) : 0, out);
}
