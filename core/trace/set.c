/*
 * set.c - tracepoint formats by id: those a recording stores, or those read
 * from tracefs.  Lookups happen once per event (callers cache them), so the
 * set is a plain array searched in order.
 */
#include <errno.h>
#include <stdlib.h>

#include "luaprof/trace.h"
#include "util/grow.h"

struct lp_tp_set {
	struct lp_tp_format **v;
	size_t n, cap;
};

struct lp_tp_set *lp_tp_set_new(void)
{
	return calloc(1, sizeof(struct lp_tp_set));
}

int lp_tp_set_add(struct lp_tp_set *set, struct lp_tp_format *f)
{
	if (lp_tp_set_find(set, f->id)) {
		free(f);
		return 0;
	}
	if (lp_grow(&set->v, &set->cap, set->n, sizeof *set->v, 16, SIZE_MAX)) {
		free(f);
		return -ENOMEM;
	}
	set->v[set->n++] = f;
	return 0;
}

const struct lp_tp_format *lp_tp_set_find(const struct lp_tp_set *set, uint64_t id)
{
	for (size_t i = 0; set && i < set->n; i++)
		if (set->v[i]->id == id)
			return set->v[i];
	return NULL;
}

size_t lp_tp_set_count(const struct lp_tp_set *set)
{
	return set ? set->n : 0;
}

void lp_tp_set_free(struct lp_tp_set *set)
{
	if (!set)
		return;
	for (size_t i = 0; i < set->n; i++)
		free(set->v[i]);
	free(set->v);
	free(set);
}
