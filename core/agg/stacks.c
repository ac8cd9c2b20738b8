/*
 * stacks.c - the engine's call stacks (include/luaprof/stacks.h): a tree
 * of frames, a node per distinct path from the root.
 *
 * Names are interned in an lp_hmap (bytes -> id, ids in the order first
 * seen).  Nodes are a dense array, found again by (parent, name) in an
 * integer-keyed table (util/htab.h): the key is the two 32-bit numbers
 * side by side, the value the node's number, so a step down the tree is
 * one probe without a call.  A node keeps its parent, its name, its depth
 * and its stacks' count: a stack's text is made by walking up from it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "luaprof/hmap.h"
#include "luaprof/stacks.h"
#include "util/grow.h"
#include "util/htab.h"

#define MAX_NODES ((size_t)UINT32_MAX)

struct node {
	uint32_t parent, name, depth;
	bool stack;
	uint64_t count;
};

struct lp_stacks {
	struct lp_hmap *names;
	struct lp_htab *kids;           /* parent << 32 | name -> node */
	struct node *nodes;
	size_t nr, cap;
	size_t stacks;
	uint64_t sum;
};

/* The root alone. */
static int reset(struct lp_stacks *s)
{
	s->nr = 0;
	if (lp_grow(&s->nodes, &s->cap, 0, sizeof *s->nodes, 256, MAX_NODES))
		return -ENOMEM;
	s->nodes[s->nr++] = (struct node){ 0 };
	s->stacks = 0;
	s->sum = 0;
	return 0;
}

struct lp_stacks *lp_stacks_new(void)
{
	struct lp_stacks *s = calloc(1, sizeof *s);
	if (!s || !(s->names = lp_hmap_new()) || !(s->kids = lp_htab_new(NULL, NULL, NULL)) ||
	    reset(s)) {
		lp_stacks_free(s);
		errno = ENOMEM;
		return NULL;
	}
	return s;
}

void lp_stacks_free(struct lp_stacks *s)
{
	if (!s)
		return;
	lp_hmap_free(s->names);
	lp_htab_free(s->kids);
	free(s->nodes);
	free(s);
}

void lp_stacks_clear(struct lp_stacks *s)
{
	lp_hmap_clear(s->names);
	lp_htab_clear(s->kids);
	reset(s);       /* the array has room for the root: cannot fail */
}

int64_t lp_stacks_name(struct lp_stacks *s, const char *name, size_t len)
{
	int64_t id = lp_hmap_find(s->names, name, len, lp_hash(name, len), true, NULL);
	return id < 0 ? -ENOMEM : id;
}

const char *lp_stacks_name_text(const struct lp_stacks *s, uint32_t id, size_t *len)
{
	if (id >= lp_hmap_count(s->names))
		return NULL;
	const char *p = lp_hmap_key(s->names, id, len);
	return p ? p : "";
}

int64_t lp_stacks_child(struct lp_stacks *s, uint32_t parent, uint32_t name)
{
	if (parent >= s->nr || name >= lp_hmap_count(s->names))
		return -EINVAL;
	uint64_t key = (uint64_t)parent << 32 | name;
	struct lp_htab_ent *e = lp_htab_find_int(s->kids, key);
	if (e)
		return (int64_t)e->val;
	if (s->nr >= MAX_NODES ||
	    lp_grow(&s->nodes, &s->cap, s->nr, sizeof *s->nodes, 256, MAX_NODES))
		return -ENOMEM;
	bool added;
	if (!(e = lp_htab_add(s->kids, key, &added)))
		return -ENOMEM;
	e->val = s->nr;
	s->nodes[s->nr] = (struct node){ parent, name, s->nodes[parent].depth + 1, false, 0 };
	return (int64_t)s->nr++;
}

int64_t lp_stacks_path(struct lp_stacks *s, uint32_t from, const char *text, size_t len)
{
	int64_t node = from;
	if (from >= s->nr)
		return -EINVAL;
	const char *end = text + len;
	for (const char *p = text;; p++) {
		const char *q = memchr(p, ';', (size_t)(end - p));
		if (!q)
			q = end;
		int64_t name = lp_stacks_name(s, p, (size_t)(q - p));
		if (name < 0)
			return -ENOMEM;
		if ((node = lp_stacks_child(s, (uint32_t)node, (uint32_t)name)) < 0)
			return node;
		if (q == end)
			return node;
		p = q;
	}
}

int lp_stacks_add(struct lp_stacks *s, uint32_t node, uint64_t n)
{
	if (node == LP_STACKS_ROOT || node >= s->nr)
		return -EINVAL;
	struct node *x = &s->nodes[node];
	if (!x->stack) {
		x->stack = true;
		s->stacks++;
	}
	x->count += n;
	s->sum += n;
	return 0;
}

