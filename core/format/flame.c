/*
 * flame.c - building a flame graph's tree from folded stacks and writing
 * it as SVG.
 *
 * The tree: node 0 is the root ("all"); a node's children are found by a
 * hash of (parent, name) and kept in a sibling list, sorted by name before
 * drawing (frames of one name by their annotation), so the x order is
 * alphabetical, the same however the stacks came, and two graphs of the
 * same program line up.  Each node holds its inclusive count and, for a
 * differential graph, the base profile's.  Drawing walks the tree once:
 * a frame's x is its parent's plus the widths of the siblings before it;
 * frames narrower than minwidth are left out with their subtrees.  The
 * script that makes the SVG interactive is flamejs.c's.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format/flamejs.h"
#include "luaprof/flame.h"
#include "luaprof/hmap.h"
#include "util/grow.h"

#define PAD 10.0
#define TOP 36.0                /* title, buttons */
#define BOTTOM 28.0             /* details line */
#define FONT 12.0
#define CHAR_W (FONT * 0.59)
#define MAX_NODES (1u << 26)
#define MAX_NAME 4096

enum kind { K_USER, K_KERNEL, K_INLINED, K_JIT, K_OTHER };

struct node {
	uint32_t parent, first, next;   /* first child, next sibling (0: none) */
	uint32_t depth;
	const char *name;               /* interned, suffix removed */
	uint32_t name_len;
	uint32_t full_len;              /* with the suffix, name[0..full_len) */
	uint8_t kind;
	double count, base;
};

struct lp_flame {
	struct node *nodes;
	size_t nr, cap;
	struct lp_hmap *children;       /* (parent, name) -> node */
	char key[4 + MAX_NAME];
	uint32_t max_depth;
};

struct lp_flame *lp_flame_new(void)
{
	struct lp_flame *f = calloc(1, sizeof *f);
	if (!f || !(f->children = lp_hmap_new()) ||
	    lp_grow(&f->nodes, &f->cap, 0, sizeof *f->nodes, 256, MAX_NODES)) {
		lp_flame_free(f);
		return errno = ENOMEM, NULL;
	}
	f->nodes[0] = (struct node){ .name = "all", .name_len = 3, .kind = K_OTHER };
	f->nr = 1;
	return f;
}

void lp_flame_free(struct lp_flame *f)
{
	if (!f)
		return;
	lp_hmap_free(f->children);
	free(f->nodes);
	free(f);
}

/* Names that perf maps give JIT-compiled code, drawn as JIT even without
 * the _[j] annotation (folded stacks made without stackcollapse-perf.pl
 * --jit): node's (JS:*, LazyCompile:*, InterpretedFunction: of older
 * releases) and python -X perf's (py::). */
static bool jit_name(const char *s, size_t n)
{
	static const char *const prefixes[] = { "JS:", "py::", "LazyCompile:",
						"InterpretedFunction:" };
	for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++) {
		size_t k = strlen(prefixes[i]);
		if (n > k && !memcmp(s, prefixes[i], k))
			return true;
	}
	return false;
}

/* A frame's kind from FlameGraph's annotation (_[k] kernel, _[i]
 * inlined, _[j] JIT; *n loses it), else from its name. */
static enum kind kind_of(const char *s, size_t *n)
{
	if (*n > 4 && s[*n - 4] == '_' && s[*n - 3] == '[' && s[*n - 1] == ']') {
		char c = s[*n - 2];
		enum kind k = c == 'k' ? K_KERNEL : c == 'i' ? K_INLINED : c == 'j' ? K_JIT : K_USER;
		if (k != K_USER)
			*n -= 4;
		return k;
	}
	if (*n == 1 && s[0] == '-')
		return K_OTHER;
	return jit_name(s, *n) ? K_JIT : K_USER;
}

/* The child of parent named s[0..n) (with its kind suffix), created when
 * new; its index, or 0 when out of memory. */
static uint32_t child(struct lp_flame *f, uint32_t parent, const char *s, size_t n)
{
	if (n > MAX_NAME)
		n = MAX_NAME;
	memcpy(f->key, &parent, 4);
	memcpy(f->key + 4, s, n);
	bool added = false;
	int64_t e = lp_hmap_find(f->children, f->key, n + 4, lp_hash(f->key, n + 4), true, &added);
	if (e < 0)
		return 0;
	if (!added)
		return (uint32_t)*lp_hmap_value(f->children, (size_t)e);
	if (lp_grow(&f->nodes, &f->cap, f->nr, sizeof *f->nodes, 256, MAX_NODES))
		return 0;
	size_t kn;
	const char *k = lp_hmap_key(f->children, (size_t)e, &kn);
	size_t len = n;
	struct node *p = &f->nodes[parent], *c = &f->nodes[f->nr];
	*c = (struct node){ .parent = parent, .next = p->first, .depth = p->depth + 1,
			    .name = k + 4, .kind = (uint8_t)kind_of(k + 4, &len) };
	c->name_len = (uint32_t)len;
	c->full_len = (uint32_t)n;
	p->first = (uint32_t)f->nr;
	if (c->depth > f->max_depth)
		f->max_depth = c->depth;
	*lp_hmap_value(f->children, (size_t)e) = f->nr;
	return (uint32_t)f->nr++;
}

