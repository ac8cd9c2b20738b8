/*
 * pprof.c - building a pprof profile and encoding it (protobuf by hand:
 * only varints and length-delimited fields are needed), gzip by zlib.
 *
 * Every table is a hash map whose key bytes are the record itself:
 * strings, functions (name, system name, file as string ids), mappings
 * (start, limit, offset, file, build-id), locations (mapping, address,
 * then a (function, line) pair per line) and samples (the number of
 * locations, the locations, then the labels).  An entry's number in its
 * map is its id - 1 (string: its index), so encoding reads the keys back
 * and nothing is stored twice; only the samples' values live beside them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "luaprof/hmap.h"
#include "luaprof/pprof.h"
#include "util/grow.h"

enum { T_STR, T_FUNC, T_MAP, T_LOC, T_SAMPLE, NR_TABLES };

struct lp_pprof {
	struct lp_hmap *t[NR_TABLES];
	int64_t types[LP_PPROF_MAX_VALUES][2];  /* (type, unit) string ids */
	size_t nr_types;
	int64_t period_type[2], period, default_type;
	int64_t time_nanos, duration_nanos;
	int64_t *map_bid;                       /* build-id string per mapping */
	size_t cap_bid;
	int64_t *values;                        /* nr_types per sample */
	size_t cap_values;
	uint64_t key[64];
	struct lp_buf scratch;
};

struct lp_pprof *lp_pprof_new(void)
{
	struct lp_pprof *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	for (int i = 0; i < NR_TABLES; i++)
		if (!(p->t[i] = lp_hmap_new()))
			goto fail;
	if (lp_hmap_find(p->t[T_STR], "", 0, lp_hash("", 0), true, NULL) != 0)
		goto fail;      /* string 0 is "" */
	return p;
fail:
	lp_pprof_free(p);
	return errno = ENOMEM, NULL;
}

void lp_pprof_free(struct lp_pprof *p)
{
	if (!p)
		return;
	for (int i = 0; i < NR_TABLES; i++)
		lp_hmap_free(p->t[i]);
	free(p->values);
	free(p->map_bid);
	lp_buf_free(&p->scratch);
	free(p);
}

/* The entry of n bytes at key in table t (added when new), or -ENOMEM. */
static int64_t intern(struct lp_pprof *p, int t, const void *key, size_t n, bool *added)
{
	return lp_hmap_find(p->t[t], key, n, lp_hash(key, n), true, added);
}

static int64_t str(struct lp_pprof *p, const char *s)
{
	return s ? intern(p, T_STR, s, strlen(s), NULL) : 0;
}

int lp_pprof_sample_type(struct lp_pprof *p, const char *type, const char *unit)
{
	if (lp_hmap_count(p->t[T_SAMPLE]))
		return -EBUSY;
	if (p->nr_types == LP_PPROF_MAX_VALUES)
		return -E2BIG;
	int64_t a = str(p, type), b = str(p, unit);
	if (a < 0 || b < 0)
		return -ENOMEM;
	p->types[p->nr_types][0] = a;
	p->types[p->nr_types++][1] = b;
	return 0;
}

int lp_pprof_period(struct lp_pprof *p, const char *type, const char *unit, int64_t period)
{
	int64_t a = str(p, type), b = str(p, unit);
	if (a < 0 || b < 0)
		return -ENOMEM;
	p->period_type[0] = a;
	p->period_type[1] = b;
	p->period = period;
	return 0;
}

void lp_pprof_period_value(struct lp_pprof *p, int64_t period)
{
	p->period = period;
}

void lp_pprof_times(struct lp_pprof *p, int64_t time_nanos, int64_t duration_nanos)
{
	p->time_nanos = time_nanos;
	p->duration_nanos = duration_nanos;
}

int lp_pprof_default_type(struct lp_pprof *p, const char *type)
{
	int64_t a = str(p, type);
	return a < 0 ? -ENOMEM : (p->default_type = a, 0);
}

