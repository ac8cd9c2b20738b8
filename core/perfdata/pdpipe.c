/*
 * pdpipe.c - perf's own record types (type >= 64): the in-band header of
 * pipe mode and the bookkeeping records of both layouts.
 *
 * perf processes these at once, in file order, never through the time
 * ordering queue; so does this reader.  Consumed here:
 *   HEADER_ATTR      attr (attr.size bytes, 0 = 64) then u64 ids to the end
 *   HEADER_EVENT_TYPE, ID_INDEX, FINISHED_INIT, AUXTRACE_INFO, TIME_CONV,
 *   THREAD_MAP, CPU_MAP                                   (nothing needed)
 *   HEADER_TRACING_DATA  u32 size: that many payload bytes follow the record
 *                    (the tracepoint formats, read as the feature's)
 *   AUXTRACE         u64 size: that many AUX payload bytes follow the record
 *   HEADER_BUILD_ID  one build-id entry (see pdfeat.c)
 *   HEADER_FEATURE   u64 feature id, then the feature payload
 *   EVENT_UPDATE     u64 type, u64 id; type NAME (2) carries a string
 *   FINISHED_ROUND   flush point of the ordering queue
 *   COMPRESSED(2)    zstd-wrapped records (pdcomp.c)
 * Returned to the user: AUXTRACE_ERROR, STAT_CONFIG, STAT, STAT_ROUND and
 * unknown types.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "luaprof/luaprof.h"
#include "perfdata/perfdata_int.h"

enum {
	TIME_CONV = 79,
	THREAD_MAP = 73,
	CPU_MAP = 74,
	EVENT_UPDATE_NAME = 2,
	FEAT_LAST = 32,                 /* end-of-features marker of pipe mode */
};

static int bad(struct lp_perfdata *pd, const struct pd_rec *r, const char *what)
{
	return pd_error(pd, r->off, -EPROTO, "%s record of %u bytes: %s",
			r->h->type == PD_HEADER_ATTR ? "HEADER_ATTR" :
			r->h->type == PD_HEADER_FEATURE ? "HEADER_FEATURE" :
			r->h->type == PD_AUXTRACE ? "AUXTRACE" :
			r->h->type == PD_HEADER_TRACING_DATA ? "TRACING_DATA" : "user",
			r->h->size, what);
}

static int header_attr(struct lp_perfdata *pd, const struct pd_rec *r)
{
	const uint8_t *p = (const uint8_t *)(r->h + 1);
	size_t body = r->h->size - sizeof *r->h;
	uint32_t attr_sz;
	int idx;

	if (body < PERF_ATTR_SIZE_VER0)
		return bad(pd, r, "shorter than the smallest attr");
	attr_sz = pd_u32(p + 4);
	if (!attr_sz)
		attr_sz = PERF_ATTR_SIZE_VER0;
	if (attr_sz > body)
		return bad(pd, r, "attr.size is larger than the record");
	idx = pd_event_add(pd, p, attr_sz, p + attr_sz, (body - attr_sz) / sizeof(uint64_t),
			   r->off);
	return idx < 0 ? idx : 0;
}

static int event_update(struct lp_perfdata *pd, const struct pd_rec *r)
{
	const uint8_t *p = (const uint8_t *)(r->h + 1);
	size_t body = r->h->size - sizeof *r->h;
	int idx;

	if (body < 16 || pd_u64(p) != EVENT_UPDATE_NAME)
		return 0;
	idx = pd_event_by_id(pd, pd_u64(p + 8));
	if (idx < 0) {
		lp_log(LP_DEBUG, "perfdata: %s: offset %llu: EVENT_UPDATE for unknown id",
		       pd->path, (unsigned long long)r->off);
		return 0;
	}
	if (!memchr(p + 16, 0, body - 16))
		return bad(pd, r, "event name is not NUL-terminated");
	if (pd_event_set_name(pd, (size_t)idx, (const char *)(p + 16),
			      strlen((const char *)(p + 16)), true))
		return pd_error(pd, r->off, -ENOMEM, "out of memory");
	return 0;
}

