/*
 * pdwrite.c - writing a seekable perf.data that perf report/script read.
 *
 * Layout, as perf record lays it out:
 *   [0, 104)        perf_file_header, written last (at close)
 *   ids             the u64 ids of each event, back to back
 *   attrs           per event { perf_event_attr (sizeof, attr.size set to
 *                   it), section ids }; attr_size = sizeof(attr) + 16
 *   data            the records, appended through a 64 KiB buffer
 *   feature table   one {offset, size} per feature bit set, in bit order,
 *                   at data.offset + data.size (where readers look for it)
 *   features        [TRACING_DATA,] BUILD_ID, HOSTNAME, OSRELEASE, VERSION,
 *                   ARCH, NRCPUS, [CPUDESC, CPUID, TOTAL_MEM,] CMDLINE,
 *                   EVENT_DESC
 * Strings are perf_header_string {u32 len; NUL-padded to 64 bytes}.
 *
 * Invariants: events are fixed when the first record is written (the ids
 * and attrs precede the data); the first failure is sticky and reported
 * again by lp_pd_writer_close(), which frees the writer in every case.
 * Missing header facts are filled from uname(2) and sysconf(3).
 *
 * Pipe mode (lp_pd_writer_open_pipe, perf record -o -): nothing can be
 * rewritten, so what the file's header and features say is written before
 * the first record, in-band, in perf's order: a 16-byte header (magic,
 * size 16), one HEADER_ATTR per event (attr, then its ids), one
 * HEADER_FEATURE per feature (u64 feature id, then the section's payload)
 * ending with the end marker (HEADER_LAST_FEATURE), and HEADER_TRACING_DATA
 * (u32 size, 8-aligned, then the payload, zero-padded).  BUILD_ID is left
 * out, as perf record leaves it out of a pipe.
 *
 * A write that fails part-way (a full disk) keeps what can be kept: the
 * header is written at open as a placeholder, so that its block exists
 * and the final header needs no new space; at close the file is cut after
 * its last whole record on disk and gets a header without features, which
 * perf reads.  A file that did not get its attrs whole is removed.
 *
 * A file is written where no one sees it until lp_pd_writer_place puts it
 * at its path (pdplace.c): a run that never starts changes nothing there.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "luaprof/luaprof.h"
#include "perfdata/perfdata_int.h"

#define WBUF (64u << 10)

struct wevent {
	struct perf_event_attr attr;
	char *name;
	uint64_t *ids;
	size_t nr_ids;
	uint64_t ids_off;
};

struct wbid {
	char *path;
	uint8_t id[20];
	uint8_t size;
	int32_t pid;
	uint16_t cpumode;
};

struct lp_pd_writer {
	int fd;
	bool pipe;                      /* pipe mode: everything in-band, in order */
	char *path;
	char *tmp;                      /* the file's name until placed, if it has one */
	bool placed;                    /* the file is at path (lp_pd_writer_place) */
	int err;                        /* first failure, sticky */
	bool started;                   /* ids and attrs are written */
	struct wevent *evs;
	size_t nr_evs;
	struct wbid *bids;
	size_t nr_bids;
	char *str[6];                   /* hostname, osrelease, version, arch, cpudesc, cpuid */
	char **cmdline;
	size_t nr_cmdline;
	uint32_t cpus_online, cpus_avail;
	uint64_t total_mem;
	uint8_t *tdata;                 /* TRACING_DATA, as given */
	size_t tdata_len;
	uint8_t *buf;
	size_t len;
	uint64_t pos;                   /* file offset of buf[0] */
	uint64_t attrs_off, data_off, data_size;
};

enum { S_HOST, S_OSREL, S_VERSION, S_ARCH, S_CPUDESC, S_CPUID };

/* ---- output ----------------------------------------------------------------- */

static int fail(struct lp_pd_writer *w, int err)
{
	if (!w->err)
		w->err = err;
	return err;
}

