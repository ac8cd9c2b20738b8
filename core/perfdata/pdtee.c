/*
 * pdtee.c - a tee: a source (source.h) whose records are written to a
 * perf.data writer as they pass, as the kernel gave them (they carry the
 * ids the events were declared with), so that the file reads like one of
 * perf record's.  What the recording notes of them (the objects samples
 * landed in) and how its failure is said are its user's (the hooks).
 */
#include <errno.h>
#include <stdlib.h>

#include "luaprof/capture.h"
#include "luaprof/perfdata.h"

struct lp_pd_tee {
	struct lp_source inner;
	struct lp_pd_writer *w;
	struct lp_pd_tee_hooks hooks;
};

static int tee_next(void *ctx, struct lp_record *r, int *event)
{
	struct lp_pd_tee *tee = ctx;
	int rc = tee->inner.next(tee->inner.ctx, r, event);
	if (rc != 1 || r->type == LP_RECORD_CAPTURE)
		return rc;      /* the end, an error, an alarm or input (no record),
				 * or luaprof's own capture, which perf would refuse */
	if (!tee->hooks.failed(tee->hooks.ctx)) {
		int err = lp_pd_writer_write(tee->w, r->data);
		if (err)
			tee->hooks.fail(tee->hooks.ctx, err);
	}
	int err = tee->hooks.seen ? tee->hooks.seen(tee->hooks.ctx, r) : 0;
	if (err)
		tee->hooks.fail(tee->hooks.ctx, err);
	return rc;
}

static void tee_stop(void *ctx)
{
	struct lp_pd_tee *tee = ctx;
	tee->inner.stop(tee->inner.ctx);
}

static void tee_watch(void *ctx, int fd)
{
	struct lp_pd_tee *tee = ctx;
	tee->inner.watch(tee->inner.ctx, fd);
}

static const char *tee_event_name(void *ctx, int idx)
{
	struct lp_pd_tee *tee = ctx;
	return tee->inner.event_name(tee->inner.ctx, idx);
}

static const struct lp_tp_format *tee_event_format(void *ctx, int idx)
{
	struct lp_pd_tee *tee = ctx;
	return tee->inner.event_format ? tee->inner.event_format(tee->inner.ctx, idx) : NULL;
}

static uint64_t tee_sample_type(void *ctx, int idx)
{
	struct lp_pd_tee *tee = ctx;
	return tee->inner.sample_type ? tee->inner.sample_type(tee->inner.ctx, idx) : ~(uint64_t)0;
}

struct lp_pd_tee *lp_pd_tee_new(const struct lp_source *inner, struct lp_pd_writer *w,
				const struct lp_pd_tee_hooks *hooks, struct lp_source *out)
{
	struct lp_pd_tee *tee = malloc(sizeof *tee);
	if (!tee)
		return NULL;
	*tee = (struct lp_pd_tee){ *inner, w, *hooks };
	*out = (struct lp_source){ tee, tee_next, tee_stop, tee_event_name, tee_event_format,
				   tee_sample_type, tee->inner.watch ? tee_watch : NULL, NULL };
	return tee;
}

void lp_pd_tee_free(struct lp_pd_tee *tee)
{
	free(tee);
}
