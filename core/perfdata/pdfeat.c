/*
 * pdfeat.c - header feature sections (HOSTNAME, CMDLINE, EVENT_DESC,
 * BUILD_ID, ...), from the section table of a seekable file or from
 * HEADER_FEATURE records in pipe mode; both carry the same payload.
 *
 * Payload encodings (perf's header.c):
 *  - string: u32 len, then len bytes holding a NUL-terminated string padded
 *    with zeroes (len counts the padding);
 *  - NRCPUS: u32 available, u32 online;  TOTAL_MEM: u64 kB;
 *  - CMDLINE: u32 nr, nr strings;
 *  - EVENT_DESC: u32 nr, u32 attr_size, then nr times {attr (attr_size
 *    bytes), u32 nr_ids, string name, u64 ids[nr_ids]};  names go to events
 *    by index, as perf 6.1 does, and only to events that already exist;
 *  - BUILD_ID: build_id_event entries {perf_event_header (misc: cpumode and
 *    PD_MISC_BUILD_ID_SIZE), s32 pid, u8 build_id[24] (with the size flag:
 *    20 id bytes then a size byte), NUL-padded filename} up to the end;
 *  - TRACING_DATA: the tracepoint formats (core/trace/tdata.c), which the
 *    tracepoint events then decode their samples with.
 *
 * Policy: every length is checked against the payload end.  A malformed
 * feature is dropped with a warning through lp_log and reading goes on (perf
 * also ignores feature errors); the samples do not depend on it.  Only
 * running out of memory is an error.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "luaprof/luaprof.h"
#include "luaprof/trace.h"
#include "perfdata/perfdata_int.h"
#include "util/grow.h"

/* A bounded cursor over a payload; off is the file offset of p. */
struct fcur {
	const uint8_t *p, *end;
	uint64_t off;
};

static int take(struct fcur *c, size_t n, const uint8_t **out)
{
	if (n > (size_t)(c->end - c->p))
		return -EPROTO;
	*out = c->p;
	c->p += n;
	c->off += n;
	return 0;
}

static int get_u32(struct fcur *c, uint32_t *v)
{
	const uint8_t *p;

	if (take(c, sizeof *v, &p))
		return -EPROTO;
	*v = pd_u32(p);
	return 0;
}

static int get_u64(struct fcur *c, uint64_t *v)
{
	const uint8_t *p;

	if (take(c, sizeof *v, &p))
		return -EPROTO;
	*v = pd_u64(p);
	return 0;
}

/* A perf_header_string; *s is owned by pd.  -ENOMEM or -EPROTO. */
static int get_string(struct lp_perfdata *pd, struct fcur *c, const char **s)
{
	uint32_t len;
	const uint8_t *p;

	if (get_u32(c, &len) || take(c, len, &p))
		return -EPROTO;
	*s = pd_strdup(pd, p, len);
	return *s ? 0 : -ENOMEM;
}

static const char *const feat_names[] = {
	"reserved", "TRACING_DATA", "BUILD_ID", "HOSTNAME", "OSRELEASE", "VERSION",
	"ARCH", "NRCPUS", "CPUDESC", "CPUID", "TOTAL_MEM", "CMDLINE", "EVENT_DESC",
};

/* Malformed feature: warn, keep going.  ENOMEM stays an error. */
static int feat_fail(struct lp_perfdata *pd, unsigned feat, const struct fcur *c, int err)
{
	if (err == -ENOMEM)
		return pd_error(pd, c->off, err, "out of memory");
	lp_log(LP_WARN, "perfdata: %s: offset %llu: feature %s is malformed, ignored",
	       pd->path, (unsigned long long)c->off,
	       feat < sizeof feat_names / sizeof *feat_names ? feat_names[feat] : "?");
	return 0;
}

/* ---- single-value features ---------------------------------------------- */

static const char **string_slot(struct lp_pd_info *in, unsigned feat)
{
	switch (feat) {
	case PD_FEAT_HOSTNAME:  return &in->hostname;
	case PD_FEAT_OSRELEASE: return &in->os_release;
	case PD_FEAT_VERSION:   return &in->perf_version;
	case PD_FEAT_ARCH:      return &in->arch;
	case PD_FEAT_CPUDESC:   return &in->cpu_desc;
	case PD_FEAT_CPUID:     return &in->cpuid;
	default:                return NULL;
	}
}

static int parse_nrcpus(struct lp_perfdata *pd, struct fcur *c)
{
	uint32_t avail, online;

	if (get_u32(c, &avail) || get_u32(c, &online))
		return -EPROTO;
	pd->info.nr_cpus_avail = avail;
	pd->info.nr_cpus_online = online;
	return 0;
}

