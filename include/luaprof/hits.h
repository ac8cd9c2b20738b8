/* Part of include/luaprof/: the core's interface to the layer above it (lua/). */
/*
 * hits.h - the objects the samples of a run landed in: the ones perf
 * record writes build-ids for (its "dso hit" marks), gathered while the
 * run records instead of by a second pass over the file.
 *
 * A map's hit flag (lp_procs_hit) makes every sample after the first in a
 * map cost one hash lookup and one binary search; only a map's first hit
 * reaches the set, which holds each object (path, device, inode) once
 * however many processes map it.
 */
#ifndef LUAPROF_HITS_H
#define LUAPROF_HITS_H

#include <stddef.h>

#include "luaprof/proc.h"

struct lp_hits;

/* An empty set.  NULL and errno on failure.  Free with lp_hits_free(). */
struct lp_hits *lp_hits_new(void);
void lp_hits_free(struct lp_hits *h);

/* Notes the object sample r (a decoded PERF_RECORD_SAMPLE) landed in, as
 * ps sees it now (apply every earlier record first): lp_procs_hit(), and
 * on a map's first hit lp_hits_add().  Returns 0, or -ENOMEM when the
 * object could not be added. */
int lp_hits_sample(struct lp_hits *h, struct lp_procs *ps, const struct lp_record *r);

/* Adds m's object (its path pointer, device and inode) unless the set has
 * it; m is copied.  Returns 0 or -ENOMEM. */
int lp_hits_add(struct lp_hits *h, const struct lp_map *m);

/* The number of objects, and object i (i < count), in first-hit order: a
 * copy of the first map hit in it, whose path belongs to the lp_procs it
 * came from (valid until lp_procs_free()). */
size_t lp_hits_count(const struct lp_hits *h);
const struct lp_map *lp_hits_get(const struct lp_hits *h, size_t i);

#endif