size_t lp_stacks_nodes(const struct lp_stacks *s)
{
	return s->nr;
}

struct lp_stacks_node lp_stacks_node(const struct lp_stacks *s, uint32_t i)
{
	const struct node *x = &s->nodes[i];
	return (struct lp_stacks_node){ x->parent, x->name, x->depth, x->stack, x->count };
}

size_t lp_stacks_stacks(const struct lp_stacks *s)
{
	return s->stacks;
}

uint64_t lp_stacks_sum(const struct lp_stacks *s)
{
	return s->sum;
}

/* Appends the text of node's names, root first, to out, those of the
 * first skip nodes left out: the nodes up from it into a list (on the
 * stack when short), then their names. */
static void text_of(const struct lp_stacks *s, uint32_t node, size_t skip, struct lp_buf *out)
{
	uint32_t local[256], *up = local;
	size_t depth = s->nodes[node].depth;
	if (depth > 256 && !(up = malloc(depth * sizeof *up))) {
		out->err = -ENOMEM;
		return;
	}
	for (size_t i = depth; i-- > 0; node = s->nodes[node].parent)
		up[i] = node;
	for (size_t i = skip; i < depth; i++) {
		size_t len;
		const char *name = lp_stacks_name_text(s, s->nodes[up[i]].name, &len);
		if (i > skip)
			lp_buf_add(out, ";", 1);
		lp_buf_add(out, name, len);
	}
	if (up != local)
		free(up);
}

/* Whether node is below from (from is the root, or an ancestor). */
static bool below(const struct lp_stacks *s, uint32_t node, uint32_t from)
{
	uint32_t d = s->nodes[from].depth;
	if (node == LP_STACKS_ROOT || s->nodes[node].depth <= d)
		return false;
	while (s->nodes[node].depth > d)
		node = s->nodes[node].parent;
	return node == from;
}

void lp_stacks_text(const struct lp_stacks *s, uint32_t node, struct lp_buf *out)
{
	if (node != LP_STACKS_ROOT && node < s->nr)
		text_of(s, node, 0, out);
}

void lp_stacks_below(const struct lp_stacks *s, uint32_t from, size_t *stacks, uint64_t *sum)
{
	*stacks = 0;
	*sum = 0;
	if (from == LP_STACKS_ROOT) {
		*stacks = s->stacks;
		*sum = s->sum;
		return;
	}
	for (uint32_t i = 1; from < s->nr && i < s->nr; i++)
		if (s->nodes[i].stack && below(s, i, from)) {
			++*stacks;
			*sum += s->nodes[i].count;
		}
}

/* The sorted walk.  Texts are names joined by ';', and no name holds a
 * ';', so the stacks below a node sort by its children alone: each child
 * c stands for two groups, the stack ending at c (its text the prefix,
 * then c's name) and the stacks below c (the prefix, c's name, ';', ...),
 * and the groups of all children, ordered by those keys (c's name, and
 * c's name followed by ';'; a key before those it is a prefix of), are
 * in the order of their texts: keys that differ at a byte order every
 * text of their groups so, and a key that is a prefix of another is the
 * whole text of its group (a stack), which comes first.  So a walk of
 * the tree that orders each node's groups by key visits the stacks in
 * order, comparing a few names instead of whole texts. */
struct group {
	uint32_t node;
	bool below;             /* the stacks below node, not the one ending there */
};

struct walk {
	const struct lp_stacks *s;
	uint32_t *first;        /* node i's children: kids[first[i] .. first[i + 1]) */
	uint32_t *kids;
	struct group *groups;   /* scratch for one node's groups, per depth */
};

static int by_key(const void *a, const void *b, void *ctx)
{
	const struct group *x = a, *y = b;
	const struct lp_stacks *s = ctx;
	size_t nx, ny;
	const unsigned char *px = (const void *)lp_stacks_name_text(s, s->nodes[x->node].name, &nx);
	const unsigned char *py = (const void *)lp_stacks_name_text(s, s->nodes[y->node].name, &ny);
	size_t n = nx < ny ? nx : ny;
	int c = memcmp(px, py, n);
	if (c)
		return c;
	/* one name is a prefix of the other (or they are one child's) */
	int cx = nx > n ? px[n] : x->below ? ';' : -1;
	int cy = ny > n ? py[n] : y->below ? ';' : -1;
	return (cx > cy) - (cx < cy);
}

/* Children lists of every node, by counting (parents come before their
 * children in the array). */
