/*
 * perfdata.c - the perf.data reader: opening both layouts, the header and
 * attrs of a seekable file, and the record loop behind lp_perfdata_next().
 *
 * Seekable layout (all native-endian):
 *   perf_file_header { "PERFILE2", u64 size (104; 72 before feature bits),
 *     u64 attr_size, section attrs, data, event_types, u64 features[4] }
 *   attrs: attrs.size / attr_size entries of { attr, section ids }, where
 *     the attr takes attr_size - 16 bytes and its own attr.size (0 = 64)
 *     says how much of it is meaningful (the rest is zero-extended);
 *   data: the records;  features: a section table at data end (pdfeat.c).
 * Pipe layout: { "PERFILE2", u64 size = 16 } then records only; the header
 *   arrives as records (pdpipe.c).  In both layouts open reads perf's header
 *   records up to the first data record.
 *
 * Delivery follows perf script (perf 6.1 session.c / ordered-events.c):
 * perf's user records act at once, in file order; a kernel record gets its
 * event (pdevents.c), then its time (sample TIME, or the sample_id trailer
 * of other records when sample_id_all).  A record with time 0 or none is
 * delivered at once, before anything still queued (that is what perf does:
 * synthesized MMAP/COMM records at the start carry time 0); the others go
 * through the ordering queue (pdorder.c).  A seekable file whose first event
 * lacks sample_id_all is read unordered, in file order, as perf does.
 *
 * Errors are sticky: the first one is kept as "FILE: offset N: problem" and
 * every later call returns the same negative errno, once the records queued
 * before it have been delivered.  A seekable file cut short inside its data
 * section opens, and fails where the cut is (pdsrc.c).
 */
#include <byteswap.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "luaprof/err.h"
#include "luaprof/luaprof.h"
#include "luaprof/trace.h"
#include "perfdata/perfdata_int.h"
#include "util/strtab.h"
#include "util/bits.h"


struct file_section {
	uint64_t offset, size;
};

struct file_header {
	char magic[8];
	uint64_t size, attr_size;
	struct file_section attrs, data, event_types;
	uint64_t features[4];
};

/* ---- header ------------------------------------------------------------------ */

static int check_magic(struct lp_perfdata *pd, const char magic[8])
{
	uint64_t m = pd_u64(magic), good = pd_u64(PD_MAGIC);

	if (m == good)
		return 0;
	if (m == bswap_64(good))
		return pd_error(pd, 0, -EPROTONOSUPPORT, "written on a machine of the other byte "
				"order (byte-swapped magic): not supported");
	if (!memcmp(magic, "PERFFILE", 8))
		return pd_error(pd, 0, -EPROTONOSUPPORT, "perf.data version 1 (magic PERFFILE, "
				"perf before 2.6.37): not supported");
	return pd_error(pd, 0, -EPROTO, "not a perf.data file (bad magic)");
}

static bool section_ok(const struct pd_src *s, const struct file_section *sec)
{
	return sec->offset <= s->map_len && sec->size <= s->map_len - sec->offset;
}

/* One attrs entry: the attr and its ids section. */
static int read_attr(struct lp_perfdata *pd, const struct file_header *fh, size_t i)
{
	const struct pd_src *s = &pd->src;
	uint64_t off = fh->attrs.offset + i * fh->attr_size;
	const uint8_t *p = s->map + off;
	struct file_section ids;
	uint32_t sz = pd_u32(p + 4);
	int idx;

	if (!sz)
		sz = PERF_ATTR_SIZE_VER0;
	if (sz > fh->attr_size - 16)
		return pd_error(pd, off, -EPROTO, "attr %zu: attr.size %u does not fit the "
				"%llu-byte attr entries", i, sz, (unsigned long long)fh->attr_size);
	ids.offset = pd_u64(p + fh->attr_size - 16);
	ids.size = pd_u64(p + fh->attr_size - 8);
	if (!section_ok(s, &ids))
		return pd_error(pd, off, -EPROTO, "attr %zu: ids section [%llu, +%llu) lies "
				"outside the file", i, (unsigned long long)ids.offset,
				(unsigned long long)ids.size);
	idx = pd_event_add(pd, p, sz, s->map + ids.offset, ids.size / sizeof(uint64_t), off);
	return idx < 0 ? idx : 0;
}