static int parse_cmdline(struct lp_perfdata *pd, struct fcur *c)
{
	uint32_t nr;
	const char **argv;
	int err = 0;

	if (get_u32(c, &nr) || nr > (size_t)(c->end - c->p) / sizeof(uint32_t))
		return -EPROTO;
	argv = calloc(nr + 1, sizeof *argv);
	if (!argv)
		return -ENOMEM;
	for (uint32_t i = 0; i < nr && !err; i++)
		err = get_string(pd, c, &argv[i]);
	if (err) {
		free(argv);
		return err;
	}
	free(pd->cmdline);
	pd->cmdline = argv;
	pd->info.cmdline = argv;
	pd->info.nr_cmdline = nr;
	return 0;
}

static int parse_compressed(struct lp_perfdata *pd, struct fcur *c)
{
	uint32_t v[5];

	for (int i = 0; i < 5; i++)
		if (get_u32(c, &v[i]))
			return -EPROTO;
	pd->comp_mmap_len = v[4];
	return 0;
}

/* ---- EVENT_DESC ------------------------------------------------------------ */

/* One entry; *stop is set when perf would stop naming (attr.size == 0). */
static int event_desc_one(struct lp_perfdata *pd, struct fcur *c, uint32_t attr_sz,
			  uint32_t idx, bool *stop)
{
	const uint8_t *attr, *ids;
	const char *name;
	uint32_t nr_ids;
	int err;

	if (take(c, attr_sz, &attr) || get_u32(c, &nr_ids))
		return -EPROTO;
	if ((err = get_string(pd, c, &name)))
		return err;
	if (nr_ids > (size_t)(c->end - c->p) / sizeof(uint64_t) ||
	    take(c, (size_t)nr_ids * sizeof(uint64_t), &ids))
		return -EPROTO;
	if (pd_u32(attr + 4) == 0)
		*stop = true;
	if (*stop || idx >= pd->nr_evs)
		return 0;
	return pd_event_set_name(pd, idx, name, strlen(name), false);
}

static int parse_event_desc(struct lp_perfdata *pd, struct fcur *c)
{
	uint32_t nr, attr_sz;
	bool stop = false;
	int err = 0;

	if (get_u32(c, &nr) || get_u32(c, &attr_sz))
		return -EPROTO;
	if (attr_sz < PERF_ATTR_SIZE_VER0 ||
	    nr > (size_t)(c->end - c->p) / ((size_t)attr_sz + 8))
		return -EPROTO;
	for (uint32_t i = 0; i < nr && !err; i++)
		err = event_desc_one(pd, c, attr_sz, i, &stop);
	return err;
}

/* ---- BUILD_ID ---------------------------------------------------------------- */

static int push_build_id(struct lp_perfdata *pd, const struct lp_pd_build_id *b)
{
	if (pd->info.nr_build_ids >= PD_MAX_BUILD_IDS)
		return -EPROTO;
	if (lp_grow(&pd->bids, &pd->cap_bids, pd->info.nr_build_ids, sizeof *pd->bids, 16,
		    SIZE_MAX))
		return -ENOMEM;
	pd->info.build_ids = pd->bids;
	pd->bids[pd->info.nr_build_ids++] = *b;
	return 0;
}

/* One entry of len bytes at p.  quirk: the pre-2.6.35 layout without pid. */
int pd_feat_build_id(struct lp_perfdata *pd, const uint8_t *p, size_t len, bool quirk)
{
	size_t head = sizeof(struct perf_event_header) + (quirk ? 0 : 4);
	struct lp_pd_build_id b = { .pid = -1, .size = 20 };
	struct perf_event_header h;
	const uint8_t *id = p + head;

	if (len < head + 24)
		return -EPROTO;
	memcpy(&h, p, sizeof h);
	b.cpumode = h.misc & PERF_RECORD_MISC_CPUMODE_MASK;
	if (!quirk)
		b.pid = (int32_t)pd_u32(p + sizeof h);
	memcpy(b.id, id, sizeof b.id);
	if ((h.misc & PD_MISC_BUILD_ID_SIZE) && id[20] <= 20)
		b.size = id[20];
	b.path = pd_strdup(pd, id + 24, len - head - 24);
	if (!b.path)
		return -ENOMEM;
	return push_build_id(pd, &b);
}

/* perf's ABI quirk: an old table starts with "[kernel.kallsyms]" shifted
 * by the missing pid, so its filename reads "nel.kallsyms]". */
