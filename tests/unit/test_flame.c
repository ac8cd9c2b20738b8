/* test_flame.c - the flame graph writer: inclusive widths, children in
 * name order, kinds from the folded suffixes, escaping of names (markup,
 * control bytes, invalid UTF-8), pruning of narrow frames, icicle and
 * differential layouts, and the empty graph. */
#include <stdio.h>

#include "luaprof/flame.h"
#include "test.h"

static char *svg_of(struct lp_flame *f, struct lp_flame_opts o, struct lp_buf *out)
{
	*out = (struct lp_buf){ 0 };
	TEST_EQ(lp_flame_svg(f, &o, out), 0);
	return out->p;
}

/* The x and width of the frame titled prefix... */
static int frame_rect(const char *svg, const char *prefix, double *x, double *w, double *y)
{
	char pat[256];
	snprintf(pat, sizeof pat, "<title>%s", prefix);
	const char *t = strstr(svg, pat);
	if (!t)
		return -1;
	const char *r = strstr(t, "<rect ");
	return sscanf(r, "<rect x=\"%lf\" y=\"%lf\" width=\"%lf\"", x, y, w) == 3 ? 0 : -1;
}

static void widths_and_order(void)
{
	struct lp_flame *f = lp_flame_new();
	TEST_EQ(lp_flame_add(f, "m;b;c", 5, 3, 0), 0);
	TEST_EQ(lp_flame_add(f, "m;a", 3, 1, 0), 0);
	TEST_EQ(lp_flame_add(f, "m;b", 3, 0, 0), 0);
	TEST_TRUE(lp_flame_add(f, "", 0, 1, 0) < 0);
	TEST_TRUE(lp_flame_add(f, "x", 1, -1, 0) < 0);
	struct lp_buf out;
	const char *svg = svg_of(f, (struct lp_flame_opts){ .width = 420 }, &out);
	double xa, wa, xb, wb, xm, wm, ya, ym;
	TEST_EQ(frame_rect(svg, "m (4 samples, 100.00%)", &xm, &wm, &ym), 0);
	TEST_EQ(frame_rect(svg, "a (1 samples, 25.00%)", &xa, &wa, &ya), 0);
	TEST_EQ(frame_rect(svg, "b (3 samples, 75.00%)", &xb, &wb, &ya), 0);
	TEST_TRUE(wm == 400 && wa == 100 && wb == 300);
	TEST_TRUE(xa == 10 && xb == 110);       /* a before b: name order */
	TEST_TRUE(ya < ym);                     /* children above their parent */
	TEST_TRUE(strstr(svg, "</svg>") != NULL);
	lp_buf_free(&out);
	svg = svg_of(f, (struct lp_flame_opts){ .width = 420, .icicle = true }, &out);
	TEST_EQ(frame_rect(svg, "m (", &xm, &wm, &ym), 0);
	TEST_EQ(frame_rect(svg, "a (", &xa, &wa, &ya), 0);
	TEST_TRUE(ya > ym);                     /* icicle: children below */
	lp_buf_free(&out);
	lp_flame_free(f);
}

static void kinds_and_escaping(void)
{
	struct lp_flame *f = lp_flame_new();
	const char s[] = "p;read_[k];inl_[i];jit_[j];a<b>&\"c\x01\xff";
	TEST_EQ(lp_flame_add(f, s, sizeof s - 1, 1, 0), 0);
	struct lp_buf out;
	const char *svg = svg_of(f, (struct lp_flame_opts){ 0 }, &out);
	TEST_TRUE(strstr(svg, "data-k=\"k\"><title>read (1 samples, 100.00%, kernel)") != NULL);
	TEST_TRUE(strstr(svg, "data-k=\"i\"><title>inl (1 samples, 100.00%, inlined)") != NULL);
	TEST_TRUE(strstr(svg, "data-k=\"j\"><title>jit (1 samples, 100.00%, JIT)") != NULL);
	TEST_TRUE(strstr(svg, "<title>a&lt;b&gt;&amp;&quot;c?\xef\xbf\xbd (") != NULL);
	lp_buf_free(&out);
	lp_flame_free(f);
}

static void pruning_diff_empty(void)
{
	struct lp_flame *f = lp_flame_new();
	TEST_EQ(lp_flame_add(f, "m;big", 5, 100000, 10), 0);
	TEST_EQ(lp_flame_add(f, "m;tiny", 6, 1, 30), 0);
	struct lp_buf out;
	const char *svg = svg_of(f, (struct lp_flame_opts){ .diff = true }, &out);
	TEST_TRUE(strstr(svg, "<title>tiny") == NULL);  /* 0.01 px wide: left out */
	TEST_TRUE(strstr(svg, "<title>big (100000 samples, 100.00%; base 10, 25.00%; +75.00 pp)") != NULL);
	TEST_TRUE(strstr(svg, "fill=\"rgb(255,65,65)\"") != NULL);      /* grew the most */
	lp_buf_free(&out);
	lp_flame_free(f);
	f = lp_flame_new();
	svg = svg_of(f, (struct lp_flame_opts){ 0 }, &out);
	TEST_TRUE(strstr(svg, ">no samples<") != NULL && strstr(svg, "</svg>") != NULL);
	lp_buf_free(&out);
	lp_flame_free(f);
}

TEST_MAIN("flame", TEST_CASE(widths_and_order), TEST_CASE(kinds_and_escaping), TEST_CASE(pruning_diff_empty))
