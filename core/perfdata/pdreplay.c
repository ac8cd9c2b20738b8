/*
 * pdreplay.c - a recording's records as a source (source.h) for the loop
 * that feeds a script: each record with its event's index, the events'
 * names, sample bits and tracepoint formats (the recording's own), the
 * build-ids as they arrive, and the span of the samples' times.  What is
 * about the user (a progress line, signals, a deadline) comes in through
 * the halt hook.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "luaprof/err.h"
#include "luaprof/luaprof.h"
#include "luaprof/perfdata.h"

struct lp_pd_source {
	struct lp_perfdata *pd;
	struct lp_pd_source_hooks hooks;
	size_t nr_bids_given;           /* build-id entries handed to the hook */
	bool stopped;
	uint64_t first_time, last_time;
	const struct lp_pd_event *last_ev;      /* event_index's last answer */
	int last_idx;
	char *error;            /* next's first failure's message, once it failed */
};

static int event_index(struct lp_pd_source *ps, const struct lp_pd_event *ev)
{
	if (ev && ev == ps->last_ev)            /* runs of one event's records */
		return ps->last_idx;
	size_t n = lp_perfdata_nr_events(ps->pd);
	for (size_t i = 0; ev && i < n; i++)
		if (lp_perfdata_event(ps->pd, i) == ev) {
			ps->last_ev = ev;
			ps->last_idx = (int)i;
			return (int)i;
		}
	return -1;
}

int lp_pd_source_build_ids(struct lp_pd_source *ps)
{
	const struct lp_pd_info *in = lp_perfdata_info(ps->pd);
	if (!ps->hooks.build_id) {
		ps->nr_bids_given = in->nr_build_ids;
		return 0;
	}
	for (; ps->nr_bids_given < in->nr_build_ids; ps->nr_bids_given++) {
		int rc = ps->hooks.build_id(ps->hooks.ctx, &in->build_ids[ps->nr_bids_given]);
		if (rc)
			return rc;
	}
	return 0;
}

static int source_next_ref(void *ctx, const struct lp_record **recp, int *event)
{
	struct lp_pd_source *ps = ctx;
	const struct lp_pd_event *ev = NULL;
	if (ps->stopped || (ps->hooks.halt && ps->hooks.halt(ps->hooks.ctx)))
		return 0;
	int rc = lp_perfdata_next_ref(ps->pd, recp, &ev);
	if (rc < 0 && !ps->error)       /* kept for the caller's line after the loop */
		ps->error = strdup(lp_last_error());
	if (rc > 0 && lp_perfdata_info(ps->pd)->nr_build_ids != ps->nr_bids_given) {
		int err = lp_pd_source_build_ids(ps);
		if (err)
			rc = err;
	}
	if (rc <= 0)
		return rc;
	const struct lp_record *rec = *recp;
	*event = event_index(ps, ev);
	uint64_t t = rec->type == PERF_RECORD_SAMPLE ? rec->u.sample.time : 0;
	if (t && (!ps->first_time || t < ps->first_time))       /* file order: lp_perfdata_unordered */
		ps->first_time = t;
	if (t > ps->last_time)
		ps->last_time = t;
	return 1;
}

static void source_stop(void *ctx)
{
	((struct lp_pd_source *)ctx)->stopped = true;
}

static const char *source_event_name(void *ctx, int idx)
{
	struct lp_pd_source *ps = ctx;
	if (idx < 0 || (size_t)idx >= lp_perfdata_nr_events(ps->pd))
		return NULL;
	return lp_perfdata_event(ps->pd, (size_t)idx)->name;
}

/* From the recording's own TRACING_DATA, never this machine's tracefs: a
 * recording made on another kernel decodes as it was recorded. */
static const struct lp_tp_format *source_event_format(void *ctx, int idx)
{
	struct lp_pd_source *ps = ctx;
	if (idx < 0 || (size_t)idx >= lp_perfdata_nr_events(ps->pd))
		return NULL;
	const struct lp_pd_event *ev = lp_perfdata_event(ps->pd, (size_t)idx);
	if (ev->attr.type == PERF_TYPE_TRACEPOINT && !ev->format)
		lp_log(LP_WARN, "the recording holds no format for tracepoint '%s' (no "
				"TRACING_DATA): s.args is nil for its samples", LP_SHOW(ev->name));
	return ev->format;
}

static uint64_t source_sample_type(void *ctx, int idx)
{
	struct lp_pd_source *ps = ctx;
	if (idx < 0 || (size_t)idx >= lp_perfdata_nr_events(ps->pd))
		return ~(uint64_t)0;
	return lp_perfdata_event(ps->pd, (size_t)idx)->attr.sample_type;
}

struct lp_pd_source *lp_pd_source_new(struct lp_perfdata *pd, const struct lp_pd_source_hooks *hooks,
				      struct lp_source *out)
{
	struct lp_pd_source *ps = calloc(1, sizeof *ps);
	if (!ps)
		return NULL;
	ps->pd = pd;
	if (hooks)
		ps->hooks = *hooks;
	*out = (struct lp_source){ .ctx = ps, .next_ref = source_next_ref, .stop = source_stop,
				   .event_name = source_event_name,
				   .event_format = source_event_format,
				   .sample_type = source_sample_type };
	return ps;
}

const char *lp_pd_source_error(const struct lp_pd_source *ps)
{
	return ps->error;
}

uint64_t lp_pd_source_span(const struct lp_pd_source *ps)
{
	return ps->last_time - ps->first_time;
}

void lp_pd_source_free(struct lp_pd_source *ps)
{
	if (!ps)
		return;
	free(ps->error);
	free(ps);
}