static int header_feature(struct lp_perfdata *pd, const struct pd_rec *r)
{
	const uint8_t *p = (const uint8_t *)(r->h + 1);
	size_t body = r->h->size - sizeof *r->h;
	uint64_t feat;

	if (body < sizeof feat)
		return bad(pd, r, "no feature id");
	feat = pd_u64(p);
	if (feat >= PD_FEAT_BITS || feat == FEAT_LAST)
		return 0;
	return pd_feat_parse(pd, (unsigned)feat, p + 8, body - 8, r->off + 16);
}

static int build_id(struct lp_perfdata *pd, const struct pd_rec *r)
{
	int err = pd_feat_build_id(pd, (const uint8_t *)r->h, r->h->size, false);

	if (err == -ENOMEM)
		return pd_error(pd, r->off, err, "out of memory");
	if (err)
		lp_log(LP_WARN, "perfdata: %s: offset %llu: malformed HEADER_BUILD_ID, ignored",
		       pd->path, (unsigned long long)r->off);
	return 0;
}

/* AUXTRACE and TRACING_DATA: a payload follows the record in the file;
 * AUXTRACE's is skipped, TRACING_DATA's read. */
static int payload(struct lp_perfdata *pd, const struct pd_rec *r)
{
	const uint8_t *p = (const uint8_t *)(r->h + 1);
	bool aux = r->h->type == PD_AUXTRACE;
	uint64_t n, off = r->off + r->h->size;
	uint8_t *data;
	int err;

	if (r->h->size < (aux ? 16 : 12))
		return bad(pd, r, "too short to hold the payload size");
	n = aux ? pd_u64(p) : pd_u32(p);
	if (r->inner)
		return n ? bad(pd, r, "payload inside compressed data") : 0;
	if (aux)
		return pd_src_skip(pd, n, "AUXTRACE");
	if ((err = pd_src_take(pd, n, "TRACING_DATA", &data)))
		return err;
	err = pd_feat_tracing(pd, data, (size_t)n, off);
	free(data);
	return err;
}

static int finished_round(struct lp_perfdata *pd)
{
	if (!pd->ordered)
		return 0;
	return pd_order_round(&pd->order) ? pd_error(pd, PD_NO_OFF, -ENOMEM, "out of memory") : 0;
}

bool pd_is_header_record(uint32_t type)
{
	switch (type) {
	case PD_HEADER_ATTR: case PD_HEADER_EVENT_TYPE: case PD_HEADER_TRACING_DATA:
	case PD_HEADER_BUILD_ID: case PD_FINISHED_ROUND: case PD_ID_INDEX:
	case PD_AUXTRACE_INFO: case PD_AUXTRACE: case PD_EVENT_UPDATE:
	case PD_HEADER_FEATURE: case PD_FINISHED_INIT: case TIME_CONV:
	case THREAD_MAP: case CPU_MAP:
		return true;
	default:
		return false;
	}
}

/* Whether the record changes the events or the header facts. */
static bool changes_header(uint32_t type)
{
	return type == PD_HEADER_ATTR || type == PD_EVENT_UPDATE || type == PD_HEADER_FEATURE ||
	       type == PD_HEADER_BUILD_ID || type == PD_HEADER_TRACING_DATA;
}

int pd_user_record(struct lp_perfdata *pd, const struct pd_rec *r)
{
	int err;

	if (changes_header(r->h->type) && pd->barrier && (err = pd->barrier(pd)))
		return err;
	switch (r->h->type) {
	case PD_HEADER_ATTR:
		return header_attr(pd, r);
	case PD_EVENT_UPDATE:
		return event_update(pd, r);
	case PD_HEADER_FEATURE:
		return header_feature(pd, r);
	case PD_HEADER_BUILD_ID:
		return build_id(pd, r);
	case PD_AUXTRACE:
	case PD_HEADER_TRACING_DATA:
		return payload(pd, r);
	case PD_FINISHED_ROUND:
		return finished_round(pd);
	case PD_COMPRESSED:
	case PD_COMPRESSED2:
		return pd_comp_feed(pd, r);
	default:
		return pd_is_header_record(r->h->type) ? 0 : 1;
	}
}
