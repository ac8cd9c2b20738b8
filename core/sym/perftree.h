/*
 * perftree.h - a model of the tree perf keeps an object's symbols in (a
 * Linux-kernel-style red-black tree keyed by start address, equal keys to
 * the right), so that luaprof can tell which of two overlapping symbols a
 * perf lookup meets first.  perf's lookup (symbols__find) walks down from
 * the root and stops at the first symbol whose range holds the address: when
 * ranges overlap, the answer depends on the tree's shape, which depends on
 * the order of insertions and removals.  Internal to core/ (plt.c).
 *
 * Nodes are kept in one array and named by index; a removed node keeps its
 * index.  Errors: -ENOMEM from insert, nothing else fails.
 */
#ifndef LP_PERFTREE_H
#define LP_PERFTREE_H

#include <stddef.h>
#include <stdint.h>

#define LP_PTREE_NIL (-1)

struct lp_ptree_node {
	uint64_t start, end;    /* perf's symbol range; start == end: empty */
	int32_t left, right, parent;
	uint8_t red;
};

struct lp_ptree {
	struct lp_ptree_node *n;
	size_t nr, cap;
	int32_t root;
};

/* An empty tree: struct lp_ptree t = LP_PTREE_INIT; */
#define LP_PTREE_INIT { NULL, 0, 0, LP_PTREE_NIL }

/* Inserts [start, end) as perf's symbols__insert does (after every node
 * with a start <= this one, then rebalancing as the kernel's rb_insert_color
 * does).  Returns the new node's index or -ENOMEM. */
int32_t lp_ptree_insert(struct lp_ptree *t, uint64_t start, uint64_t end);

/* Unlinks node i as the kernel's rb_erase does. */
void lp_ptree_erase(struct lp_ptree *t, int32_t i);

/* In-order walk: the first node, and the one after i; LP_PTREE_NIL at the
 * end. */
int32_t lp_ptree_first(const struct lp_ptree *t);
int32_t lp_ptree_next(const struct lp_ptree *t, int32_t i);

/* perf's symbols__find: the first node on the way down from the root whose
 * range holds addr (an empty range holds its own start), or LP_PTREE_NIL. */
int32_t lp_ptree_find(const struct lp_ptree *t, uint64_t addr);

void lp_ptree_free(struct lp_ptree *t);

#endif