static int read_attrs(struct lp_perfdata *pd, const struct file_header *fh)
{
	uint64_t nr;
	int err;

	if (fh->attr_size < PERF_ATTR_SIZE_VER0 + 16 || fh->attr_size > 65536)
		return pd_error(pd, 16, -EPROTO, "implausible attr_size %llu",
				(unsigned long long)fh->attr_size);
	if (!section_ok(&pd->src, &fh->attrs))
		return pd_error(pd, 24, -EPROTO, "attrs section [%llu, +%llu) lies outside the "
				"file (%zu bytes): truncated?", (unsigned long long)fh->attrs.offset,
				(unsigned long long)fh->attrs.size, pd->src.map_len);
	nr = fh->attrs.size / fh->attr_size;
	if (!nr)
		return pd_error(pd, 24, -EPROTO, "no events: the attrs section is empty");
	for (size_t i = 0; i < nr; i++)
		if ((err = read_attr(pd, fh, i)))
			return err;
	return 0;
}

/* A file cut short inside its data section: the records up to the cut are
 * read, then the reader reports the cut (pdsrc.c); the feature sections,
 * which came after the data, are gone. */
static int cut_data(struct pd_src *s, const struct file_section *data)
{
	s->end = s->map_len;
	s->data_end = data->offset + data->size;
	if (s->data_end < data->offset)
		s->data_end = UINT64_MAX;
	return 0;
}

/* Whether a file whose header gives its data section no size was left
 * unclosed: perf record (or luaprof) writes the header first with size 0
 * and fixes it at the end, so a killed writer leaves records from the data
 * offset on.  A closed file with an empty data section has its feature
 * table there instead, whose first word (a section offset) reads as a
 * record header of size 0. */
static bool unclosed(const struct pd_src *s, const struct file_header *fh)
{
	if (fh->data.size || fh->data.offset + 8 > s->map_len)
		return false;
	const uint8_t *p = s->map + fh->data.offset;
	uint32_t type = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	uint16_t size = (uint16_t)(p[6] | p[7] << 8);
	return type >= 1 && type < 128 && size >= 8 && !(size % 8);
}

static int open_file(struct lp_perfdata *pd, uint64_t hsize)
{
	struct pd_src *s = &pd->src;
	struct file_header fh = { 0 };
	int err;

	if (hsize != PD_HEADER_SIZE && hsize != PD_HEADER_SIZE_V0)
		return pd_error(pd, 8, -EPROTO, "header size %llu is not 104 (or 72)",
				(unsigned long long)hsize);
	if (s->map_len < hsize)
		return pd_error(pd, 0, -EPROTO, "file of %zu bytes ends inside the header",
				s->map_len);
	memcpy(&fh, s->map, hsize);
	if ((err = read_attrs(pd, &fh)))
		return err;
	if (fh.data.offset > s->map_len)
		return pd_error(pd, 40, -EPROTO, "data section at offset %llu starts past the end "
				"of the file (%zu bytes): truncated?", (unsigned long long)fh.data.offset,
				s->map_len);
	pd->ordered = pd->evs[0]->attr.sample_id_all;
	s->pos = fh.data.offset;
	if (unclosed(s, &fh)) {
		s->unclosed = true;
		s->end = s->data_end = s->map_len;
		lp_log(LP_WARN, "perfdata: %s: the recording was not closed (its writer was killed?): "
		       "its records are read up to the last whole one, without its features",
		       pd->path);
		return 0;
	}
	if (fh.data.size > s->map_len - fh.data.offset)
		return cut_data(s, &fh.data);
	s->end = s->data_end = fh.data.offset + fh.data.size;
	return pd_feat_read_sections(pd, fh.features, s->end);
}

/* Consumes perf's header records (in pipe mode: attrs, features, event
 * names; in a file: id index, thread and cpu maps) up to the first data
 * record, which stays pending for lp_perfdata_next(). */
static int read_preamble(struct lp_perfdata *pd)
{
	for (;;) {
		struct pd_rec r;
		int err = pd_src_next(pd, &r);

		if (err < 0 && pd->src.end < pd->src.data_end)
			return pd_drain(pd, err) ? 0 : err;        /* cut short: fail in next() */
		if (err <= 0)
			return err;
		pd->stats.nr_records++;
		if (!pd_is_header_record(r.h->type)) {
			pd->pending = r;
			pd->has_pending = true;
			return 0;
		}
		if ((err = pd_user_record(pd, &r)) < 0)
			return err;
	}
}

