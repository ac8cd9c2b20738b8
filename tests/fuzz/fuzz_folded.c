/*
 * fuzz_folded.c - the folded stack reader (lp_folded_parse) on any bytes:
 * every stack it hands back lies inside the input, is non-empty and has no
 * newline; the flame graph built from them is written without error.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "luaprof/flame.h"
#include "luaprof/folded.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct ctx {
	const char *buf;
	size_t len;
	struct lp_flame *f;
};

static int on_stack(void *arg, const char *stack, size_t len, const uint64_t *counts, int nr)
{
	struct ctx *c = arg;
	if (!len || stack < c->buf || stack + len > c->buf + c->len || memchr(stack, '\n', len))
		abort();
	if (nr < 1 || nr > 2)
		abort();
	return lp_flame_add(c->f, stack, len, (double)counts[0], nr == 2 ? (double)counts[1] : 0) == -ENOMEM;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* an exact-size copy, so ASan sees any read past the end */
	char *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	struct ctx c = { buf, size, lp_flame_new() };
	size_t bad = 0;
	if (c.f && lp_folded_parse(buf, size, on_stack, &c, &bad) == 0) {
		struct lp_buf out = { 0 };
		struct lp_flame_opts o = { .diff = size & 1, .icicle = size & 2 };
		if (lp_flame_svg(c.f, &o, &out) == 0 && out.len && !strstr(out.p, "</svg>"))
			abort();
		lp_buf_free(&out);
	}
	lp_flame_free(c.f);
	free(buf);
	return 0;
}
