/* Part of include/luaprof/: the core's interface to the layer above it (lua/). */
/*
 * flame.h - flame graphs as one self-contained interactive SVG: frames
 * coloured by kind, a tooltip per frame, click to zoom, reset, search with
 * highlight and the matched share, an icicle layout, and differential
 * colouring against a base profile.  No external file or network fetch.
 */
#ifndef LUAPROF_FLAME_H
#define LUAPROF_FLAME_H

#include <stdbool.h>
#include <stddef.h>

#include "luaprof/buf.h"

struct lp_flame_opts {
	const char *title;      /* NULL: "Flame Graph" ("Icicle Graph", "Differential ...") */
	const char *subtitle;   /* NULL: none */
	const char *countname;  /* NULL: "samples" */
	unsigned width;         /* 0: 1200 pixels */
	unsigned frame_height;  /* 0: 16 pixels */
	double minwidth;        /* frames narrower are left out; 0: 0.1 pixel */
	bool icicle;            /* root at the top */
	bool diff;              /* colour by the change from the base counts */
};

struct lp_flame;

/* An empty graph; NULL and errno on failure. */
struct lp_flame *lp_flame_new(void);
void lp_flame_free(struct lp_flame *f);

/* Adds count (and, for a differential graph, base) for one stack: frame
 * names root first separated by ';' (folded form).  A name ending in
 * "_[k]" is a kernel frame, "_[i]" inlined, "_[j]" JIT-compiled (the
 * suffix is not shown); so is, unsuffixed, a name a perf map gives JIT
 * code (JS:, LazyCompile:, InterpretedFunction: from node, py:: from
 * python -X perf).  Returns 0, -EINVAL for an empty stack or a
 * negative count, or -ENOMEM. */
int lp_flame_add(struct lp_flame *f, const char *stack, size_t len, double count, double base);

/* Writes the SVG into out (appended).  Returns 0 or -ENOMEM. */
int lp_flame_svg(struct lp_flame *f, const struct lp_flame_opts *o, struct lp_buf *out);

#endif