static int flush(struct lp_pd_writer *w)
{
	size_t done = 0;

	while (done < w->len) {
		ssize_t n = write(w->fd, w->buf + done, w->len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail(w, -errno);
		done += (size_t)n;
	}
	w->pos += w->len;
	w->len = 0;
	return 0;
}

static int put(struct lp_pd_writer *w, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n) {
		size_t k = WBUF - w->len < n ? WBUF - w->len : n;

		memcpy(w->buf + w->len, b, k);
		w->len += k;
		b += k;
		n -= k;
		if (w->len == WBUF && flush(w))
			return w->err;
	}
	return 0;
}

static int put_u32(struct lp_pd_writer *w, uint32_t v)
{
	return put(w, &v, sizeof v);
}

static int put_zeros(struct lp_pd_writer *w, size_t n)
{
	static const uint8_t zeros[PD_NAME_ALIGN];

	for (size_t k; n; n -= k) {
		k = n < sizeof zeros ? n : sizeof zeros;
		if (put(w, zeros, k))
			return w->err;
	}
	return 0;
}

static uint64_t tell(const struct lp_pd_writer *w)
{
	return w->pos + w->len;
}

/* perf_header_string: u32 len, then the string NUL-padded to len. */
static int put_string(struct lp_pd_writer *w, const char *s)
{
	size_t n = strlen(s ? s : "") + 1;
	size_t len = (n + PD_NAME_ALIGN - 1) / PD_NAME_ALIGN * PD_NAME_ALIGN;

	if (put_u32(w, (uint32_t)len) || put(w, s ? s : "", n - 1))
		return w->err;
	return put_zeros(w, len - n + 1);
}

/* ---- setup -------------------------------------------------------------------- */

struct lp_pd_writer *lp_pd_writer_create(const char *path)
{
	static const uint8_t placeholder[PD_HEADER_SIZE];
	struct lp_pd_writer *w;
	bool old;
	mode_t mode;
	int err = lp_pd_writer_check(path, &old, &mode);

	if (err) {
		errno = -err;
		return NULL;
	}
	w = calloc(1, sizeof *w);
	if (!w || !(w->buf = malloc(WBUF)) || !(w->path = strdup(path))) {
		if (w)
			free(w->buf);
		free(w);
		errno = ENOMEM;
		return NULL;
	}
	w->fd = pd_temp_open(path, &w->tmp);
	err = w->fd < 0 ? -w->fd : 0;
	if (!err && write(w->fd, placeholder, sizeof placeholder) != (ssize_t)sizeof placeholder)
		err = errno ? errno : EIO;
	if (err) {
		if (w->fd >= 0)
			close(w->fd);
		pd_discard(&w->tmp);
		free(w->path);
		free(w->buf);
		free(w);
		errno = err;
		return NULL;
	}
	w->pos = PD_HEADER_SIZE;
	return w;
}

int lp_pd_writer_place(struct lp_pd_writer *w)
{
	if (w->pipe || w->placed)
		return 0;
	int rc = pd_place(w->fd, &w->tmp, w->path);
	w->placed = !rc;
	return rc;
}

struct lp_pd_writer *lp_pd_writer_open(const char *path)
{
	struct lp_pd_writer *w = lp_pd_writer_create(path);
	int rc = w ? lp_pd_writer_place(w) : 0;

	if (rc) {
		lp_pd_writer_discard(w);
		errno = -rc;
		return NULL;
	}
	return w;
}

struct lp_pd_writer *lp_pd_writer_open_pipe(int fd)
{
	struct lp_pd_writer *w = calloc(1, sizeof *w);
	if (!w || !(w->buf = malloc(WBUF)) || !(w->path = strdup("standard output"))) {
		if (w)
			free(w->buf);
		free(w);
		errno = ENOMEM;
		return NULL;
	}
	w->fd = fd;
	w->pipe = true;
	return w;
}