static bool old_build_id_layout(const struct fcur *c)
{
	size_t left = (size_t)(c->end - c->p);
	const size_t at = sizeof(struct perf_event_header) + 4 + 24;

	return left >= at + 13 && !memcmp(c->p + at, "nel.kallsyms]", 13);
}

static int parse_build_ids(struct lp_perfdata *pd, struct fcur *c)
{
	bool quirk = old_build_id_layout(c);

	while (c->p < c->end) {
		struct perf_event_header h;
		const uint8_t *p;
		int err;

		if ((size_t)(c->end - c->p) < sizeof h)
			return -EPROTO;
		memcpy(&h, c->p, sizeof h);
		if (take(c, h.size, &p))
			return -EPROTO;
		if ((err = pd_feat_build_id(pd, p, h.size, quirk)))
			return err;
	}
	return 0;
}

/* ---- TRACING_DATA ------------------------------------------------------------ */

int pd_feat_tracing(struct lp_perfdata *pd, const uint8_t *p, size_t len, uint64_t off)
{
	int err;

	if (!pd->formats && !(pd->formats = lp_tp_set_new()))
		return pd_error(pd, off, -ENOMEM, "out of memory");
	err = lp_tdata_parse(p, len, pd->formats);
	if (err == -ENOMEM)
		return pd_error(pd, off, err, "out of memory");
	if (err)
		lp_log(LP_WARN, "perfdata: %s: offset %llu: the tracepoint formats (TRACING_DATA) "
		       "are malformed; %zu of them could be read", pd->path,
		       (unsigned long long)off, lp_tp_set_count(pd->formats));
	pd_events_link_formats(pd);
	return 0;
}

/* ---- dispatch ---------------------------------------------------------------- */

int pd_feat_parse(struct lp_perfdata *pd, unsigned feat, const uint8_t *p,
		  size_t len, uint64_t off)
{
	struct fcur c = { p, p + len, off };
	const char **slot = string_slot(&pd->info, feat);
	uint64_t mem;
	int err;

	if (slot)
		err = get_string(pd, &c, slot);
	else if (feat == PD_FEAT_NRCPUS)
		err = parse_nrcpus(pd, &c);
	else if (feat == PD_FEAT_TOTAL_MEM)
		err = get_u64(&c, &mem) ? -EPROTO : (pd->info.total_mem = mem, 0);
	else if (feat == PD_FEAT_CMDLINE)
		err = parse_cmdline(pd, &c);
	else if (feat == PD_FEAT_EVENT_DESC)
		err = parse_event_desc(pd, &c);
	else if (feat == PD_FEAT_BUILD_ID)
		err = parse_build_ids(pd, &c);
	else if (feat == PD_FEAT_COMPRESSED)
		err = parse_compressed(pd, &c);
	else if (feat == PD_FEAT_TRACING_DATA)
		return pd_feat_tracing(pd, p, len, off);
	else
		err = 0;                /* the rest: skipped */
	return err ? feat_fail(pd, feat, &c, err) : 0;
}

/* The table of a seekable file: one {offset, size} per set bit, in bit
 * order, at table_off (right after the data section). */
int pd_feat_read_sections(struct lp_perfdata *pd, const uint64_t bits[4],
			  uint64_t table_off)
{
	const struct pd_src *s = &pd->src;
	size_t nr = 0, k = 0;

	for (int i = 0; i < 4; i++)
		nr += (size_t)__builtin_popcountll(bits[i]);
	if (!nr)
		return 0;
	if (table_off > s->map_len || nr > (s->map_len - table_off) / 16) {
		lp_log(LP_WARN, "perfdata: %s: offset %llu: feature table runs past the end "
		       "of the file, features ignored", pd->path, (unsigned long long)table_off);
		return 0;
	}
	size_t outside = 0;
	unsigned first = 0;
	for (unsigned feat = 0; feat < PD_FEAT_BITS; feat++) {
		const uint8_t *sec = s->map + table_off + 16 * k;
		uint64_t off, size;
		int err;

		if (!(bits[feat / 64] >> (feat % 64) & 1))
			continue;
		k++;
		off = pd_u64(sec);
		size = pd_u64(sec + 8);
		if (off > s->map_len || size > s->map_len - off) {
			first = outside++ ? first : feat;
			continue;
		}
		if ((err = pd_feat_parse(pd, feat, s->map + off, (size_t)size, off)))
			return err;
	}
	/* one line for them all: a file cut short loses every section past the
	 * cut, a dozen or more */
	if (outside)
		lp_log(LP_WARN, "perfdata: %s: offset %llu: %zu of %zu feature sections (from "
		       "feature %u on) lie outside the file, ignored: was the file cut short?",
		       pd->path, (unsigned long long)table_off, outside, nr, first);
	return 0;
}
