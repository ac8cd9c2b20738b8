/*
 * folded.c - reading FlameGraph's folded stack text (the writer is the
 * Lua library's: it is one line per key).  Input is untrusted: any bytes
 * are either parsed or refused with the line's number
 * (tests/fuzz/fuzz_folded.c).
 */
#include <errno.h>
#include <string.h>

#include "luaprof/folded.h"

/* The whole number ending at line[len - 1]: its start, or NULL. */
static const char *count_at_end(const char *line, size_t len, uint64_t *out)
{
	size_t i = len;
	uint64_t v = 0, mul = 1;
	while (i > 0 && line[i - 1] >= '0' && line[i - 1] <= '9') {
		if (len - i >= 19)
			return NULL;    /* 19 digits and more may pass 2^63 */
		v += (uint64_t)(line[i - 1] - '0') * mul;
		mul *= 10;
		i--;
	}
	if (i == len)
		return NULL;
	*out = v;
	return line + i;
}

int lp_folded_line(const char *line, size_t len, size_t *stack_len, uint64_t counts[2])
{
	if (len && line[len - 1] == '\r')
		len--;
	const char *c = count_at_end(line, len, &counts[0]);
	if (!c || c == line || c[-1] != ' ')
		return -EINVAL;
	size_t rest = (size_t)(c - 1 - line);
	const char *c2 = count_at_end(line, rest, &counts[1]);
	int n = 1;
	if (c2 && c2 > line && c2[-1] == ' ') {
		/* "stack A B": B (counts[0]) is the profile, A (counts[1]) the base */
		rest = (size_t)(c2 - 1 - line);
		n = 2;
	}
	while (rest && line[rest - 1] == ' ')
		rest--;
	if (!rest)
		return -EINVAL;
	*stack_len = rest;
	return n;
}

int lp_folded_parse(const char *buf, size_t len, lp_folded_fn fn, void *ctx, size_t *bad_line)
{
	size_t no = 0;
	for (size_t pos = 0; pos < len;) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - buf) - pos : len - pos;
		const char *line = buf + pos;
		pos += n + (nl != NULL);
		no++;
		if (n == 0 || line[0] == '#' || (n == 1 && line[0] == '\r'))
			continue;
		size_t sl;
		uint64_t counts[2];
		int nc = lp_folded_line(line, n, &sl, counts);
		if (nc < 0) {
			*bad_line = no;
			return -EINVAL;
		}
		int rc = fn(ctx, line, sl, counts, nc);
		if (rc)
			return rc;
	}
	return 0;
}