int lp_pd_writer_add_event(struct lp_pd_writer *w, const struct perf_event_attr *attr,
			   const char *name, const uint64_t *ids, size_t nr_ids)
{
	struct wevent *v, *e;

	if (w->started || w->nr_evs >= PD_MAX_EVENTS)
		return -EINVAL;
	v = realloc(w->evs, (w->nr_evs + 1) * sizeof *v);
	if (!v)
		return fail(w, -ENOMEM);
	w->evs = v;
	e = &v[w->nr_evs];
	memset(e, 0, sizeof *e);
	e->attr = *attr;
	e->attr.size = sizeof e->attr;
	e->name = strdup(name ? name : "");
	e->ids = malloc((nr_ids ? nr_ids : 1) * sizeof *ids);
	if (!e->name || !e->ids) {
		free(e->name);
		free(e->ids);
		return fail(w, -ENOMEM);
	}
	if (nr_ids)
		memcpy(e->ids, ids, nr_ids * sizeof *ids);
	e->nr_ids = nr_ids;
	w->nr_evs++;
	return 0;
}

static int set_str(struct lp_pd_writer *w, int slot, const char *s)
{
	char *c;

	if (!s)
		return 0;
	if (!(c = strdup(s)))
		return fail(w, -ENOMEM);
	free(w->str[slot]);
	w->str[slot] = c;
	return 0;
}

static int set_cmdline(struct lp_pd_writer *w, const char *const *argv, size_t n)
{
	char **v = calloc(n + 1, sizeof *v);

	if (!v)
		return fail(w, -ENOMEM);
	for (size_t i = 0; i < n; i++)
		if (!(v[i] = strdup(argv[i] ? argv[i] : ""))) {
			while (i--)
				free(v[i]);
			free(v);
			return fail(w, -ENOMEM);
		}
	for (size_t i = 0; i < w->nr_cmdline; i++)
		free(w->cmdline[i]);
	free(w->cmdline);
	w->cmdline = v;
	w->nr_cmdline = n;
	return 0;
}

int lp_pd_writer_set_info(struct lp_pd_writer *w, const struct lp_pd_info *in)
{
	int err = set_str(w, S_HOST, in->hostname) || set_str(w, S_OSREL, in->os_release) ||
		  set_str(w, S_VERSION, in->perf_version) || set_str(w, S_ARCH, in->arch) ||
		  set_str(w, S_CPUDESC, in->cpu_desc) || set_str(w, S_CPUID, in->cpuid);

	if (err)
		return w->err;
	if (in->cmdline && set_cmdline(w, in->cmdline, in->nr_cmdline))
		return w->err;
	if (in->nr_cpus_online)
		w->cpus_online = in->nr_cpus_online;
	if (in->nr_cpus_avail)
		w->cpus_avail = in->nr_cpus_avail;
	if (in->total_mem)
		w->total_mem = in->total_mem;
	for (size_t i = 0; i < in->nr_build_ids; i++)
		if ((err = lp_pd_writer_add_build_id(w, &in->build_ids[i])))
			return err;
	return 0;
}

int lp_pd_writer_set_tracing_data(struct lp_pd_writer *w, const void *data, size_t len)
{
	uint8_t *copy = malloc(len ? len : 1);

	if (!copy)
		return fail(w, -ENOMEM);
	memcpy(copy, data, len);
	free(w->tdata);
	w->tdata = copy;
	w->tdata_len = len;
	return 0;
}

/* "[kernel.kallsyms]", "[vdso]"-like names and kernel modules. */
static bool kernel_path(const char *p)
{
	size_t n = strlen(p);

	return p[0] == '[' || (n > 3 && !strcmp(p + n - 3, ".ko")) ||
	       !strncmp(p, "/lib/modules/", 13);
}

int lp_pd_writer_add_build_id(struct lp_pd_writer *w, const struct lp_pd_build_id *b)
{
	struct wbid *v;

	if (!b->path || strlen(b->path) >= 4096)
		return -EINVAL;
	v = realloc(w->bids, (w->nr_bids + 1) * sizeof *v);
	if (!v)
		return fail(w, -ENOMEM);
	w->bids = v;
	v += w->nr_bids;
	memset(v, 0, sizeof *v);
	memcpy(v->id, b->id, sizeof v->id);
	v->size = b->size && b->size <= 20 ? b->size : 20;
	v->pid = b->pid;
	v->cpumode = b->cpumode & PERF_RECORD_MISC_CPUMODE_MASK;
	if (!v->cpumode)
		v->cpumode = kernel_path(b->path) ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
	if (!(v->path = strdup(b->path)))
		return fail(w, -ENOMEM);
	w->nr_bids++;
	return 0;
}