/* A stream's wait for the header stopped (lp_perfdata_set_stop): no data
 * yet, so the open fails, with errno EINTR. */
static int open_any(struct lp_perfdata *pd, const char *path)
{
	struct {
		char magic[8];
		uint64_t size;
	} start;
	int err = pd_src_open(pd, path);

	if (!err)
		err = pd_src_read(pd, &start, sizeof start);
	if (!err)
		err = check_magic(pd, start.magic);
	if (!err && start.size == PD_PIPE_HEADER_SIZE)
		pd->pipe = true;
	else if (!err && !pd->src.map)
		return pd_error(pd, 0, -ESPIPE, "a seekable perf.data cannot be read from a pipe "
				"(record with -o - for pipe mode, or pass the file name)");
	else if (!err)
		err = open_file(pd, start.size);
	if (!err)
		err = read_preamble(pd);
	if (err == -EINTR)      /* kept when it is the wait for a named pipe's writer */
		return pd_error(pd, PD_NO_OFF, err, "interrupted while waiting for the "
				"recording's header");
	return err;
}

struct lp_perfdata *lp_perfdata_open(const char *path)
{
	struct lp_perfdata *pd = calloc(1, sizeof *pd);
	int rc = -ENOMEM;

	if (pd) {
		pd->src.fd = -1;
		pd->ordered = true;
		pd->path = strdup(strcmp(path, "-") ? LP_SHOW(path) : "stdin");
		pd->strs = lp_strtab_new();
		pd_order_init(&pd->order, PD_MAX_QUEUE_BYTES, &pd->stats);
		rc = pd->path && pd->strs ? open_any(pd, path) : -ENOMEM;
	}
	if (!rc)
		return pd;
	if (!pd || !pd->failed)
		lp_err(rc, "out of memory");
	lp_perfdata_close(pd);
	errno = -rc;
	return NULL;
}

void lp_perfdata_close(struct lp_perfdata *pd)
{
	if (!pd)
		return;
	pd_ahead_stop(pd);
	pd_src_close(&pd->src);
	pd_comp_free(pd->comp);
	pd_order_free(&pd->order);
	pd_events_free(pd);
	lp_tp_set_free(pd->formats);
	lp_strtab_free(pd->strs);
	free(pd->bids);
	free(pd->cmdline);
	free(pd->path);
	free(pd->failmsg);
	free(pd);
}

/* ---- accessors ----------------------------------------------------------------- */

size_t lp_perfdata_nr_events(const struct lp_perfdata *pd)
{
	return pd->nr_evs;
}

const struct lp_pd_event *lp_perfdata_event(const struct lp_perfdata *pd, size_t idx)
{
	return idx < pd->nr_evs ? pd->evs[idx] : NULL;
}

const struct lp_pd_info *lp_perfdata_info(const struct lp_perfdata *pd)
{
	return &pd->info;
}

const struct lp_pd_stats *lp_perfdata_stats(const struct lp_perfdata *pd)
{
	return &pd->stats;
}

/* ---- the record loop ---------------------------------------------------------- */

int lp_perfdata_unordered(struct lp_perfdata *pd)
{
	if (pd->ahead || pd->started)
		return -EALREADY;
	pd->ordered = false;
	return 0;
}

int lp_perfdata_next_ref(struct lp_perfdata *pd, const struct lp_record **rec,
			 const struct lp_pd_event **ev)
{
	*rec = &pd->cur;
	if (!pd->started)       /* written once: the read-ahead thread reads its neighbours */
		pd->started = true;
	int n = pd->ahead ? pd_ahead_next(pd, rec, ev) : pd_read_next(pd, &pd->cur, ev);
	return n < 0 ? pd_error_again(pd, n) : n;
}

int lp_perfdata_next(struct lp_perfdata *pd, struct lp_record *rec,
		     const struct lp_pd_event **ev)
{
	const struct lp_record *r;
	int n = lp_perfdata_next_ref(pd, &r, ev);

	*rec = *r;
	return n;
}

void lp_perfdata_progress(const struct lp_perfdata *pd, uint64_t *done, uint64_t *total)
{
	*done = pd->ahead ? pd_ahead_progress(pd) : pd->src.pos;
	*total = pd->src.end == UINT64_MAX ? 0 : pd->src.end;
}