static int children(struct walk *w)
{
	const struct lp_stacks *s = w->s;
	w->first = calloc(s->nr + 1, sizeof *w->first);
	w->kids = malloc(s->nr * sizeof *w->kids);
	w->groups = malloc(2 * s->nr * sizeof *w->groups);
	if (!w->first || !w->kids || !w->groups)
		return -ENOMEM;
	for (uint32_t i = 1; i < s->nr; i++)
		w->first[s->nodes[i].parent + 1]++;
	for (size_t i = 0; i < s->nr; i++)
		w->first[i + 1] += w->first[i];
	uint32_t *fill = calloc(s->nr, sizeof *fill);
	if (!fill)
		return -ENOMEM;
	for (uint32_t i = 1; i < s->nr; i++) {
		uint32_t p = s->nodes[i].parent;
		w->kids[w->first[p] + fill[p]++] = i;
	}
	free(fill);
	return 0;
}

/* One level of the walk: a node's groups, sorted, and the next to take. */
struct level {
	size_t next, end;       /* into w->groups */
	size_t prefix;          /* the length of the text of the node's path */
};

/* Pushes the level of node: its groups, sorted, after the groups in use
 * (top of them). */
static int enter(struct walk *w, uint32_t node, size_t prefix, struct level **lv, size_t *depth,
		 size_t *cap, size_t *top)
{
	const struct lp_stacks *s = w->s;
	size_t g = *top;
	for (uint32_t k = w->first[node]; k < w->first[node + 1]; k++) {
		uint32_t c = w->kids[k];
		if (s->nodes[c].stack)
			w->groups[g++] = (struct group){ c, false };
		if (w->first[c] < w->first[c + 1])
			w->groups[g++] = (struct group){ c, true };
	}
	qsort_r(w->groups + *top, g - *top, sizeof *w->groups, by_key, (void *)(uintptr_t)s);
	if (*depth == *cap) {
		struct level *v = realloc(*lv, 2 * *cap * sizeof *v);
		if (!v)
			return -ENOMEM;
		*lv = v;
		*cap *= 2;
	}
	(*lv)[(*depth)++] = (struct level){ *top, g, prefix };
	*top = g;
	return 0;
}

/* The stacks below from, in order: their nodes into order[] and their
 * texts (each followed by a NUL) appended to text, at offs[] from base. */
static int walk_sorted(struct walk *w, uint32_t from, struct lp_buf *text, size_t base,
		       uint32_t *order, size_t *offs, size_t *n)
{
	const struct lp_stacks *s = w->s;
	struct lp_buf cur = { 0 };      /* the text of the path walked */
	size_t cap = 64, depth = 0, top = 0;
	struct level *lv = malloc(cap * sizeof *lv);
	int rc = lv ? enter(w, from, 0, &lv, &depth, &cap, &top) : -ENOMEM;
	while (!rc && depth) {
		struct level *l = &lv[depth - 1];
		if (l->next == l->end) {
			depth--;
			top = depth ? lv[depth - 1].end : 0;
			continue;
		}
		const struct group *gr = &w->groups[l->next++];
		size_t len;
		const char *name = lp_stacks_name_text(s, s->nodes[gr->node].name, &len);
		cur.len = l->prefix;
		if (depth > 1)          /* below the first level: after a name */
			lp_buf_add(&cur, ";", 1);
		lp_buf_add(&cur, name, len);
		if (cur.err)
			rc = -ENOMEM;
		else if (gr->below)
			rc = enter(w, gr->node, cur.len, &lv, &depth, &cap, &top);
		else {
			order[*n] = gr->node;
			offs[(*n)++] = text->len - base;
			lp_buf_add(text, cur.len ? cur.p : "", cur.len);
			lp_buf_add(text, "", 1);
			rc = text->err;
		}
	}
	lp_buf_free(&cur);
	free(lv);
	return rc;
}

int lp_stacks_sorted(const struct lp_stacks *s, uint32_t from, lp_stacks_visit_fn fn, void *ctx,
		     struct lp_buf *text)
{
	if (from >= s->nr || !s->stacks)
		return 0;       /* no stack below it */
	struct walk w = { s, NULL, NULL, NULL };
	uint32_t *order = malloc(s->stacks * sizeof *order);
	size_t *offs = malloc((s->stacks + 1) * sizeof *offs), n = 0, base = text->len;
	int rc = order && offs ? children(&w) : -ENOMEM;
	if (!rc)
		rc = walk_sorted(&w, from, text, base, order, offs, &n);
	if (!rc)
		offs[n] = text->len - base;
	for (size_t i = 0; !rc && i < n; i++)
		rc = fn(ctx, order[i], text->p + base + offs[i], offs[i + 1] - offs[i] - 1,
			s->nodes[order[i]].count);
	free(w.first);
	free(w.kids);
	free(w.groups);
	free(order);
	free(offs);
	return rc;
}