int lp_flame_add(struct lp_flame *f, const char *stack, size_t len, double count, double base)
{
	if (!len || !(count >= 0) || !(base >= 0))
		return -EINVAL;
	uint32_t at = 0;
	f->nodes[0].count += count;
	f->nodes[0].base += base;
	for (size_t pos = 0; pos <= len;) {
		const char *semi = memchr(stack + pos, ';', len - pos);
		size_t n = semi ? (size_t)(semi - stack) - pos : len - pos;
		if (n) {
			if (!(at = child(f, at, stack + pos, n)))
				return -ENOMEM;
			f->nodes[at].count += count;
			f->nodes[at].base += base;
		}
		pos += n + 1;
	}
	return 0;
}

/* ------------------------------------------------------------ layout */

static int bytes_cmp(const char *x, size_t nx, const char *y, size_t ny)
{
	int c = memcmp(x, y, nx < ny ? nx : ny);
	return c ? c : (nx > ny) - (nx < ny);
}

/* By the name shown, then (frames of one name and another kind: a user
 * and a kernel [unknown]) by the name with its suffix, so that the order
 * never depends on the order the stacks came in. */
static int by_name(const void *a, const void *b, void *arg)
{
	const struct node *nodes = arg;
	const struct node *x = &nodes[*(const uint32_t *)a], *y = &nodes[*(const uint32_t *)b];
	int c = bytes_cmp(x->name, x->name_len, y->name, y->name_len);
	return c ? c : bytes_cmp(x->name, x->full_len, y->name, y->full_len);
}

/* Relinks every sibling list in name order. */
static int sort_children(struct lp_flame *f)
{
	uint32_t *tmp = malloc(f->nr * sizeof *tmp);
	if (!tmp)
		return -ENOMEM;
	for (size_t i = 0; i < f->nr; i++) {
		size_t n = 0;
		for (uint32_t c = f->nodes[i].first; c; c = f->nodes[c].next)
			tmp[n++] = c;
		if (n < 2)
			continue;
		qsort_r(tmp, n, sizeof *tmp, by_name, f->nodes);
		f->nodes[i].first = tmp[0];
		for (size_t k = 0; k < n; k++)
			f->nodes[tmp[k]].next = k + 1 < n ? tmp[k + 1] : 0;
	}
	free(tmp);
	return 0;
}

/* ------------------------------------------------------------ colour */

static uint32_t name_hash(const struct node *n)
{
	return (uint32_t)lp_hash(n->name, n->name_len);
}

static void hsl(double h, double s, double l, int rgb[3])
{
	double c = (1 - fabs(2 * l - 1)) * s, hp = fmod(h, 360) / 60;
	double x = c * (1 - fabs(fmod(hp, 2) - 1)), m = l - c / 2, r = 0, g = 0, b = 0;
	if (hp < 1) r = c, g = x;
	else if (hp < 2) r = x, g = c;
	else if (hp < 3) g = c, b = x;
	else if (hp < 4) g = x, b = c;
	else if (hp < 5) r = x, b = c;
	else r = c, b = x;
	rgb[0] = (int)lround((r + m) * 255);
	rgb[1] = (int)lround((g + m) * 255);
	rgb[2] = (int)lround((b + m) * 255);
}

/* A stable colour per name within its kind's family of hues. */
static void kind_colour(const struct node *n, int rgb[3])
{
	static const double base_hue[] = { 0, 205, 170, 95, 0 };
	static const double spread[] = { 50, 35, 25, 35, 0 };
	uint32_t h = name_hash(n);
	double v1 = (h & 0xffff) / 65535.0, v2 = (h >> 16) / 65535.0;
	if (n->kind == K_OTHER || (n->name_len == 9 && !memcmp(n->name, "[unknown]", 9))) {
		hsl(0, 0, 0.72 + 0.08 * v2, rgb);
		return;
	}
	hsl(base_hue[n->kind] + spread[n->kind] * v1, 0.75, 0.55 + 0.12 * v2, rgb);
}

/* Red for frames that grew against the base, blue for those that shrank,
 * deeper the larger the change in share; white when unchanged. */
