/*
 * hits.c - the set of objects samples landed in (see hits.h).
 *
 * Objects are kept in first-hit order in an array, and found through the
 * generic table (htab.c) keyed by array index, hashing and comparing the
 * objects' (path pointer, device, inode): paths are interned by the
 * process model, so equal paths are the same pointer.  A lookup is keyed
 * by PROBE, which stands for the object being looked up (h->probe).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "luaprof/hits.h"
#include "util/grow.h"
#include "util/htab.h"

#define PROBE UINT64_MAX

struct lp_hits {
	struct lp_map *objs;
	size_t nr, cap;
	struct lp_htab *index;          /* index into objs -> nothing */
	const struct lp_map *probe;
};

static const struct lp_map *obj_of(const struct lp_hits *h, uint64_t k)
{
	return k == PROBE ? h->probe : &h->objs[k];
}

static uint64_t hash_object(uint64_t k, void *ctx)
{
	const struct lp_map *m = obj_of(ctx, k);
	uint64_t x = (uint64_t)(uintptr_t)m->path ^ (m->ino * 0x9e3779b97f4a7c15ull) ^
		     ((uint64_t)m->maj << 32 | m->min);
	x ^= x >> 29;
	x *= 0xbf58476d1ce4e5b9ull;
	return x ^ (x >> 32);
}

static bool same_object(uint64_t k1, uint64_t k2, void *ctx)
{
	const struct lp_map *a = obj_of(ctx, k1), *b = obj_of(ctx, k2);
	return a->path == b->path && a->ino == b->ino && a->maj == b->maj && a->min == b->min;
}

struct lp_hits *lp_hits_new(void)
{
	struct lp_hits *h = calloc(1, sizeof *h);
	if (!h || !(h->index = lp_htab_new(hash_object, same_object, h))) {
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
	lp_htab_free(h->index);
	free(h);
}

int lp_hits_add(struct lp_hits *h, const struct lp_map *m)
{
	bool added;
	if (lp_grow(&h->objs, &h->cap, h->nr, sizeof *h->objs, 16, UINT32_MAX - 1))
		return -ENOMEM;
	h->probe = m;
	struct lp_htab_ent *e = lp_htab_add(h->index, PROBE, &added);
	if (!e)
		return -ENOMEM;
	if (added) {
		h->objs[h->nr] = *m;
		e->key = h->nr++;
	}
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
