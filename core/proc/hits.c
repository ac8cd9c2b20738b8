/*
 * hits.c - the set of objects samples landed in (see hits.h).
 *
 * Objects are kept in first-hit order in an array, and found by an
 * open-addressing hash of array indices keyed by (path pointer, device,
 * inode): paths are interned by the process model, so equal paths are the
 * same pointer.  The table stays at most half full.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "luaprof/hits.h"
#include "util/grow.h"

struct lp_hits {
	struct lp_map *objs;
	size_t nr, cap;
	uint32_t *slots;        /* index + 1 into objs; 0 = empty */
	size_t nr_slots;        /* a power of two */
};

struct lp_hits *lp_hits_new(void)
{
	struct lp_hits *h = calloc(1, sizeof *h);
	if (!h)
		return NULL;
	h->nr_slots = 64;
	if (!(h->slots = calloc(h->nr_slots, sizeof *h->slots))) {
		free(h);
		errno = ENOMEM;
		return NULL;
	}
	return h;
}

void lp_hits_free(struct lp_hits *h)
{
	if (!h)
		return;
	free(h->objs);
	free(h->slots);
	free(h);
}

static bool same_object(const struct lp_map *a, const struct lp_map *b)
{
	return a->path == b->path && a->ino == b->ino && a->maj == b->maj && a->min == b->min;
}

static size_t hash_object(const struct lp_map *m, size_t nr_slots)
{
	uint64_t k = (uint64_t)(uintptr_t)m->path ^ (m->ino * 0x9e3779b97f4a7c15ull) ^
		     ((uint64_t)m->maj << 32 | m->min);
	k ^= k >> 29;
	k *= 0xbf58476d1ce4e5b9ull;
	k ^= k >> 32;
	return (size_t)k & (nr_slots - 1);
}

/* The slot holding m's object, or the empty slot where it belongs. */
static uint32_t *find_slot(const struct lp_hits *h, const struct lp_map *m)
{
	size_t i = hash_object(m, h->nr_slots);
	while (h->slots[i] && !same_object(&h->objs[h->slots[i] - 1], m))
		i = (i + 1) & (h->nr_slots - 1);
	return &h->slots[i];
}

static int grow_slots(struct lp_hits *h)
{
	size_t n = h->nr_slots * 2;
	uint32_t *old = h->slots;
	if (!(h->slots = calloc(n, sizeof *h->slots))) {
		h->slots = old;
		return -ENOMEM;
	}
	h->nr_slots = n;
	for (size_t i = 0; i < h->nr; i++)
		*find_slot(h, &h->objs[i]) = (uint32_t)(i + 1);
	free(old);
	return 0;
}

int lp_hits_add(struct lp_hits *h, const struct lp_map *m)
{
	if (*find_slot(h, m))
		return 0;
	if ((h->nr + 1) * 2 > h->nr_slots && grow_slots(h))
		return -ENOMEM;
	if (lp_grow(&h->objs, &h->cap, h->nr, sizeof *h->objs, 16, UINT32_MAX - 1))
		return -ENOMEM;
	h->objs[h->nr++] = *m;
	*find_slot(h, m) = (uint32_t)h->nr;
	return 0;
}

int lp_hits_sample(struct lp_hits *h, struct lp_procs *ps, const struct lp_record *r)
{
	const struct lp_map *m = lp_procs_hit(ps, r);
	return m ? lp_hits_add(h, m) : 0;
}

size_t lp_hits_count(const struct lp_hits *h)
{
	return h->nr;
}

const struct lp_map *lp_hits_get(const struct lp_hits *h, size_t i)
{
	return i < h->nr ? &h->objs[i] : NULL;
}
