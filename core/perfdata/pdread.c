/*
 * pdread.c - reading a recording's records one by one, on whichever thread
 * reads (the caller's, or pdahead.c's): fetched from the source, decoded,
 * perf's own records applied to the reader's state (pdpipe.c), samples
 * and the rest queued and handed out in perf's time order (pdorder.c).
 */
#include <byteswap.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "luaprof/luaprof.h"
#include "luaprof/trace.h"
#include "perfdata/perfdata_int.h"
#include "util/bits.h"

/* An error in the input: the records queued before it are still whole, so
 * they are delivered first (in time order), then the error.  -EINTR is
 * no error: a stream's wait was stopped (lp_perfdata_set_stop), and the
 * input ends there, the queue delivered as at its end. */
bool pd_drain(struct lp_perfdata *pd, int err)
{
	pd->eof = true;
	pd->draining = err != -ENOMEM && !pd_order_final(&pd->order);
	return pd->draining;
}

/* perf's evsel__parse_sample_timestamp: UINT64_MAX when there is none. */
static uint64_t peek_time(const struct lp_pd_event *e, const struct perf_event_header *h)
{
	uint64_t st = e->attr.sample_type;
	const uint64_t *a = (const uint64_t *)(h + 1);
	size_t n = (h->size - sizeof *h) / sizeof *a, i;

	if (!(st & PERF_SAMPLE_TIME))
		return UINT64_MAX;
	if (h->type == PERF_RECORD_SAMPLE) {
		i = lp_popcount(st & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
						       PERF_SAMPLE_TID));
		return i < n ? a[i] : UINT64_MAX;
	}
	if (!e->attr.sample_id_all)
		return UINT64_MAX;
	i = 1 + (size_t)lp_popcount(st & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_CPU |
						   PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_ID));
	return i <= n ? a[n - i] : UINT64_MAX;
}

/* Decodes a record for the user; idx < 0: no event. */
static int deliver(struct lp_perfdata *pd, const void *rec, uint64_t off, int idx,
		   struct lp_record *out, const struct lp_pd_event **ev)
{
	const struct perf_event_header *h = rec;
	const struct lp_pd_event *e = idx >= 0 ? pd->evs[idx] : NULL;

	if (lp_record_parse(rec, h->size, e ? &e->fmt : &pd->nofmt, out))
		return pd_error(pd, off, -EPROTO, "record type %u of %u bytes does not decode "
				"with the layout of event '%s'", h->type, h->size,
				e ? LP_SHOW(e->name) : "(none)");
	*ev = e;
	return 1;
}

static int fetch(struct lp_perfdata *pd, struct pd_rec *r)
{
	int n;

	if (pd->has_pending) {
		*r = pd->pending;
		pd->has_pending = false;
		return 1;
	}
	n = pd->comp ? pd_comp_next(pd, r) : 0;        /* no call per record unless compressed */
	if (!n)
		n = pd_src_next(pd, r);
	if (n > 0)
		pd->stats.nr_records++;
	return n;
}

static int at_end(struct lp_perfdata *pd)
{
	size_t left = pd_comp_pending(pd->comp);

	if (left)
		lp_log(LP_WARN, "perfdata: %s: %zu bytes of a record cut off at the end of the "
		       "compressed data, ignored", pd->path, left);
	pd->eof = true;
	if (pd->ordered && pd_order_final(&pd->order))
		return pd_error(pd, PD_NO_OFF, -ENOMEM, "out of memory sorting records");
	return 0;
}

static int kernel_record(struct lp_perfdata *pd, const struct pd_rec *r,
			 struct lp_record *out, const struct lp_pd_event **ev)
{
	int idx = pd_event_of(pd, r->h);
	uint64_t t;

	if (idx == -EPROTO)
		return pd_error(pd, r->off, -EPROTO, "record type %u of %u bytes is too short "
				"to hold its event id", r->h->type, r->h->size);
	if (idx < 0 && !pd->nr_evs)
		return pd_error(pd, r->off, -EPROTO, "record type %u before any event was "
				"defined", r->h->type);
	if (idx < 0) {
		pd->stats.nr_unknown_id++;
		lp_log(LP_DEBUG, "perfdata: %s: offset %llu: record of an unknown event id, "
		       "skipped", pd->path, (unsigned long long)r->off);
		return 0;
	}
	if (!pd->ordered)
		return deliver(pd, r->h, r->off, idx, out, ev);
	t = peek_time(pd->evs[idx], r->h);
	if (t == 0 || t == UINT64_MAX)
		return deliver(pd, r->h, r->off, idx, out, ev);
	if (pd_order_queue(&pd->order, t, r, (uint32_t)idx))
		return pd_error(pd, r->off, -ENOMEM, "out of memory queueing records");
	return 0;
}

static int dispatch(struct lp_perfdata *pd, const struct pd_rec *r,
		    struct lp_record *out, const struct lp_pd_event **ev)
{
	int n;

	if (r->h->type < PD_USER_TYPE_START)
		return kernel_record(pd, r, out, ev);
	n = pd_user_record(pd, r);
	if (n <= 0)
		return n;
	return deliver(pd, r->h, r->off, -1, out, ev);
}

int pd_read_next(struct lp_perfdata *pd, struct lp_record *rec, const struct lp_pd_event **ev)
{
	struct pd_oe e;
	struct pd_rec r;
	int n;

	if (pd->failed && !pd->draining)
		return pd->failed;
	pd_order_release(&pd->order);
	for (;;) {
		if (pd_order_pop(&pd->order, &e)) {
			n = deliver(pd, e.rec, e.off, (int)e.ev, rec, ev);
			if (n < 0)
				pd->draining = false;
			return n;
		}
		if (pd->eof)
			return pd->failed;
		n = fetch(pd, &r);
		n = n < 0 ? n : n ? dispatch(pd, &r, rec, ev) : at_end(pd);
		if (n < 0 && !pd_drain(pd, n))
			return n;
		if (n > 0)
			return n;
	}
}

