/* Part of include/luaprof/: the core's interface to the layer above it (lua/). */
/*
 * stacks.h - the aggregation engine's call stacks (core/agg/stacks.c): the
 * samples' stacks as one tree of frames, a node per distinct path from
 * the root, each counting the samples whose stack ends there.
 *
 * It is what the shipped profile writers share (folded, flamegraph,
 * callgraph, speedscope): the caller (lua/host/lstacks.c, luaprof.stacks)
 * names a sample's frames, root first, as ids of interned names, walks
 * the tree from its root one child per frame and counts the sample at
 * the node it ends at.  A stack is its node: stacks whose names are the
 * same are one node, so a sample costs one hash of two numbers per frame
 * and no string.  A node's text is the folded form of FlameGraph
 * ("root;...;leaf", its names joined by ';'), made when asked for.
 *
 * Memory: each distinct name and each node once; nothing per sample.
 */
#ifndef LUAPROF_STACKS_H
#define LUAPROF_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "luaprof/buf.h"

#define LP_STACKS_ROOT 0        /* the node every stack starts from (no name) */

struct lp_stacks;

/* An empty tree; NULL and errno ENOMEM on failure. */
struct lp_stacks *lp_stacks_new(void);

/* Frees s.  Accepts NULL. */
void lp_stacks_free(struct lp_stacks *s);

/* Forgets every name, node and count (the memory is kept for reuse). */
void lp_stacks_clear(struct lp_stacks *s);

/* The id (0, 1, ... in the order first seen) of the name of len bytes,
 * interned; -ENOMEM.  Any bytes, ';' too (the text then reads as two
 * frames: callers replace it). */
int64_t lp_stacks_name(struct lp_stacks *s, const char *name, size_t len);

/* The name of id (borrowed until lp_stacks_clear or lp_stacks_free) and
 * its length; NULL when there is no such name. */
const char *lp_stacks_name_text(const struct lp_stacks *s, uint32_t id, size_t *len);

/* The node of the frame named name called from node parent, made when
 * new: its number (1, 2, ... in the order made), -EINVAL when parent or
 * name does not exist, or -ENOMEM. */
int64_t lp_stacks_child(struct lp_stacks *s, uint32_t parent, uint32_t name);

/* The node of a folded stack (len bytes, frames separated by ';', no
 * count) below node from (LP_STACKS_ROOT: a stack of its own), its names
 * interned and nodes made as needed; -EINVAL (no node from), -ENOMEM. */
int64_t lp_stacks_path(struct lp_stacks *s, uint32_t from, const char *text, size_t len);

/* Adds n to the count of the stack ending at node, which is a stack from
 * then on whatever its count (n 0 makes a stack of count 0, as a folded
 * line may have).  0, or -EINVAL when node is not one (or is the root). */
int lp_stacks_add(struct lp_stacks *s, uint32_t node, uint64_t n);

struct lp_stacks_node {
	uint32_t parent;        /* LP_STACKS_ROOT for the first frame */
	uint32_t name;
	uint32_t depth;         /* frames from the root: 1 for the first */
	bool stack;             /* a stack ends here (lp_stacks_add) */
	uint64_t count;         /* of the stacks ending here */
};

/* The number of nodes, the root included: nodes are 0 .. result - 1. */
size_t lp_stacks_nodes(const struct lp_stacks *s);

/* Node i (< lp_stacks_nodes); the root is { 0, 0, 0, false, 0 }. */
struct lp_stacks_node lp_stacks_node(const struct lp_stacks *s, uint32_t i);

/* The number of stacks (nodes a stack ends at) and their counts' sum. */
size_t lp_stacks_stacks(const struct lp_stacks *s);
uint64_t lp_stacks_sum(const struct lp_stacks *s);

/* Appends the folded text of node's stack ("a;b;c") to out (errors stick
 * in out->err). */
void lp_stacks_text(const struct lp_stacks *s, uint32_t node, struct lp_buf *out);

/* The stacks below node from (LP_STACKS_ROOT: all) and their counts' sum,
 * into *stacks and *sum (counted when asked: a walk of the nodes). */
void lp_stacks_below(const struct lp_stacks *s, uint32_t from, size_t *stacks, uint64_t *sum);

/* Called for each stack; non-zero stops the walk and is returned. */
typedef int (*lp_stacks_visit_fn)(void *ctx, uint32_t node, const char *text, size_t len,
			    uint64_t count);

/* Calls fn for every stack below node from (LP_STACKS_ROOT: every stack)
 * in the order of their text, from's names and those above it left out
 * (bytes compared as unsigned, a stack before those it is a prefix of),
 * with that text, NUL-terminated, which is in text (appended: the caller
 * frees it, and the texts stay valid until then).  0, fn's non-zero, or
 * -ENOMEM. */
int lp_stacks_sorted(const struct lp_stacks *s, uint32_t from, lp_stacks_visit_fn fn, void *ctx,
		     struct lp_buf *text);

#endif
