/*
 * pdevents.c - the events (attrs) of a recording and how records find theirs.
 *
 * Matching follows perf's evlist__event2evsel exactly, so luaprof sees the
 * same event for every record as perf script:
 *  - one event: every record is its;
 *  - a non-sample record when the first event has no sample_id_all: the
 *    first event;
 *  - otherwise the record's id, read at the position the FIRST event's
 *    sample_type gives (PERF_SAMPLE_IDENTIFIER: first u64 of a sample, last
 *    u64 of any other record; else the index of PERF_SAMPLE_ID counting the
 *    u64s before it in a sample, or after it in the sample_id trailer), is
 *    looked up among the ids of all events; id 0 (synthesized records) means
 *    the first event.
 * Hence the invariant checked when events are added: with several events,
 * all put the id at the same place and agree on sample_id_all (perf refuses
 * such files too: "non matching sample_type").
 *
 * Names: EVENT_DESC or EVENT_UPDATE when the file has them, else derived
 * from the attr like perf's evsel__name() ("cycles:ppH", "raw 0x1c4", ...).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "luaprof/trace.h"
#include "perfdata/perfdata_int.h"
#include "util/bits.h"
#include "util/grow.h"

struct pd_ev {
	struct lp_pd_event pub;         /* first: the public view */
	bool named;                     /* name came from the file */
	uint64_t *ids;
};

/* ---- id map: open addressing, linear probing, load <= 1/2 ---------------- */