static int write_header(struct lp_pd_writer *w, const uint64_t bits[4]);
static void writer_free(struct lp_pd_writer *w);
static void fill_defaults(struct lp_pd_writer *w);
static void feature_bits(const struct lp_pd_writer *w, uint64_t bits[4]);
static int feat_payload(struct lp_pd_writer *w, unsigned feat);

/* ---- ids, attrs, data ------------------------------------------------------------ */

static int start_pipe(struct lp_pd_writer *w);

static int start(struct lp_pd_writer *w)
{
	if (w->pipe)
		return start_pipe(w);
	for (size_t i = 0; i < w->nr_evs; i++) {
		w->evs[i].ids_off = tell(w);
		if (put(w, w->evs[i].ids, w->evs[i].nr_ids * sizeof(uint64_t)))
			return w->err;
	}
	w->attrs_off = tell(w);
	for (size_t i = 0; i < w->nr_evs; i++) {
		uint64_t sec[2] = { w->evs[i].ids_off, w->evs[i].nr_ids * sizeof(uint64_t) };

		if (put(w, &w->evs[i].attr, sizeof w->evs[i].attr) || put(w, sec, sizeof sec))
			return w->err;
	}
	w->data_off = tell(w);
	w->started = true;
	/* A valid header from the start, its data of no size (as perf record
	 * writes it): a writer killed before lp_pd_writer_close leaves a file
	 * read up to its last whole record, not one of zeros. */
	static const uint64_t none[4];
	if (flush(w) || write_header(w, none))
		return w->err;
	return 0;
}

int lp_pd_writer_write(struct lp_pd_writer *w, const void *rec)
{
	struct perf_event_header h;

	if (w->err)
		return w->err;
	memcpy(&h, rec, sizeof h);
	if (h.size < sizeof h)
		return -EINVAL;
	if (!w->started && start(w))
		return w->err;
	if (put(w, rec, h.size))
		return w->err;
	w->data_size += h.size;
	return 0;
}

/* ---- features -------------------------------------------------------------------- */

static int feat_build_ids(struct lp_pd_writer *w)
{
	for (size_t i = 0; i < w->nr_bids; i++) {
		const struct wbid *b = &w->bids[i];
		size_t n = strlen(b->path) + 1;
		size_t len = (n + PD_NAME_ALIGN - 1) / PD_NAME_ALIGN * PD_NAME_ALIGN;
		uint8_t id[24] = { 0 };
		struct perf_event_header h = {
			.type = 0,
			.misc = (uint16_t)(b->cpumode | PD_MISC_BUILD_ID_SIZE),
			.size = (uint16_t)(sizeof h + 4 + sizeof id + len),
		};

		memcpy(id, b->id, b->size);
		id[20] = b->size;
		if (put(w, &h, sizeof h) || put(w, &b->pid, 4) || put(w, id, sizeof id) ||
		    put(w, b->path, n) || put_zeros(w, len - n))
			return w->err;
	}
	return 0;
}

static int feat_cmdline(struct lp_pd_writer *w)
{
	if (put_u32(w, (uint32_t)w->nr_cmdline))
		return w->err;
	for (size_t i = 0; i < w->nr_cmdline; i++)
		if (put_string(w, w->cmdline[i]))
			return w->err;
	return 0;
}

static int feat_event_desc(struct lp_pd_writer *w)
{
	if (put_u32(w, (uint32_t)w->nr_evs) || put_u32(w, sizeof(struct perf_event_attr)))
		return w->err;
	for (size_t i = 0; i < w->nr_evs; i++) {
		const struct wevent *e = &w->evs[i];

		if (put(w, &e->attr, sizeof e->attr) || put_u32(w, (uint32_t)e->nr_ids) ||
		    put_string(w, e->name) || put(w, e->ids, e->nr_ids * sizeof(uint64_t)))
			return w->err;
	}
	return 0;
}