uint64_t lp_pprof_mapping(struct lp_pprof *p, uint64_t start, uint64_t limit, uint64_t offset,
			  const char *file, bool *added)
{
	int64_t f = str(p, file);
	if (f < 0)
		return 0;
	uint64_t key[4] = { start, limit, offset, (uint64_t)f };
	*added = false;
	int64_t e = intern(p, T_MAP, key, sizeof key, added);
	if (e < 0 || lp_grow(&p->map_bid, &p->cap_bid, (size_t)e, sizeof *p->map_bid, 64,
			     SIZE_MAX / 16))
		return 0;
	if (*added)
		p->map_bid[e] = 0;
	return (uint64_t)e + 1;
}

int lp_pprof_build_id(struct lp_pprof *p, uint64_t mapping, const uint8_t *id, size_t len)
{
	char hex[2 * 64 + 1] = "";
	for (size_t i = 0; i < len && i < 64; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	int64_t b = str(p, hex);
	if (b < 0)
		return -ENOMEM;
	if (mapping && mapping <= lp_hmap_count(p->t[T_MAP]))
		p->map_bid[mapping - 1] = b;
	return 0;
}

static int64_t function(struct lp_pprof *p, const struct lp_pprof_line *l)
{
	int64_t key[3] = { str(p, l->function ? l->function : "[unknown]"), str(p, l->system_name),
			   str(p, l->file) };
	if (key[0] < 0 || key[1] < 0 || key[2] < 0)
		return -ENOMEM;
	int64_t e = intern(p, T_FUNC, key, sizeof key, NULL);
	return e < 0 ? e : e + 1;
}

uint64_t lp_pprof_location(struct lp_pprof *p, uint64_t mapping, uint64_t address,
			   const struct lp_pprof_line *lines, size_t n)
{
	if (n > 30)
		n = 30;         /* the key has room for 30 lines of an inline chain */
	p->key[0] = mapping;
	p->key[1] = address;
	for (size_t i = 0; i < n; i++) {
		int64_t f = function(p, &lines[i]);
		if (f < 0)
			return 0;
		p->key[2 + 2 * i] = (uint64_t)f;
		p->key[3 + 2 * i] = (uint64_t)lines[i].line;
	}
	int64_t e = intern(p, T_LOC, p->key, (2 + 2 * n) * sizeof p->key[0], NULL);
	return e < 0 ? 0 : (uint64_t)e + 1;
}

int lp_pprof_add(struct lp_pprof *p, const uint64_t *locs, size_t n, const int64_t *values,
		 const struct lp_pprof_label *labels, size_t nr_labels)
{
	if (!p->nr_types || nr_labels > LP_PPROF_MAX_LABELS)
		return -EINVAL;
	struct lp_buf *k = &p->scratch;
	k->len = 0;
	uint64_t v = n;
	lp_buf_add(k, &v, sizeof v);
	lp_buf_add(k, locs, n * sizeof *locs);
	for (size_t i = 0; i < nr_labels; i++) {
		int64_t l[3] = { str(p, labels[i].key), str(p, labels[i].str), labels[i].num };
		if (l[0] < 0 || l[1] < 0)
			return -ENOMEM;
		lp_buf_add(k, l, sizeof l);
	}
	bool added = false;
	int64_t e = k->err ? -ENOMEM : intern(p, T_SAMPLE, k->p, k->len, &added);
	if (e < 0)
		return -ENOMEM;
	size_t need = ((size_t)e + 1) * p->nr_types;
	if (added && need > p->cap_values) {
		size_t cap = p->cap_values;
		while (cap < need)
			if (lp_grow(&p->values, &cap, cap, sizeof *p->values, 1024, SIZE_MAX / 16))
				return -ENOMEM;
		p->cap_values = cap;
	}
	int64_t *dst = p->values + (size_t)e * p->nr_types;
	for (size_t i = 0; i < p->nr_types; i++)
		dst[i] = added ? values[i] : dst[i] + values[i];
	return 0;
}

/* ---------------------------------------------------------- encoding */

static void varint(struct lp_buf *b, uint64_t v)
{
	uint8_t s[10];
	size_t n = 0;
	do {
		s[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	lp_buf_add(b, s, n);
}

/* A varint field; proto3 leaves zero values out. */
static void field(struct lp_buf *b, unsigned num, uint64_t v)
{
	if (!v)
		return;
	varint(b, (uint64_t)num << 3);
	varint(b, v);
}

/* A length-delimited field holding sub's bytes; sub is emptied. */
static void message(struct lp_buf *b, unsigned num, struct lp_buf *sub)
{
	varint(b, (uint64_t)num << 3 | 2);
	varint(b, sub->len);
	lp_buf_add(b, sub->p, sub->len);
	sub->len = 0;
}

/* A sub-message of n varint fields, numbered 1..n, holding w[0..n). */
static void words(struct lp_buf *b, unsigned num, const uint64_t *w, size_t n, struct lp_buf *sub)
{
	for (size_t i = 0; i < n; i++)
		field(sub, (unsigned)i + 1, w[i]);
	message(b, num, sub);
}

static void value_type(struct lp_buf *b, unsigned num, const int64_t t[2], struct lp_buf *sub)
{
	uint64_t w[2] = { (uint64_t)t[0], (uint64_t)t[1] };
	words(b, num, w, 2, sub);
}

static const uint64_t *key_words(const struct lp_pprof *p, int t, size_t i, size_t *n)
{
	size_t bytes;
	const void *k = lp_hmap_key(p->t[t], i, &bytes);
	*n = bytes / sizeof(uint64_t);
	return k;
}

static void samples(const struct lp_pprof *p, struct lp_buf *b, struct lp_buf *s1,
		    struct lp_buf *s2)
{
	for (size_t i = 0; i < lp_hmap_count(p->t[T_SAMPLE]); i++) {
		size_t n;
		const uint64_t *k = key_words(p, T_SAMPLE, i, &n);
		uint64_t nl;
		memcpy(&nl, k, sizeof nl);
		for (size_t j = 0; j < nl; j++)
			varint(s2, k[1 + j]);
		message(s1, 1, s2);
		for (size_t j = 0; j < p->nr_types; j++)
			varint(s2, (uint64_t)p->values[i * p->nr_types + j]);
		message(s1, 2, s2);
		for (size_t j = 1 + nl; j + 3 <= n; j += 3)
			words(s1, 3, k + j, 3, s2);     /* label: key, str, num */
		message(b, 2, s1);
	}
}

/* Whether file names a program: not a shared object ("libc.so.6",
 * "ld-linux-x86-64.so.2"), not the kernel or a pseudo-file ("[vdso]",
 * "[kernel.kallsyms]"), not a perf map ("/tmp/perf-PID.map"). */
static bool is_program(const char *file, size_t n)
{
	const char *base = file;
	for (size_t i = 0; i < n; i++)
		if (file[i] == '/')
			base = file + i + 1;
	size_t bn = n - (size_t)(base - file);
	if (!bn || *base == '[' || memmem(base, bn, ".so", 3))
		return false;
	return !(bn > 4 && !memcmp(base, "perf-", 5) && !memcmp(base + bn - 4, ".map", 4));
}

/* The mapping listed first: pprof takes the first as the profile's main
 * binary (go tool pprof's "File:").  The first program among them, else
 * the first. */
static size_t main_mapping(const struct lp_pprof *p)
{
	for (size_t i = 0; i < lp_hmap_count(p->t[T_MAP]); i++) {
		size_t n, len;
		const uint64_t *k = key_words(p, T_MAP, i, &n);
		const char *file = lp_hmap_key(p->t[T_STR], (size_t)k[3], &len);
		if (is_program(file, len))
			return i;
	}
	return 0;
}

static void mappings(const struct lp_pprof *p, struct lp_buf *b, struct lp_buf *s1)
{
	size_t nr = lp_hmap_count(p->t[T_MAP]), first = main_mapping(p);
	for (size_t j = 0; j < nr; j++) {
		size_t n, i = j == 0 ? first : j <= first ? j - 1 : j;
		const uint64_t *k = key_words(p, T_MAP, i, &n);
		field(s1, 1, i + 1);
		field(s1, 2, k[0]);
		field(s1, 3, k[1]);
		field(s1, 4, k[2]);
		field(s1, 5, k[3]);
		field(s1, 6, (uint64_t)p->map_bid[i]);
		field(s1, 7, 1);        /* has_functions: every frame was named here */
		message(b, 3, s1);
	}
}

static void locations(const struct lp_pprof *p, struct lp_buf *b, struct lp_buf *s1,
		      struct lp_buf *s2)
{
	for (size_t i = 0; i < lp_hmap_count(p->t[T_LOC]); i++) {
		size_t n;
		const uint64_t *k = key_words(p, T_LOC, i, &n);
		field(s1, 1, i + 1);
		field(s1, 2, k[0]);
		field(s1, 3, k[1]);
		for (size_t j = 2; j + 2 <= n; j += 2)
			words(s1, 4, k + j, 2, s2);     /* line: function, line */
		message(b, 4, s1);
	}
}

static void functions_and_strings(const struct lp_pprof *p, struct lp_buf *b, struct lp_buf *s1)
{
	for (size_t i = 0; i < lp_hmap_count(p->t[T_FUNC]); i++) {
		size_t n;
		const uint64_t *k = key_words(p, T_FUNC, i, &n);
		field(s1, 1, i + 1);
		field(s1, 2, k[0]);
		field(s1, 3, k[1] ? k[1] : k[0]);
		field(s1, 4, k[2]);
		message(b, 5, s1);
	}
	for (size_t i = 0; i < lp_hmap_count(p->t[T_STR]); i++) {
		size_t n;
		const void *s = lp_hmap_key(p->t[T_STR], i, &n);
		varint(b, 6 << 3 | 2);
		varint(b, n);
		lp_buf_add(b, s, n);
	}
}

static void encode(const struct lp_pprof *p, struct lp_buf *b)
{
	struct lp_buf s1 = { 0 }, s2 = { 0 };
	for (size_t i = 0; i < p->nr_types; i++)
		value_type(b, 1, p->types[i], &s1);
	samples(p, b, &s1, &s2);
	mappings(p, b, &s1);
	locations(p, b, &s1, &s2);
	functions_and_strings(p, b, &s1);
	field(b, 9, (uint64_t)p->time_nanos);
	field(b, 10, (uint64_t)p->duration_nanos);
	if (p->period_type[0])
		value_type(b, 11, p->period_type, &s1);
	field(b, 12, (uint64_t)p->period);
	field(b, 14, (uint64_t)p->default_type);
	if (s1.err || s2.err)
		b->err = -ENOMEM;
	lp_buf_free(&s1);
	lp_buf_free(&s2);
}

static int gzip(const struct lp_buf *in, struct lp_buf *out)
{
	z_stream z = { 0 };
	if (in->len > UINT32_MAX / 2 ||
	    deflateInit2(&z, 6, Z_DEFLATED, MAX_WBITS + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	uLong bound = deflateBound(&z, (uLong)in->len);
	char *dst = malloc(bound);
	int rc = dst ? 0 : -ENOMEM;
	if (dst) {
		z.next_in = (Bytef *)(uintptr_t)in->p;
		z.avail_in = (uInt)in->len;
		z.next_out = (Bytef *)dst;
		z.avail_out = (uInt)bound;
		if (deflate(&z, Z_FINISH) != Z_STREAM_END)
			rc = -EIO;
		else
			lp_buf_add(out, dst, bound - z.avail_out);
	}
	free(dst);
	deflateEnd(&z);
	return rc ? rc : out->err;
}

int lp_pprof_write(struct lp_pprof *p, struct lp_buf *out, int gz)
{
	if (!gz) {
		encode(p, out);
		return out->err;
	}
	struct lp_buf raw = { 0 };
	encode(p, &raw);
	int rc = raw.err ? raw.err : gzip(&raw, out);
	lp_buf_free(&raw);
	return rc;
}
