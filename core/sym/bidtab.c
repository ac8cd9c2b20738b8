/*
 * bidtab.c - the build-ids a recording gives for its objects, by path.
 *
 * An array sorted on first lookup after additions (entries arrive in
 * batches: the file's table at open, pipe-mode records later), searched by
 * binary search.  A path given twice keeps its last build-id, as perf's
 * reader does.  Lookups happen once per object opened, never per sample.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sym/sym_int.h"
#include "util/grow.h"

struct lp_bidtab {
	struct lp_bid_want *v;
	size_t nr, cap;
	bool sorted;
};

struct lp_bidtab *lp_bidtab_new(void)
{
	struct lp_bidtab *t = calloc(1, sizeof *t);

	if (t)
		t->sorted = true;
	return t;
}

void lp_bidtab_free(struct lp_bidtab *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nr; i++)
		free(t->v[i].path);
	free(t->v);
	free(t);
}

int lp_bidtab_add(struct lp_bidtab *t, const char *path, const uint8_t *id, size_t size)
{
	if (!path || !size || size > LP_BUILD_ID_SIZE)
		return -EINVAL;
	if (lp_grow(&t->v, &t->cap, t->nr, sizeof *t->v, 32, SIZE_MAX))
		return -ENOMEM;
	struct lp_bid_want *w = &t->v[t->nr];
	*w = (struct lp_bid_want){ .path = strdup(path), .size = (uint8_t)size,
				   .seq = t->nr };
	if (!w->path)
		return -ENOMEM;
	memcpy(w->id, id, size);
	t->nr++;
	t->sorted = false;
	return 0;
}

/* By path, then by order of addition. */
static int cmp_want(const void *a, const void *b)
{
	const struct lp_bid_want *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	return c ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

/* Sorts, keeping the last entry of each path. */
static void settle(struct lp_bidtab *t)
{
	size_t k = 0;

	if (t->nr)              /* qsort takes no NULL array, even empty */
		qsort(t->v, t->nr, sizeof *t->v, cmp_want);
	for (size_t i = 0; i < t->nr; i++) {
		if (i + 1 < t->nr && !strcmp(t->v[i].path, t->v[i + 1].path)) {
			t->v[i + 1].warned |= t->v[i].warned;
			free(t->v[i].path);
			continue;
		}
		t->v[k++] = t->v[i];
	}
	for (size_t i = 0; i < k; i++)
		t->v[i].seq = i;
	t->nr = k;
	t->sorted = true;
}

struct lp_bid_want *lp_bidtab_find(struct lp_bidtab *t, const char *path)
{
	if (!t->sorted)
		settle(t);
	size_t lo = 0, hi = t->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(path, t->v[mid].path);
		if (!c)
			return &t->v[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

size_t lp_bidtab_count(struct lp_bidtab *t)
{
	if (!t->sorted)
		settle(t);
	return t->nr;
}
