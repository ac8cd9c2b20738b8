/*
 * ranges.c - address ranges with a value each (ranges.h).
 *
 * The ranges are kept sorted by start, but for a tail of the last TAIL
 * added, which a find scans and which is merged into the sorted part when
 * full: an insertion costs no shift of the whole array, and a find is a
 * binary search of warm memory plus a scan of at most TAIL ranges.
 */
#include <stdlib.h>
#include <string.h>

#include "luaprof/ranges.h"

#define TAIL 32
#define MAX_RANGES ((size_t)1 << 16)

struct range {
	uint64_t lo, hi, val;
};

struct lp_ranges {
	struct range *v;
	size_t nr, sorted, cap;         /* v[0, sorted) in start order, then the tail */
	bool full;                      /* at the bound or out of memory */
};

struct lp_ranges *lp_ranges_new(void)
{
	return calloc(1, sizeof(struct lp_ranges));
}

void lp_ranges_free(struct lp_ranges *r)
{
	if (!r)
		return;
	free(r->v);
	free(r);
}

void lp_ranges_clear(struct lp_ranges *r)
{
	if (r) {
		r->nr = r->sorted = 0;
		r->full = false;
	}
}

/* The range holding at, or NULL. */
static const struct range *holding(const struct lp_ranges *r, uint64_t at)
{
	size_t lo = 0, hi = r->sorted;  /* the first range starting past at */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->v[mid].lo <= at)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && at < r->v[lo - 1].hi)
		return &r->v[lo - 1];
	for (size_t i = r->sorted; i < r->nr; i++)
		if (r->v[i].lo <= at && at < r->v[i].hi)
			return &r->v[i];
	return NULL;
}

bool lp_ranges_find(const struct lp_ranges *r, uint64_t at, uint64_t *val, uint64_t *lo,
		    uint64_t *hi)
{
	const struct range *x = r && r->nr ? holding(r, at) : NULL;
	if (!x)
		return false;
	*val = x->val;
	*lo = x->lo;
	*hi = x->hi;
	return true;
}

static int by_start(const void *a, const void *b)
{
	const struct range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Sorts the tail and merges it into the sorted part, from the back. */
static void merge_tail(struct lp_ranges *r)
{
	struct range tail[TAIL];
	size_t n = r->nr - r->sorted, i = r->sorted, j = n, k = r->nr;
	memcpy(tail, r->v + r->sorted, n * sizeof *tail);
	qsort(tail, n, sizeof *tail, by_start);
	while (j > 0) {
		if (i > 0 && r->v[i - 1].lo > tail[j - 1].lo)
			r->v[--k] = r->v[--i];
		else
			r->v[--k] = tail[--j];
	}
	r->sorted = r->nr;
}

/* Room for one more range; false when there is none. */
static bool room(struct lp_ranges *r)
{
	if (r->nr < r->cap)
		return true;
	size_t cap = r->cap ? r->cap + r->cap / 2 : 16;        /* most sets stay small */
	if (cap > MAX_RANGES)
		cap = MAX_RANGES;
	struct range *v = r->nr < MAX_RANGES ? realloc(r->v, cap * sizeof *v) : NULL;
	if (!v)
		return !(r->full = true);
	r->v = v;
	r->cap = cap;
	return true;
}

void lp_ranges_add(struct lp_ranges *r, uint64_t lo, uint64_t hi, uint64_t val)
{
	if (!r || lo >= hi || r->full || !room(r))
		return;
	r->v[r->nr++] = (struct range){ lo, hi, val };
	if (r->nr - r->sorted == TAIL)
		merge_tail(r);
}