static void diff_colour(const struct node *n, double tot, double tot_b, double max_delta,
			int rgb[3])
{
	double delta = (tot ? n->count / tot : 0) - (tot_b ? n->base / tot_b : 0);
	double t = max_delta > 0 ? fabs(delta) / max_delta : 0;
	int fade = (int)lround(255 - 190 * t);
	rgb[0] = delta > 0 ? 255 : fade;
	rgb[1] = fade;
	rgb[2] = delta < 0 ? 255 : fade;
}

static double max_delta(const struct lp_flame *f)
{
	double tot = f->nodes[0].count, tot_b = f->nodes[0].base, m = 0;
	for (size_t i = 1; i < f->nr; i++) {
		const struct node *n = &f->nodes[i];
		double d = fabs((tot ? n->count / tot : 0) - (tot_b ? n->base / tot_b : 0));
		m = d > m ? d : m;
	}
	return m;
}

/* ------------------------------------------------------------- write */

/* Appends s as XML text: markup characters escaped, control characters as
 * '?', invalid UTF-8 as U+FFFD; at most max_chars characters (then "..").
 * Returns the characters written. */
static size_t xml_text(struct lp_buf *b, const char *s, size_t n, size_t max_chars)
{
	size_t chars = 0;
	for (size_t i = 0; i < n; chars++) {
		if (chars == max_chars) {
			lp_buf_add(b, "..", 2);
			return chars;
		}
		unsigned char c = (unsigned char)s[i];
		size_t len = lp_utf8_len((const unsigned char *)s + i, n - i);
		switch (len == 1 ? c : 1) {
		case '&': lp_buf_add(b, "&amp;", 5); break;
		case '<': lp_buf_add(b, "&lt;", 4); break;
		case '>': lp_buf_add(b, "&gt;", 4); break;
		case '"': lp_buf_add(b, "&quot;", 6); break;
		default:
			if (!len)
				lp_buf_add(b, "\xef\xbf\xbd", 3);
			else if (c < 0x20)
				lp_buf_add(b, "?", 1);
			else
				lp_buf_add(b, s + i, len);
		}
		i += len ? len : 1;
	}
	return chars;
}

static size_t utf8_chars(const char *s, size_t n)
{
	size_t c = 0;
	for (size_t i = 0; i < n; i++)
		c += ((unsigned char)s[i] & 0xc0) != 0x80;
	return c;
}

struct draw {
	struct lp_flame *f;
	const struct lp_flame_opts *o;
	struct lp_buf *b;
	double scale;           /* pixels per count */
	double tot, tot_b, max_delta;
	double height;
	const char *countname;
};

static void frame_title(struct draw *d, const struct node *n)
{
	static const char *const kinds[] = { "", ", kernel", ", inlined", ", JIT", "" };
	xml_text(d->b, n->name, n->name_len, SIZE_MAX);
	lp_buf_printf(d->b, " (%.15g %s, %.2f%%%s", n->count, d->countname,
		      d->tot ? 100 * n->count / d->tot : 0, kinds[n->kind]);
	if (d->o->diff) {
		double delta = 100 * ((d->tot ? n->count / d->tot : 0) -
				      (d->tot_b ? n->base / d->tot_b : 0));
		lp_buf_printf(d->b, "; base %.15g, %.2f%%; %+.2f pp", n->base,
			      d->tot_b ? 100 * n->base / d->tot_b : 0, delta);
	}
	lp_buf_add(d->b, ")", 1);
}

static void frame(struct draw *d, const struct node *n, double x, double w)
{
	const struct lp_flame_opts *o = d->o;
	double fh = o->frame_height;
	double y = o->icicle ? TOP + n->depth * fh : d->height - BOTTOM - (n->depth + 1) * fh;
	int rgb[3];
	if (o->diff)
		diff_colour(n, d->tot, d->tot_b, d->max_delta, rgb);
	else
		kind_colour(n, rgb);
	static const char kinds[] = "ukijo";
	lp_buf_printf(d->b, "<g class=\"f\" data-d=\"%u\" data-k=\"%c\"><title>", n->depth,
		      kinds[n->kind]);
	frame_title(d, n);
	lp_buf_printf(d->b, "</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
		      "fill=\"rgb(%d,%d,%d)\" rx=\"2\"/><text x=\"%.2f\" y=\"%.1f\">", x, y, w,
		      fh - 1, rgb[0], rgb[1], rgb[2], x + 3, y + fh - 4.5);
	double fit = floor((w - 6) / CHAR_W);
	if (fit >= 3) {
		size_t chars = utf8_chars(n->name, n->name_len);
		xml_text(d->b, n->name, n->name_len, chars <= fit ? SIZE_MAX : (size_t)fit - 2);
	}
	lp_buf_add(d->b, "</text></g>\n", 12);
}

/* Draws the tree depth first (iteratively: stacks can be deep); every
 * node is on the work stack at most once.  Document order does not matter:
 * frames never overlap. */