static size_t slot_of(uint64_t id, size_t cap)
{
	return (size_t)((id * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
}

static void map_put(struct pd_idmap *m, uint64_t id, uint32_t val)
{
	size_t i = slot_of(id, m->cap);

	while (m->vals[i] && m->keys[i] != id)
		i = (i + 1) & (m->cap - 1);
	if (!m->vals[i])
		m->n++;
	m->keys[i] = id;
	m->vals[i] = val;  /* a repeated id goes to the newest event, as in perf */
}

static int map_grow(struct pd_idmap *m, size_t want)
{
	struct pd_idmap old = *m;
	size_t cap = m->cap ? m->cap : 64;

	while (cap < 2 * want)
		cap *= 2;
	if (cap == m->cap)
		return 0;
	m->keys = calloc(cap, sizeof *m->keys);
	m->vals = calloc(cap, sizeof *m->vals);
	if (!m->keys || !m->vals) {
		free(m->keys);
		free(m->vals);
		*m = old;
		return -ENOMEM;
	}
	m->cap = cap;
	m->n = 0;
	for (size_t i = 0; i < old.cap; i++)
		if (old.vals[i])
			map_put(m, old.keys[i], old.vals[i]);
	free(old.keys);
	free(old.vals);
	return 0;
}

int pd_event_by_id(const struct lp_perfdata *pd, uint64_t id)
{
	const struct pd_idmap *m = &pd->ids;
	size_t i;

	if (!m->cap)
		return -ENOENT;
	for (i = slot_of(id, m->cap); m->vals[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == id)
			return (int)m->vals[i] - 1;
	return -ENOENT;
}

/* ---- id positions (perf's __evsel__calc_id_pos / _is_pos) ---------------- */

static int id_pos(uint64_t st)
{
	if (st & PERF_SAMPLE_IDENTIFIER)
		return 0;
	if (!(st & PERF_SAMPLE_ID))
		return -1;
	return (int)lp_popcount(st & (PERF_SAMPLE_IP | PERF_SAMPLE_TID |
					  PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR));
}

static int is_pos(uint64_t st)
{
	if (st & PERF_SAMPLE_IDENTIFIER)
		return 1;
	if (!(st & PERF_SAMPLE_ID))
		return -1;
	return 1 + (int)lp_popcount(st & (PERF_SAMPLE_CPU | PERF_SAMPLE_STREAM_ID));
}

/* With several events, all must agree with the first on where the id is. */
static int check_positions(struct lp_perfdata *pd, const struct perf_event_attr *a,
			   uint64_t off)
{
	const struct perf_event_attr *first = &pd->evs[0]->attr;

	if (pd->id_pos < 0 || pd->is_pos < 0)
		return pd_error(pd, off, -EPROTO,
				"several events but the first (sample_type %#" PRIx64
				") has no sample id to tell their records apart",
				(uint64_t)first->sample_type);
	if (id_pos(a->sample_type) != pd->id_pos || is_pos(a->sample_type) != pd->is_pos)
		return pd_error(pd, off, -EPROTO,
				"event %zu (sample_type %#" PRIx64 ") keeps its id elsewhere "
				"than the first event (sample_type %#" PRIx64 ")",
				pd->nr_evs, (uint64_t)a->sample_type, (uint64_t)first->sample_type);
	if (a->sample_id_all != first->sample_id_all)
		return pd_error(pd, off, -EPROTO,
				"event %zu disagrees with the first event on sample_id_all",
				pd->nr_evs);
	return 0;
}

/* ---- adding events -------------------------------------------------------- */

static int push_event(struct lp_perfdata *pd, struct pd_ev *e)
{
	if (lp_grow(&pd->evs, &pd->cap_evs, pd->nr_evs, sizeof *pd->evs, 8, SIZE_MAX))
		return -ENOMEM;
	pd->evs[pd->nr_evs++] = &e->pub;
	return 0;
}

static int add_ids(struct lp_perfdata *pd, struct pd_ev *e, const uint8_t *ids,
		   size_t nr_ids)
{
	if (!nr_ids)
		return 0;
	e->ids = malloc(nr_ids * sizeof *e->ids);
	if (!e->ids || map_grow(&pd->ids, pd->ids.n + nr_ids))
		return -ENOMEM;
	memcpy(e->ids, ids, nr_ids * sizeof *e->ids);
	e->pub.ids = e->ids;
	e->pub.nr_ids = nr_ids;
	for (size_t i = 0; i < nr_ids; i++)
		map_put(&pd->ids, e->ids[i], (uint32_t)pd->nr_evs + 1);
	pd->nr_ids_total += nr_ids;
	return 0;
}

static void event_free(struct pd_ev *e)
{
	if (e)
		free(e->ids);
	free(e);
}

static int derive_name(struct lp_perfdata *pd, struct pd_ev *e);

int pd_event_add(struct lp_perfdata *pd, const void *attr, size_t attr_len,
		 const uint8_t *ids, size_t nr_ids, uint64_t off)
{
	struct pd_ev *e;
	int err;

	if (pd->nr_evs >= PD_MAX_EVENTS || nr_ids > PD_MAX_IDS - pd->nr_ids_total)
		return pd_error(pd, off, -E2BIG, "too many events or event ids");
	e = calloc(1, sizeof *e);
	if (!e)
		return pd_error(pd, off, -ENOMEM, "out of memory");
	memcpy(&e->pub.attr, attr, attr_len < sizeof e->pub.attr ? attr_len : sizeof e->pub.attr);
	lp_format_from_attr(&e->pub.fmt, &e->pub.attr);
	if (pd->nr_evs && (err = check_positions(pd, &e->pub.attr, off))) {
		event_free(e);
		return err;
	}
	err = add_ids(pd, e, ids, nr_ids);
	if (!err)
		err = derive_name(pd, e);
	if (!err)
		err = push_event(pd, e);
	if (err) {
		event_free(e);
		return pd_error(pd, off, err, "out of memory");
	}
	if (pd->nr_evs == 1) {
		pd->id_pos = id_pos(e->pub.attr.sample_type);
		pd->is_pos = is_pos(e->pub.attr.sample_type);
	}
	pd_events_link_formats(pd);
	return (int)pd->nr_evs - 1;
}

void pd_events_link_formats(struct lp_perfdata *pd)
{
	for (size_t i = 0; pd->formats && i < pd->nr_evs; i++) {
		struct lp_pd_event *e = pd->evs[i];
		if (e->attr.type == PERF_TYPE_TRACEPOINT && !e->format)
			e->format = lp_tp_set_find(pd->formats, e->attr.config);
	}
}

int pd_event_set_name(struct lp_perfdata *pd, size_t idx, const char *name,
		      size_t len, bool force)
{
	struct pd_ev *e = (struct pd_ev *)pd->evs[idx];
	const char *s;

	if (e->named && !force)
		return 0;
	s = pd_strdup(pd, name, len);
	if (!s)
		return -ENOMEM;
	e->pub.name = s;
	e->named = true;
	return 0;
}

void pd_events_free(struct lp_perfdata *pd)
{
	for (size_t i = 0; i < pd->nr_evs; i++)
		event_free((struct pd_ev *)pd->evs[i]);
	free(pd->evs);
	free(pd->ids.keys);
	free(pd->ids.vals);
	pd->evs = NULL;
	pd->nr_evs = pd->cap_evs = 0;
	memset(&pd->ids, 0, sizeof pd->ids);
}

/* ---- which event a record belongs to -------------------------------------- */

static int read_id(const struct lp_perfdata *pd, const struct perf_event_header *h,
		   uint64_t *id)
{
	const struct lp_format *f = &pd->evs[0]->fmt;
	const uint64_t *array = (const uint64_t *)(h + 1);
	size_t n = (h->size - sizeof *h) / sizeof(uint64_t);

	if (f->sample_type & PERF_SAMPLE_IDENTIFIER)
		return lp_record_peek_id(h, h->size, f, id) ? -EPROTO : 0;
	if (pd->id_pos < 0 || pd->is_pos < 0)
		return -EPROTO;
	if (h->type == PERF_RECORD_SAMPLE) {
		if ((size_t)pd->id_pos >= n)
			return -EPROTO;
		*id = array[pd->id_pos];
	} else {
		if ((size_t)pd->is_pos > n)
			return -EPROTO;
		*id = array[n - (size_t)pd->is_pos];
	}
	return 0;
}

int pd_event_of(const struct lp_perfdata *pd, const struct perf_event_header *h)
{
	uint64_t id = 0;

	if (!pd->nr_evs)
		return -ENOENT;
	if (pd->nr_evs == 1)
		return 0;
	if (!pd->evs[0]->attr.sample_id_all && h->type != PERF_RECORD_SAMPLE)
		return 0;
	if (read_id(pd, h, &id))
		return -EPROTO;
	if (!id)
		return 0;
	return pd_event_by_id(pd, id);
}

/* ---- derived names (perf's evsel__name) ----------------------------------- */

static const char *const hw_names[] = {
	"cycles", "instructions", "cache-references", "cache-misses", "branches",
	"branch-misses", "bus-cycles", "stalled-cycles-frontend",
	"stalled-cycles-backend", "ref-cycles",
};
static const char *const sw_names[] = {
	"cpu-clock", "task-clock", "page-faults", "context-switches",
	"cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
	"emulation-faults", "dummy", "bpf-output", "cgroup-switches",
};
static const char *const cache_names[] = {
	"L1-dcache", "L1-icache", "LLC", "dTLB", "iTLB", "branch", "node",
};
static const char *const cache_ops[][2] = {
	{ "load", "loads" }, { "store", "stores" }, { "prefetch", "prefetches" },
};
static const char *const cache_results[] = { "refs", "misses" };
/* bit i set: op i is valid for cache type */
static const uint8_t cache_valid_ops[] = { 7, 5, 7, 7, 1, 1, 7 };

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* Appends the ":ukhppHG" modifiers; returns the new length. */
static size_t add_modifiers(const struct perf_event_attr *a, char *bf, size_t len, size_t size)
{
	char mods[16];
	size_t n = 0;
	bool guest_default = false;

	if (a->exclude_kernel || a->exclude_user || a->exclude_hv) {
		if (!a->exclude_kernel) mods[n++] = 'k';
		if (!a->exclude_user) mods[n++] = 'u';
		if (!a->exclude_hv) mods[n++] = 'h';
		guest_default = true;
	}
	for (unsigned i = 0; i < a->precise_ip && i < 3; i++)
		mods[n++] = 'p';
	if (a->precise_ip)
		guest_default = true;
	if (a->exclude_host || a->exclude_guest == guest_default) {
		if (!a->exclude_host) mods[n++] = 'H';
		if (!a->exclude_guest) mods[n++] = 'G';
	}
	if (n && len + n + 1 < size) {
		bf[len++] = ':';
		memcpy(bf + len, mods, n);
		len += n;
		bf[len] = 0;
	}
	return len;
}

static int cache_name(uint64_t config, char *bf, size_t size)
{
	unsigned type = config & 0xff, op = (config >> 8) & 0xff, res = (config >> 16) & 0xff;

	if (type >= NELEM(cache_names))
		return snprintf(bf, size, "unknown-ext-hardware-cache-type");
	if (op >= NELEM(cache_ops))
		return snprintf(bf, size, "unknown-ext-hardware-cache-op");
	if (res >= NELEM(cache_results))
		return snprintf(bf, size, "unknown-ext-hardware-cache-result");
	if (!(cache_valid_ops[type] & (1u << op)))
		return snprintf(bf, size, "invalid-cache");
	if (res)
		return snprintf(bf, size, "%s-%s-%s", cache_names[type], cache_ops[op][0],
				cache_results[res]);
	return snprintf(bf, size, "%s-%s", cache_names[type], cache_ops[op][1]);
}

static int bp_name(const struct perf_event_attr *a, char *bf, size_t size)
{
	return snprintf(bf, size, "mem:0x%" PRIx64 ":%s%s%s", (uint64_t)a->bp_addr,
			a->bp_type & 1 ? "r" : "", a->bp_type & 2 ? "w" : "",
			a->bp_type & 4 ? "x" : "");
}

/* The base name; returns whether modifiers follow it. */
static bool base_name(const struct perf_event_attr *a, char *bf, size_t size)
{
	uint64_t c = a->config;

	switch (a->type) {
	case PERF_TYPE_HARDWARE:
		snprintf(bf, size, "%s", c < NELEM(hw_names) ? hw_names[c] : "unknown-hardware");
		return true;
	case PERF_TYPE_SOFTWARE:
		snprintf(bf, size, "%s", c < NELEM(sw_names) ? sw_names[c] : "unknown-software");
		return true;
	case PERF_TYPE_HW_CACHE:
		cache_name(c, bf, size);
		return true;
	case PERF_TYPE_RAW:
		snprintf(bf, size, "raw 0x%" PRIx64, c);
		return true;
	case PERF_TYPE_BREAKPOINT:
		bp_name(a, bf, size);
		return true;
	case PERF_TYPE_TRACEPOINT:
		snprintf(bf, size, "unknown tracepoint");
		return false;
	default:
		snprintf(bf, size, "unknown attr type: %u", a->type);
		return false;
	}
}

static int derive_name(struct lp_perfdata *pd, struct pd_ev *e)
{
	char bf[128];
	size_t len;

	if (base_name(&e->pub.attr, bf, sizeof bf))
		len = add_modifiers(&e->pub.attr, bf, strlen(bf), sizeof bf);
	else
		len = strlen(bf);
	e->pub.name = pd_strdup(pd, bf, len);
	return e->pub.name ? 0 : -ENOMEM;
}
