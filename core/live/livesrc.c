/*
 * livesrc.c - a live run's records as a source (source.h) for the loop
 * that feeds a script: lp_live_next and its kin, the events' names and
 * sample bits, and the tracepoints' formats, read from tracefs at each
 * one's first sample.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "luaprof/live.h"
#include "luaprof/luaprof.h"
#include "luaprof/trace.h"

struct lp_live_source {
	struct lp_live *lv;
	const struct lp_event_spec *events;
	size_t nr_events;
	struct lp_tp_set *formats;      /* tracepoint formats read so far */
};

static int source_next(void *ctx, struct lp_record *rec, int *event)
{
	return lp_live_next(((struct lp_live_source *)ctx)->lv, rec, event);
}


static void source_stop(void *ctx)
{
	lp_live_stop(((struct lp_live_source *)ctx)->lv);
}


static void source_watch(void *ctx, int fd)
{
	lp_live_watch(((struct lp_live_source *)ctx)->lv, fd);
}


static const char *source_event_name(void *ctx, int idx)
{
	const struct lp_live_source *ls = ctx;
	return idx >= 0 && (size_t)idx < ls->nr_events ? ls->events[idx].name : NULL;
}


/* A tracepoint's format, read from tracefs at its first sample. */
static const struct lp_tp_format *source_event_format(void *ctx, int idx)
{
	struct lp_live_source *ls = ctx;
	const struct lp_tp_format *found;
	struct lp_tp_format *f;
	char sys[256];
	if (idx < 0 || (size_t)idx >= ls->nr_events)
		return NULL;
	const struct lp_event_spec *e = &ls->events[idx];
	if (e->type != PERF_TYPE_TRACEPOINT || e->probe)
		return NULL;    /* a probe made a tracefs event (evdyn.c) has s.args of its own */
	if ((found = lp_tp_set_find(ls->formats, e->config)))
		return found;
	const char *colon = strchr(e->name, ':');
	snprintf(sys, sizeof sys, "%.*s", colon ? (int)(colon - e->name) : 0, e->name);
	int rc = ls->formats ? lp_tracefs_format(sys, colon ? colon + 1 : "", &f) : -ENOMEM;
	if (!rc && !(rc = lp_tp_set_add(ls->formats, f)))
		return lp_tp_set_find(ls->formats, e->config);
	lp_log(LP_WARN, "cannot read the format of '%s' (%s): s.args is nil for its samples",
	       LP_SHOW(e->name), strerror(-rc));
	return NULL;
}


static uint64_t source_sample_type(void *ctx, int idx)
{
	struct lp_live_source *ls = ctx;
	if (idx < 0 || (size_t)idx >= ls->nr_events)
		return ~(uint64_t)0;
	return lp_live_attr(ls->lv, (size_t)idx)->sample_type;
}


struct lp_live_source *lp_live_source_new(struct lp_live *lv, const struct lp_event_spec *events,
					  size_t nr_events, struct lp_source *out)
{
	struct lp_live_source *ls = calloc(1, sizeof *ls);
	if (!ls)
		return NULL;
	/* a set not made leaves every tracepoint without its format, each
	 * said once (source_event_format), as when tracefs cannot be read */
	*ls = (struct lp_live_source){ lv, events, nr_events, lp_tp_set_new() };
	*out = (struct lp_source){ ls, source_next, source_stop, source_event_name,
				   source_event_format, source_sample_type, source_watch, NULL };
	return ls;
}


void lp_live_source_free(struct lp_live_source *ls)
{
	if (!ls)
		return;
	lp_tp_set_free(ls->formats);
	free(ls);
}