static int feat_payload(struct lp_pd_writer *w, unsigned feat)
{
	uint32_t cpus[2] = { w->cpus_avail, w->cpus_online };

	switch (feat) {
	case PD_FEAT_TRACING_DATA: return put(w, w->tdata, w->tdata_len);
	case PD_FEAT_BUILD_ID:   return feat_build_ids(w);
	case PD_FEAT_HOSTNAME:   return put_string(w, w->str[S_HOST]);
	case PD_FEAT_OSRELEASE:  return put_string(w, w->str[S_OSREL]);
	case PD_FEAT_VERSION:    return put_string(w, w->str[S_VERSION]);
	case PD_FEAT_ARCH:       return put_string(w, w->str[S_ARCH]);
	case PD_FEAT_NRCPUS:     return put(w, cpus, sizeof cpus);
	case PD_FEAT_CPUDESC:    return put_string(w, w->str[S_CPUDESC]);
	case PD_FEAT_CPUID:      return put_string(w, w->str[S_CPUID]);
	case PD_FEAT_TOTAL_MEM:  return put(w, &w->total_mem, sizeof w->total_mem);
	case PD_FEAT_CMDLINE:    return feat_cmdline(w);
	case PD_FEAT_EVENT_DESC: return feat_event_desc(w);
	default:                 return 0;
	}
}

static void fill_defaults(struct lp_pd_writer *w)
{
	struct utsname u;
	long n;

	if (!uname(&u)) {
		if (!w->str[S_HOST])
			w->str[S_HOST] = strdup(u.nodename);
		if (!w->str[S_OSREL])
			w->str[S_OSREL] = strdup(u.release);
		if (!w->str[S_ARCH])
			w->str[S_ARCH] = strdup(u.machine);
	}
	if (!w->str[S_VERSION])
		w->str[S_VERSION] = strdup("luaprof " LP_VERSION);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	if (!w->cpus_online && n > 0)
		w->cpus_online = (uint32_t)n;
	n = sysconf(_SC_NPROCESSORS_CONF);
	if (!w->cpus_avail && n > 0)
		w->cpus_avail = (uint32_t)n;
}

static void feature_bits(const struct lp_pd_writer *w, uint64_t bits[4])
{
	static const unsigned always[] = {
		PD_FEAT_BUILD_ID, PD_FEAT_HOSTNAME, PD_FEAT_OSRELEASE, PD_FEAT_VERSION,
		PD_FEAT_ARCH, PD_FEAT_NRCPUS, PD_FEAT_CMDLINE, PD_FEAT_EVENT_DESC,
	};

	memset(bits, 0, 4 * sizeof *bits);
	for (size_t i = 0; i < sizeof always / sizeof *always; i++)
		bits[0] |= 1ull << always[i];
	if (w->str[S_CPUDESC])
		bits[0] |= 1ull << PD_FEAT_CPUDESC;
	if (w->str[S_CPUID])
		bits[0] |= 1ull << PD_FEAT_CPUID;
	if (w->total_mem)
		bits[0] |= 1ull << PD_FEAT_TOTAL_MEM;
	if (w->tdata)
		bits[0] |= 1ull << PD_FEAT_TRACING_DATA;
}

static int pwrite_all(struct lp_pd_writer *w, const void *p, size_t n, uint64_t off)
{
	ssize_t k = pwrite(w->fd, p, n, (off_t)off);

	if (k < 0)
		return fail(w, -errno);
	return (size_t)k == n ? 0 : fail(w, -EIO);
}

/* The feature table and payloads after the data. */
static int write_features(struct lp_pd_writer *w, const uint64_t bits[4])
{
	uint64_t table_off = tell(w), sec[64][2];
	unsigned nr = 0;

	for (unsigned f = 0; f < 64; f++)
		nr += (bits[0] >> f) & 1;
	if (put_zeros(w, nr * 16u))
		return w->err;
	nr = 0;
	for (unsigned f = 0; f < 64; f++) {
		if (!((bits[0] >> f) & 1))
			continue;
		sec[nr][0] = tell(w);
		if (feat_payload(w, f))
			return w->err;
		sec[nr][1] = tell(w) - sec[nr][0];
		nr++;
	}
	if (flush(w))
		return w->err;
	return pwrite_all(w, sec, nr * 16u, table_off);
}

