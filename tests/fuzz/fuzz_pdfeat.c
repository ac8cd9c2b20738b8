/*
 * fuzz_pdfeat.c - the perf.data feature sections (hostname, osrelease,
 * version, arch, nrcpus, cpudesc, cpuid, total_mem, cmdline, event_desc,
 * build_id, compressed, tracing data and any other bit) on any bytes, in
 * both places perf puts them: the section table of a seekable file and the
 * HEADER_FEATURE records of a pipe-mode stream.
 *
 * The input is a list of features: a first byte (its low bit chooses the
 * pipe layout), then { u8 feature, u16 length (little-endian), length
 * bytes } repeated (the last one cut to what is left).  The target wraps
 * them in a well-formed file with one event (a cpu-clock attr with
 * sample_id_all and one id), so every mutation lands in a feature parser
 * rather than in the header, opens it through the public reader, reads
 * every record, and reads back every fact the reader kept: each string
 * and build-id must be NUL-terminated inside memory ASan watches.
 * tests/fuzz/seeds.sh cuts the seeds out of real recordings.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "luaprof/perfdata.h"
#include "memfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ATTR_SIZE 128                   /* PERF_ATTR_SIZE_VER7 */
#define NR_FEATS 256

struct feat {
	const uint8_t *p;
	size_t len;
	bool set;
};

struct out {
	uint8_t *b;
	size_t len, cap;
};

static void put(struct out *o, const void *p, size_t n)
{
	if (o->len + n > o->cap) {
		size_t cap = (o->len + n) * 2;
		uint8_t *b = realloc(o->b, cap);
		if (!b)
			abort();
		o->b = b;
		o->cap = cap;
	}
	memcpy(o->b + o->len, p, n);
	o->len += n;
}

static void put64(struct out *o, uint64_t v)
{
	put(o, &v, 8);
}

/* The one event: cpu-clock, TID|TIME|ID|CPU|PERIOD, sample_id_all. */
static void attr(uint8_t a[ATTR_SIZE])
{
	memset(a, 0, ATTR_SIZE);
	uint32_t type = 1, sz = ATTR_SIZE;
	uint64_t sample_type = 0x2 | 0x4 | 0x40 | 0x80 | 0x100, flags = 1ull << 18;
	memcpy(a, &type, 4);
	memcpy(a + 4, &sz, 4);
	memcpy(a + 24, &sample_type, 8);
	memcpy(a + 40, &flags, 8);
}

/* Parses the input into feats (the first occurrence of each wins, as a
 * file's table has one entry per bit). */
static void split(const uint8_t *d, size_t n, struct feat *feats)
{
	while (n >= 3) {
		unsigned f = d[0];
		size_t len = (size_t)d[1] | (size_t)d[2] << 8;
		d += 3;
		n -= 3;
		if (len > n)
			len = n;
		if (!feats[f].set)
			feats[f] = (struct feat){ d, len, true };
		d += len;
		n -= len;
	}
}

static void seekable(struct out *o, const struct feat *feats)
{
	uint8_t a[ATTR_SIZE];
	uint64_t bits[4] = { 0 }, nr = 0;
	for (unsigned f = 0; f < NR_FEATS; f++)
		if (feats[f].set) {
			bits[f / 64] |= 1ull << (f % 64);
			nr++;
		}
	uint64_t attrs = 104, ids = attrs + ATTR_SIZE + 16, data = ids + 8;
	put(o, "PERFILE2", 8);
	put64(o, 104);
	put64(o, ATTR_SIZE + 16);
	put64(o, attrs), put64(o, ATTR_SIZE + 16);
	put64(o, data), put64(o, 0);
	put64(o, 0), put64(o, 0);
	put(o, bits, sizeof bits);
	attr(a);
	put(o, a, ATTR_SIZE);
	put64(o, ids), put64(o, 8);
	put64(o, 1);                            /* the event's id */
	uint64_t body = data + 16 * nr;
	for (unsigned f = 0; f < NR_FEATS; f++)
		if (feats[f].set) {
			put64(o, body), put64(o, feats[f].len);
			body += feats[f].len;
		}
	for (unsigned f = 0; f < NR_FEATS; f++)
		if (feats[f].set)
			put(o, feats[f].p, feats[f].len);
}

static void record(struct out *o, uint32_t type, const void *p, size_t n, uint64_t first)
{
	uint16_t size = (uint16_t)((16 + n + 7) & ~(size_t)7), misc = 0;
	put(o, &type, 4);
	put(o, &misc, 2);
	put(o, &size, 2);
	put64(o, first);
	put(o, p, n);
	put(o, "\0\0\0\0\0\0\0", size - 16 - n);
}

static void pipe_layout(struct out *o, const struct feat *feats)
{
	uint8_t a[ATTR_SIZE + 8];
	put(o, "PERFILE2", 8);
	put64(o, 16);
	attr(a);
	uint64_t id = 1;
	memcpy(a + ATTR_SIZE, &id, 8);
	/* HEADER_ATTR: the attr then its ids; record() puts the first 8 bytes */
	uint64_t first;
	memcpy(&first, a, 8);
	record(o, 64, a + 8, sizeof a - 8, first);
	for (unsigned f = 0; f < NR_FEATS; f++)
		if (feats[f].set && feats[f].len <= 65535 - 23)
			record(o, 80, feats[f].p, feats[f].len, f);
}

static volatile size_t sink;

static void touch(const char *s)
{
	if (s)
		sink += strlen(s);
}

static void read_back(struct lp_perfdata *pd)
{
	const struct lp_pd_info *in = lp_perfdata_info(pd);
	touch(in->hostname), touch(in->os_release), touch(in->perf_version), touch(in->arch);
	touch(in->cpu_desc), touch(in->cpuid);
	for (size_t i = 0; i < in->nr_cmdline; i++)
		touch(in->cmdline[i]);
	for (size_t i = 0; i < in->nr_build_ids; i++) {
		touch(in->build_ids[i].path);
		if (in->build_ids[i].size > 20)
			abort();
	}
	for (size_t i = 0; i < lp_perfdata_nr_events(pd); i++)
		touch(lp_perfdata_event(pd, i)->name);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct feat feats[NR_FEATS];
	struct out o = { 0 };
	if (size < 1)
		return 0;
	memset(feats, 0, sizeof feats);
	split(data + 1, size - 1, feats);
	if (data[0] & 1)
		pipe_layout(&o, feats);
	else
		seekable(&o, feats);
	static int fd = -1;
	char path[64];
	memfile(&fd, o.b, o.len, path, sizeof path);
	free(o.b);
	struct lp_perfdata *pd = lp_perfdata_open(path);
	if (pd) {
		struct lp_record rec;
		const struct lp_pd_event *ev;
		while (lp_perfdata_next(pd, &rec, &ev) > 0)
			;
		read_back(pd);
		lp_perfdata_close(pd);
	}
	return 0;
}
