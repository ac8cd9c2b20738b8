/*
 * evspecs.c - the growing list of event specs that the parsers of the -e
 * syntax append to (evparse.h), and its freeing (event.h).  Below every
 * parser: it calls none of them.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "live/evparse.h"
#include "luaprof/event.h"
#include "util/grow.h"

struct lp_event_spec *lp_evparse_push(struct lp_event_list *l)
{
	if (lp_grow(&l->v, &l->cap, l->n, sizeof *l->v, 8, SIZE_MAX))
		return NULL;
	memset(&l->v[l->n], 0, sizeof *l->v);
	l->v[l->n].callchain = -1;
	return &l->v[l->n++];
}

void lp_evparse_truncate(struct lp_event_list *l, size_t keep)
{
	while (l->n > keep)
		lp_event_spec_free(&l->v[--l->n]);
}

void lp_event_list_free(struct lp_event_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		lp_event_spec_free(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof *l);
}