static int draw_tree(struct draw *d)
{
	struct lp_flame *f = d->f;
	double *xs = malloc(f->nr * sizeof *xs);
	uint32_t *stack = malloc(f->nr * sizeof *stack);
	if (!xs || !stack) {
		free(xs);
		free(stack);
		return -ENOMEM;
	}
	size_t sp = 0;
	xs[0] = PAD;
	stack[sp++] = 0;
	while (sp) {
		uint32_t i = stack[--sp];
		const struct node *n = &f->nodes[i];
		double w = n->count * d->scale;
		if (w < d->o->minwidth || n->count <= 0)
			continue;
		frame(d, n, xs[i], w);
		double x = xs[i];
		for (uint32_t c = n->first; c; c = f->nodes[c].next) {
			xs[c] = x;
			x += f->nodes[c].count * d->scale;
			stack[sp++] = c;
		}
	}
	free(xs);
	free(stack);
	return 0;
}

static void header(struct draw *d, unsigned width)
{
	const struct lp_flame_opts *o = d->o;
	const char *title = o->title ? o->title : o->diff ? "Differential Flame Graph" :
			    o->icicle ? "Icicle Graph" : "Flame Graph";
	lp_buf_printf(d->b, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		      "<svg version=\"1.1\" width=\"%u\" height=\"%.0f\" viewBox=\"0 0 %u %.0f\" "
		      "xmlns=\"http://www.w3.org/2000/svg\" data-icicle=\"%d\" data-fh=\"%u\" "
		      "data-pad=\"%.0f\">\n<style>%s</style>\n<script><![CDATA[%s]]></script>\n"
		      "<rect class=\"bg\" width=\"100%%\" height=\"100%%\"/>\n"
		      "<text id=\"title\" x=\"%.1f\" y=\"20\">", width, d->height, width, d->height,
		      o->icicle, o->frame_height, PAD, lp_flame_css, lp_flame_js, width / 2.0);
	xml_text(d->b, title, strlen(title), SIZE_MAX);
	lp_buf_add(d->b, "</text>\n", 8);
	if (o->subtitle) {
		lp_buf_printf(d->b, "<text id=\"subtitle\" x=\"%.1f\" y=\"33\">", width / 2.0);
		xml_text(d->b, o->subtitle, strlen(o->subtitle), SIZE_MAX);
		lp_buf_add(d->b, "</text>\n", 8);
	}
	lp_buf_printf(d->b, "<text id=\"reset\" class=\"btn hide\" x=\"%.0f\" y=\"20\">Reset Zoom</text>\n"
		      "<text id=\"search\" class=\"btn\" x=\"%.0f\" y=\"20\">Search</text>\n"
		      "<text id=\"clear\" class=\"btn hide\" x=\"%.0f\" y=\"33\">Clear search</text>\n"
		      "<text id=\"matched\" x=\"%.0f\" y=\"%.0f\"></text>\n"
		      "<text id=\"details\" x=\"%.0f\" y=\"%.0f\"> </text>\n<g id=\"frames\">\n",
		      PAD, width - PAD - 60, width - PAD - 90, width - PAD - 130, d->height - 10,
		      PAD, d->height - 10);
}

int lp_flame_svg(struct lp_flame *f, const struct lp_flame_opts *opts, struct lp_buf *out)
{
	struct lp_flame_opts o = *opts;
	o.width = o.width ? o.width : 1200;
	o.frame_height = o.frame_height ? o.frame_height : 16;
	o.minwidth = o.minwidth > 0 ? o.minwidth : 0.1;
	struct draw d = { .f = f, .o = &o, .b = out, .tot = f->nodes[0].count,
			  .tot_b = f->nodes[0].base,
			  .countname = o.countname ? o.countname : "samples" };
	d.scale = d.tot > 0 ? (o.width - 2 * PAD) / d.tot : 0;
	uint32_t depth = 0;             /* of the deepest frame drawn */
	for (size_t i = 0; i < f->nr; i++)
		if (f->nodes[i].count * d.scale >= o.minwidth && f->nodes[i].depth > depth)
			depth = f->nodes[i].depth;
	d.height = TOP + (depth + 1) * (double)o.frame_height + BOTTOM + 8;
	if (o.diff)
		d.max_delta = max_delta(f);
	if (sort_children(f))
		return -ENOMEM;
	header(&d, o.width);
	if (d.tot > 0) {
		if (draw_tree(&d))
			return -ENOMEM;
	}
	lp_buf_add(out, "</g>\n", 5);
	if (d.tot <= 0)
		lp_buf_printf(out, "<text id=\"empty\" x=\"%.1f\" y=\"%.0f\">no samples</text>\n",
			      o.width / 2.0, TOP + 16);
	lp_buf_add(out, "</svg>\n", 7);
	return out->err;
}
