/*
 * perftree.c - the shape of perf's symbol tree (see perftree.h).
 *
 * A textbook red-black tree (insert and delete with the classic fix-up
 * cases), which is what the kernel's lib/rbtree.c implements: on insertion
 * a red uncle means recolouring, else one or two rotations; a node with two
 * children is replaced by its in-order successor, and the fix-up after
 * removing a black node runs the four sibling cases.  Same operations in the
 * same order give the same shape as perf's tree.
 */
#include <errno.h>
#include <stdlib.h>

#include "sym/perftree.h"
#include "util/grow.h"

#define NIL LP_PTREE_NIL

static struct lp_ptree_node *N(const struct lp_ptree *t, int32_t i)
{
	return &t->n[i];
}

static int is_red(const struct lp_ptree *t, int32_t i)
{
	return i != NIL && N(t, i)->red;
}

/* Puts c where child o of parent p was (p NIL: at the root). */
static void replace_child(struct lp_ptree *t, int32_t p, int32_t o, int32_t c)
{
	if (p == NIL)
		t->root = c;
	else if (N(t, p)->left == o)
		N(t, p)->left = c;
	else
		N(t, p)->right = c;
	if (c != NIL)
		N(t, c)->parent = p;
}

/* Rotates x down to the left (dir 0) or to the right (dir 1). */
static void rotate(struct lp_ptree *t, int32_t x, int dir)
{
	struct lp_ptree_node *nx = N(t, x);
	int32_t y = dir ? nx->left : nx->right;
	struct lp_ptree_node *ny = N(t, y);
	int32_t inner = dir ? ny->right : ny->left;

	if (dir)
		nx->left = inner;
	else
		nx->right = inner;
	if (inner != NIL)
		N(t, inner)->parent = x;
	replace_child(t, nx->parent, x, y);
	if (dir)
		ny->right = x;
	else
		ny->left = x;
	nx->parent = y;
}

static void insert_fixup(struct lp_ptree *t, int32_t z)
{
	while (is_red(t, N(t, z)->parent)) {
		int32_t p = N(t, z)->parent, g = N(t, p)->parent;
		int left = N(t, g)->left == p;          /* parent is g's left child */
		int32_t u = left ? N(t, g)->right : N(t, g)->left;

		if (is_red(t, u)) {
			N(t, p)->red = 0;
			N(t, u)->red = 0;
			N(t, g)->red = 1;
			z = g;
			continue;
		}
		if (z == (left ? N(t, p)->right : N(t, p)->left)) {
			z = p;
			rotate(t, z, !left);
			p = N(t, z)->parent;
		}
		N(t, p)->red = 0;
		N(t, g)->red = 1;
		rotate(t, g, left);
	}
	N(t, t->root)->red = 0;
}

int32_t lp_ptree_insert(struct lp_ptree *t, uint64_t start, uint64_t end)
{
	if (lp_grow(&t->n, &t->cap, t->nr, sizeof *t->n, 256, INT32_MAX))
		return -ENOMEM;
	int32_t z = (int32_t)t->nr++, p = NIL;

	for (int32_t x = t->root; x != NIL;) {
		p = x;
		x = start < N(t, x)->start ? N(t, x)->left : N(t, x)->right;
	}
	*N(t, z) = (struct lp_ptree_node){ start, end, NIL, NIL, p, 1 };
	if (p == NIL)
		t->root = z;
	else if (start < N(t, p)->start)
		N(t, p)->left = z;
	else
		N(t, p)->right = z;
	insert_fixup(t, z);
	return z;
}

/* The classic delete fix-up; x may be NIL, so its parent comes separately. */
static void erase_fixup(struct lp_ptree *t, int32_t x, int32_t xp)
{
	while (x != t->root && !is_red(t, x)) {
		int left = N(t, xp)->left == x;
		int32_t w = left ? N(t, xp)->right : N(t, xp)->left;

		if (is_red(t, w)) {
			N(t, w)->red = 0;
			N(t, xp)->red = 1;
			rotate(t, xp, !left);
			w = left ? N(t, xp)->right : N(t, xp)->left;
		}
		int32_t near = left ? N(t, w)->left : N(t, w)->right;
		int32_t far = left ? N(t, w)->right : N(t, w)->left;

		if (!is_red(t, near) && !is_red(t, far)) {
			N(t, w)->red = 1;
			x = xp;
			xp = N(t, x)->parent;
			continue;
		}
		if (!is_red(t, far)) {
			N(t, near)->red = 0;
			N(t, w)->red = 1;
			rotate(t, w, left);
			w = left ? N(t, xp)->right : N(t, xp)->left;
			far = left ? N(t, w)->right : N(t, w)->left;
		}
		N(t, w)->red = N(t, xp)->red;
		N(t, xp)->red = 0;
		N(t, far)->red = 0;
		rotate(t, xp, !left);
		x = t->root;
		xp = NIL;
	}
	if (x != NIL)
		N(t, x)->red = 0;
}

void lp_ptree_erase(struct lp_ptree *t, int32_t z)
{
	struct lp_ptree_node *nz = N(t, z);
	int32_t x, xp;
	int was_red = nz->red;

	if (nz->left == NIL || nz->right == NIL) {
		x = nz->left == NIL ? nz->right : nz->left;
		xp = nz->parent;
		replace_child(t, nz->parent, z, x);
	} else {
		int32_t y = nz->right;          /* the successor */

		while (N(t, y)->left != NIL)
			y = N(t, y)->left;
		was_red = N(t, y)->red;
		x = N(t, y)->right;
		if (N(t, y)->parent == z) {
			xp = y;
		} else {
			xp = N(t, y)->parent;
			replace_child(t, xp, y, x);
			N(t, y)->right = nz->right;
			N(t, nz->right)->parent = y;
		}
		replace_child(t, nz->parent, z, y);
		N(t, y)->left = nz->left;
		N(t, nz->left)->parent = y;
		N(t, y)->red = nz->red;
	}
	nz->left = nz->right = nz->parent = NIL;
	if (!was_red)
		erase_fixup(t, x, xp);
}

int32_t lp_ptree_first(const struct lp_ptree *t)
{
	int32_t i = t->root;

	while (i != NIL && N(t, i)->left != NIL)
		i = N(t, i)->left;
	return i;
}

int32_t lp_ptree_next(const struct lp_ptree *t, int32_t i)
{
	if (N(t, i)->right != NIL) {
		i = N(t, i)->right;
		while (N(t, i)->left != NIL)
			i = N(t, i)->left;
		return i;
	}
	int32_t p = N(t, i)->parent;

	while (p != NIL && N(t, p)->right == i) {
		i = p;
		p = N(t, p)->parent;
	}
	return p;
}

int32_t lp_ptree_find(const struct lp_ptree *t, uint64_t addr)
{
	int32_t i = t->root;

	while (i != NIL) {
		const struct lp_ptree_node *n = N(t, i);

		if (addr < n->start)
			i = n->left;
		else if (addr > n->end || (addr == n->end && addr != n->start))
			i = n->right;
		else
			return i;
	}
	return NIL;
}

void lp_ptree_free(struct lp_ptree *t)
{
	free(t->n);
	*t = (struct lp_ptree)LP_PTREE_INIT;
}