static int write_header(struct lp_pd_writer *w, const uint64_t bits[4])
{
	uint64_t hdr[PD_HEADER_SIZE / 8] = { 0 };

	memcpy(hdr, PD_MAGIC, 8);
	hdr[1] = PD_HEADER_SIZE;
	hdr[2] = sizeof(struct perf_event_attr) + 16;
	hdr[3] = w->attrs_off;
	hdr[4] = w->nr_evs * hdr[2];
	hdr[5] = w->data_off;
	hdr[6] = w->data_size;
	memcpy(&hdr[9], bits, 4 * sizeof *bits);
	return pwrite_all(w, hdr, sizeof hdr, 0);
}

/* ---- pipe mode ------------------------------------------------------------------- */

#define PD_FEAT_LAST 32                 /* HEADER_LAST_FEATURE: the end of the features */

/* One HEADER_ATTR record per event: header, attr, its ids. */
static int pipe_attrs(struct lp_pd_writer *w)
{
	for (size_t i = 0; i < w->nr_evs; i++) {
		const struct wevent *e = &w->evs[i];
		size_t size = sizeof(struct perf_event_header) + sizeof e->attr +
			      e->nr_ids * sizeof(uint64_t);
		if (size > UINT16_MAX)
			return fail(w, -E2BIG);
		struct perf_event_header h = { .type = PD_HEADER_ATTR, .size = (uint16_t)size };
		if (put(w, &h, sizeof h) || put(w, &e->attr, sizeof e->attr) ||
		    put(w, e->ids, e->nr_ids * sizeof(uint64_t)))
			return w->err;
	}
	return 0;
}

/* One HEADER_FEATURE record: header, u64 feat, the payload.  The record
 * (at most 64 KiB - 1, its size being 16 bits) is built whole in the
 * buffer, emptied first, and its size set once the payload is in. */
static int pipe_feature(struct lp_pd_writer *w, unsigned feat)
{
	if (flush(w))
		return w->err;
	struct perf_event_header h = { .type = PD_HEADER_FEATURE };
	uint64_t id = feat;
	uint64_t pos = w->pos;
	if (put(w, &h, sizeof h) || put(w, &id, sizeof id) ||
	    (feat != PD_FEAT_LAST && feat_payload(w, feat)))
		return w->err;
	if (w->pos != pos || w->len > UINT16_MAX)
		return fail(w, -E2BIG);
	h.size = (uint16_t)w->len;
	memcpy(w->buf, &h, sizeof h);
	return 0;
}

/* HEADER_TRACING_DATA: its u32 size (the payload's, 8-aligned), then the
 * payload and its padding. */
static int pipe_tracing_data(struct lp_pd_writer *w)
{
	size_t aligned = (w->tdata_len + 7) & ~(size_t)7;
	struct perf_event_header h = { .type = PD_HEADER_TRACING_DATA,
				       .size = sizeof h + sizeof(uint32_t) };
	if (aligned > UINT32_MAX)
		return fail(w, -E2BIG);
	if (put(w, &h, sizeof h) || put_u32(w, (uint32_t)aligned) ||
	    put(w, w->tdata, w->tdata_len))
		return w->err;
	return put_zeros(w, aligned - w->tdata_len);
}

static int start_pipe(struct lp_pd_writer *w)
{
	uint64_t hdr[2] = { 0, 16 }, bits[4];
	memcpy(hdr, PD_MAGIC, 8);
	w->started = true;
	fill_defaults(w);
	feature_bits(w, bits);
	bits[0] &= ~(1ull << PD_FEAT_BUILD_ID | 1ull << PD_FEAT_TRACING_DATA);
	if (put(w, hdr, sizeof hdr) || pipe_attrs(w))
		return w->err;
	for (unsigned f = 0; f < 64; f++)
		if (((bits[0] >> f) & 1) && pipe_feature(w, f))
			return w->err;
	if (pipe_feature(w, PD_FEAT_LAST) || (w->tdata && pipe_tracing_data(w)))
		return w->err;
	return flush(w);
}

