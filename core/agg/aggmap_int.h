/*
 * aggmap_int.h - the insides of core/agg's maps (include/luaprof/aggmap.h)
 * for the per-sample path of agg.c: finding an entry and folding a value
 * into it, inline, as aggmap.c does.
 */
#ifndef LP_AGG_AGGMAP_INT_H
#define LP_AGG_AGGMAP_INT_H

#include <errno.h>
#include <string.h>

#include "luaprof/aggmap.h"
#include "luaprof/hmap.h"

struct lp_aggmap {
	uint8_t op;
	int nr_keys;                    /* -1: no shape yet */
	bool is_str[LP_AGGMAP_MAX_KEYS];
	struct lp_lhist lh;             /* LHIST */
	struct lp_hmap *map;
	uint64_t *extra;                /* per words an entry */
	size_t per, cap;                /* ... and the entries it has room for */
	uint64_t gen;                   /* bumped by clear */
	uint8_t *key, *last;            /* lp_aggmap_add's key, and its previous one */
	size_t cap_key, last_len;
	int64_t last_idx;               /* the previous key's entry, or -1 */
	uint64_t last_gen;
};

/* Room in m->extra for n entries; false when out of memory (aggmap.c). */
bool lp_aggmap_grow(struct lp_aggmap *m, size_t n);

/* lp_aggmap_find. */
static inline int64_t aggmap_find(struct lp_aggmap *m, const void *key, size_t len, bool *added)
{
	*added = false;
	/* the new entry's words first: an entry never lacks them */
	if (m->per && lp_hmap_count(m->map) >= m->cap && !lp_aggmap_grow(m, lp_hmap_count(m->map) + 1))
		return -ENOMEM;
	int64_t i = lp_hmap_find(m->map, key, len, lp_hash(key, len), true, added);
	if (i >= 0 && *added && m->per)
		memset(m->extra + (size_t)i * m->per, 0, m->per * sizeof *m->extra);
	return i;
}

/* lp_aggmap_fold. */
static inline void aggmap_fold(struct lp_aggmap *m, size_t i, bool added, int64_t v)
{
	uint64_t *slot = lp_hmap_value(m->map, i);
	switch (m->op) {
	case LP_AGG_COUNT:
		*slot += 1;
		break;
	case LP_AGG_SUM:
		*slot += (uint64_t)v;
		break;
	case LP_AGG_MIN:
		if (added || v < (int64_t)*slot)
			*slot = (uint64_t)v;
		break;
	case LP_AGG_MAX:
		if (added || v > (int64_t)*slot)
			*slot = (uint64_t)v;
		break;
	case LP_AGG_AVG:
	case LP_AGG_STATS:
		*slot += 1;
		m->extra[i] += (uint64_t)v;
		break;
	case LP_AGG_HIST:
		*slot += 1;
		m->extra[i * LP_AGG_BUCKETS + lp_agg_bucket(v)]++;
		break;
	default:
		*slot += 1;
		m->extra[i * m->per + lp_lhist_bucket(&m->lh, v)]++;
		break;
	}
}

#endif
