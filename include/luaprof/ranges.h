/* Part of include/luaprof/: the core's interface to the layer above it (lua/). */
/*
 * ranges.h - address ranges, each with a 64-bit value: what a
 * lookup answered for every address of a range, kept so that the next
 * lookup in it is answered without doing the work again (a symbol
 * table's lookups, symtab.c; the folded names of a file's frames,
 * lfoldids.c).
 *
 * A range is added by the caller that found it, where a find missed; a
 * range's value holds at each of its addresses, so ranges that overlap
 * (a caller's answers clipped differently) agree where they do, and a
 * find answers from one holding the address or misses.  A set holds at
 * most 65,536 ranges (24 bytes each); past that, or out of memory, ranges
 * are no longer kept: adding never fails, a later find just misses.
 */
#ifndef LUAPROF_RANGES_H
#define LUAPROF_RANGES_H

#include <stdbool.h>
#include <stdint.h>

struct lp_ranges;

/* An empty set, NULL when out of memory.  Free with lp_ranges_free
 * (NULL is fine). */
struct lp_ranges *lp_ranges_new(void);
void lp_ranges_free(struct lp_ranges *r);

/* Forgets every range, keeping the memory; NULL is fine. */
void lp_ranges_clear(struct lp_ranges *r);

/* Whether a range of r holds at; then *val gets its value and [*lo, *hi)
 * the range.  r NULL: false.  Never allocates. */
bool lp_ranges_find(const struct lp_ranges *r, uint64_t at, uint64_t *val, uint64_t *lo,
		    uint64_t *hi);

/* Keeps [lo, hi) with value val, the answer at each of its addresses.
 * An empty range is not kept; r NULL is fine. */
void lp_ranges_add(struct lp_ranges *r, uint64_t lo, uint64_t hi, uint64_t val);

#endif