/* The end of a stream: what is buffered, then the fd closed. */
static int close_pipe(struct lp_pd_writer *w)
{
	if (!w->err && !w->nr_evs)
		fail(w, -EINVAL);
	if (!w->err && !w->started)
		start(w);
	if (!w->err)
		flush(w);
	if (close(w->fd) && !w->err && errno != EINTR)
		fail(w, -errno);
	int err = w->err;
	writer_free(w);
	return err;
}

static void writer_free(struct lp_pd_writer *w)
{
	for (size_t i = 0; i < w->nr_evs; i++) {
		free(w->evs[i].name);
		free(w->evs[i].ids);
	}
	for (size_t i = 0; i < w->nr_bids; i++)
		free(w->bids[i].path);
	for (size_t i = 0; i < w->nr_cmdline; i++)
		free(w->cmdline[i]);
	for (size_t i = 0; i < sizeof w->str / sizeof *w->str; i++)
		free(w->str[i]);
	free(w->cmdline);
	free(w->tdata);
	free(w->evs);
	free(w->bids);
	free(w->buf);
	free(w->path);
	free(w->tmp);
	free(w);
}

/* The end of the last whole record in the data section of what is on
 * disk (size bytes), walking the record headers from data_off. */
static uint64_t last_whole_record(struct lp_pd_writer *w, uint64_t size)
{
	uint64_t off = w->data_off;
	struct perf_event_header h;

	while (off + sizeof h <= size && pread(w->fd, &h, sizeof h, (off_t)off) == sizeof h &&
	       h.size >= sizeof h && off + h.size <= size)
		off += h.size;
	return off;
}

/* After a failed write: cuts the file after its last whole record and
 * writes a header without features, or removes a file whose ids and
 * attrs are not whole.  Logs what it kept. */
static void salvage(struct lp_pd_writer *w)
{
	struct stat st;
	uint64_t none[4] = { 0 };
	if (fstat(w->fd, &st) || !w->started || (uint64_t)st.st_size < w->data_off) {
		unlink(w->path);
		lp_log(LP_WARN, "%s: removed: the write failed before its events were whole",
		       LP_SHOW(w->path));
		return;
	}
	uint64_t end = last_whole_record(w, (uint64_t)st.st_size);
	w->data_size = end - w->data_off;
	if (ftruncate(w->fd, (off_t)end) || write_header(w, none)) {
		unlink(w->path);
		lp_log(LP_WARN, "%s: removed: it could not be cut to its whole records",
		       LP_SHOW(w->path));
		return;
	}
	lp_log(LP_WARN, "%s: cut after its last whole record: %llu bytes of records kept, "
	       "readable without its header features (build-ids, command line)", LP_SHOW(w->path),
	       (unsigned long long)w->data_size);
}

void lp_pd_writer_discard(struct lp_pd_writer *w)
{
	if (!w)
		return;
	if (!w->pipe && !w->placed) {
		close(w->fd);
		pd_discard(&w->tmp);
		writer_free(w);
		return;
	}
	lp_pd_writer_close(w);
}

int lp_pd_writer_close(struct lp_pd_writer *w)
{
	uint64_t bits[4];
	int err;

	if (!w)
		return -EINVAL;
	if (w->pipe)
		return close_pipe(w);
	if ((err = lp_pd_writer_place(w))) {
		lp_pd_writer_discard(w);
		return err;
	}
	if (!w->err && !w->nr_evs)
		fail(w, -EINVAL);       /* perf cannot read a file without events */
	if (!w->err && !w->started)
		start(w);
	fill_defaults(w);
	feature_bits(w, bits);
	if (!w->err)
		write_features(w, bits);
	if (!w->err)
		write_header(w, bits);
	if (w->err && w->err != -ENOMEM && w->err != -EINVAL)
		salvage(w);
	if (close(w->fd) && !w->err)
		fail(w, -errno);
	err = w->err;
	writer_free(w);
	return err;
}
