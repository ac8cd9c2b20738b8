/*
 * aggmap.c - the one-liners' maps (include/luaprof/aggmap.h): keys as
 * bytes in an lp_hmap whose value slot holds the count, sum, min or max,
 * an array of per-entry words beside it (hist's and lhist's buckets, avg's
 * and stats' sum), and the one printer of bpftrace's map format.
 *
 * An lp_agg (agg.c) builds a sample's key itself and finds its entry
 * with lp_aggmap_find; Lua's adds (lagg.c) go through lp_aggmap_add,
 * which builds the key from its parts and keeps the previous key and its
 * entry, so a run of one key costs a compare and no hash.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg/aggmap_int.h"
#include "luaprof/buf.h"


struct lp_aggmap *lp_aggmap_new(unsigned op, const struct lp_lhist *lh)
{
	if (op >= LP_AGG_NR_OPS || (op == LP_AGG_LHIST && (!lh || lh->nr < 2))) {
		errno = EINVAL;
		return NULL;
	}
	struct lp_aggmap *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	m->op = (uint8_t)op;
	m->nr_keys = -1;
	m->last_idx = -1;
	if (op == LP_AGG_LHIST)
		m->lh = *lh;
	m->per = op == LP_AGG_HIST ? LP_AGG_BUCKETS : op == LP_AGG_LHIST ? lh->nr :
		 op == LP_AGG_AVG || op == LP_AGG_STATS ? 1 : 0;
	m->cap_key = 256;
	m->map = lp_hmap_new();
	m->key = malloc(m->cap_key);
	m->last = malloc(m->cap_key);
	if (!m->map || !m->key || !m->last) {
		lp_aggmap_free(m);
		errno = ENOMEM;
		return NULL;
	}
	return m;
}

void lp_aggmap_free(struct lp_aggmap *m)
{
	if (!m)
		return;
	lp_hmap_free(m->map);
	free(m->extra);
	free(m->key);
	free(m->last);
	free(m);
}

unsigned lp_aggmap_op(const struct lp_aggmap *m)
{
	return m->op;
}

const struct lp_lhist *lp_aggmap_lhist(const struct lp_aggmap *m)
{
	return m->op == LP_AGG_LHIST ? &m->lh : NULL;
}

/* ---------------------------------------------------------------- shape */

static int shape_error(int rc, unsigned at, unsigned *bad)
{
	if (bad)
		*bad = at;
	return rc;
}

int lp_aggmap_shape(struct lp_aggmap *m, unsigned nr, const bool *is_str, unsigned *bad)
{
	if (nr > LP_AGGMAP_MAX_KEYS)
		return shape_error(-E2BIG, LP_AGGMAP_MAX_KEYS, bad);
	if (m->nr_keys < 0) {
		m->nr_keys = (int)nr;
		memcpy(m->is_str, is_str, nr * sizeof *is_str);
		return 0;
	}
	if ((unsigned)m->nr_keys != nr)
		return shape_error(-ERANGE, (unsigned)m->nr_keys, bad);
	for (unsigned j = 0; j < nr; j++)
		if (m->is_str[j] != is_str[j])
			return shape_error(-EINVAL, j, bad);
	return 0;
}

int lp_aggmap_nr_keys(const struct lp_aggmap *m)
{
	return m->nr_keys;
}

bool lp_aggmap_key_is_str(const struct lp_aggmap *m, unsigned j)
{
	return m->nr_keys >= 0 && j < (unsigned)m->nr_keys && m->is_str[j];
}

/* ------------------------------------------------------------- entries */

bool lp_aggmap_grow(struct lp_aggmap *m, size_t n)
{
	if (n <= m->cap)
		return true;
	size_t cap = m->cap ? m->cap : 64;
	while (cap < n)
		cap *= 2;
	if (cap > SIZE_MAX / sizeof *m->extra / m->per)
		return false;
	uint64_t *p = realloc(m->extra, cap * m->per * sizeof *p);
	if (!p)
		return false;
	m->extra = p;
	m->cap = cap;
	return true;
}

int64_t lp_aggmap_find(struct lp_aggmap *m, const void *key, size_t len, bool *added)
{
	return aggmap_find(m, key, len, added);
}

void lp_aggmap_fold(struct lp_aggmap *m, size_t i, bool added, int64_t v)
{
	aggmap_fold(m, i, added, v);
}

uint64_t lp_aggmap_gen(const struct lp_aggmap *m)
{
	return m->gen;
}

/* Room for n more bytes of key at offset off; false when out of memory. */
static bool key_room(struct lp_aggmap *m, size_t off, size_t n)
{
	if (off + n <= m->cap_key)
		return true;
	size_t cap = m->cap_key;
	while (cap < off + n)
		cap *= 2;
	uint8_t *p = realloc(m->key, cap);
	if (!p)
		return false;
	m->key = p;
	if (!(p = realloc(m->last, cap)))
		return false;
	m->last = p;
	m->cap_key = cap;
	return true;
}

/* Lays the nr parts of keys out in m->key: their length, or -ENOMEM. */
static long build_key(struct lp_aggmap *m, const struct lp_aggkey *keys, unsigned nr)
{
	size_t off = 0;
	for (unsigned j = 0; j < nr; j++) {
		const struct lp_aggkey *k = &keys[j];
		if (!k->str) {
			if (!key_room(m, off, 8))
				return -ENOMEM;
			memcpy(m->key + off, &k->num, 8);
			off += 8;
			continue;
		}
		const char *nul = memchr(k->str, '\0', k->len);
		size_t n = nul ? (size_t)(nul - k->str) : k->len;
		if (!key_room(m, off, n + 1))
			return -ENOMEM;
		memcpy(m->key + off, k->str, n);
		m->key[off + n] = '\0';
		off += n + 1;
	}
	return (long)off;
}

int lp_aggmap_add(struct lp_aggmap *m, const struct lp_aggkey *keys, unsigned nr, int64_t v,
		  unsigned *bad)
{
	bool is_str[LP_AGGMAP_MAX_KEYS] = { false };
	if (nr > LP_AGGMAP_MAX_KEYS)
		return shape_error(-E2BIG, LP_AGGMAP_MAX_KEYS, bad);
	for (unsigned j = 0; j < nr; j++)
		is_str[j] = keys[j].str != NULL;
	int rc = lp_aggmap_shape(m, nr, is_str, bad);
	if (rc)
		return rc;
	long n = build_key(m, keys, nr);
	if (n < 0)
		return (int)n;
	size_t len = (size_t)n;
	if (m->last_idx >= 0 && m->last_gen == m->gen && len == m->last_len &&
	    !memcmp(m->key, m->last, len)) {
		aggmap_fold(m, (size_t)m->last_idx, false, v);
		return 0;
	}
	bool added;
	int64_t i = aggmap_find(m, m->key, len, &added);
	if (i < 0) {
		m->last_idx = -1;
		return (int)i;
	}
	memcpy(m->last, m->key, len);
	m->last_len = len;
	m->last_idx = i;
	m->last_gen = m->gen;
	aggmap_fold(m, (size_t)i, added, v);
	return 0;
}

size_t lp_aggmap_count(const struct lp_aggmap *m)
{
	return lp_hmap_count(m->map);
}

bool lp_aggmap_key(const struct lp_aggmap *m, size_t i, unsigned j, const char **str, int64_t *num)
{
	size_t len;
	const uint8_t *p = lp_hmap_key(m->map, i, &len);
	for (unsigned k = 0; k < j; k++)
		p += m->is_str[k] ? strlen((const char *)p) + 1 : 8;
	if (m->is_str[j]) {
		*str = (const char *)p;
		return true;
	}
	memcpy(num, p, 8);
	return false;
}

void lp_aggmap_stats(const struct lp_aggmap *m, size_t i, uint64_t *count, int64_t *sum)
{
	uint64_t v = *lp_hmap_value(m->map, i);
	if (m->op == LP_AGG_AVG || m->op == LP_AGG_STATS) {
		*count = v;
		*sum = (int64_t)m->extra[i];
	} else {
		*count = v;
		*sum = (int64_t)v;
	}
}

int64_t lp_aggmap_value(const struct lp_aggmap *m, size_t i)
{
	uint64_t count;
	int64_t sum;
	lp_aggmap_stats(m, i, &count, &sum);
	if (m->op != LP_AGG_AVG && m->op != LP_AGG_STATS)
		return sum;
	return count ? sum / (int64_t)count : 0;
}

const uint64_t *lp_aggmap_buckets(const struct lp_aggmap *m, size_t i, size_t *nr)
{
	if (m->op != LP_AGG_HIST && m->op != LP_AGG_LHIST)
		return NULL;
	*nr = m->per;
	return m->extra + i * m->per;
}

void lp_aggmap_clear(struct lp_aggmap *m)
{
	lp_hmap_clear(m->map);
	m->gen++;
	m->last_idx = -1;
}

/* ------------------------------------------------------------ printing */

/* An entry in printing order: its value, and its key's text (the parts
 * joined by NULs) at off in the texts' buffer, then at key. */
struct row {
	int64_t value;
	size_t idx, off, len;
	const char *key;
};

static int by_value_then_key(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;
	if (a->value != b->value)
		return a->value < b->value ? -1 : 1;
	int c = memcmp(a->key, b->key, a->len < b->len ? a->len : b->len);
	if (c)
		return c;
	return a->len < b->len ? -1 : a->len > b->len;
}

/* Appends entry i's key text, its parts joined by NULs. */
static void key_text(const struct lp_aggmap *m, size_t i, struct lp_buf *b)
{
	for (int j = 0; j < m->nr_keys; j++) {
		const char *s;
		int64_t n;
		if (j)
			lp_buf_add(b, "", 1);
		if (lp_aggmap_key(m, i, (unsigned)j, &s, &n))
			lp_buf_puts(b, s);
		else
			lp_buf_printf(b, "%" PRId64, n);
	}
}

/* "name[k1, k2]: " of row r ("name: " without keys). */
static void head(const struct lp_aggmap *m, const char *name, const struct row *r, struct lp_buf *out)
{
	lp_buf_puts(out, name);
	if (m->nr_keys > 0) {
		lp_buf_add(out, "[", 1);
		const char *p = r->key, *end = r->key + r->len;
		while (p <= end) {
			size_t n = strnlen(p, (size_t)(end - p));
			lp_buf_add(out, p, n);
			p += n + 1;
			if (p <= end)
				lp_buf_add(out, ", ", 2);
		}
		lp_buf_add(out, "]", 1);
	}
	lp_buf_add(out, ": ", 2);
}

/* Row r's value, its line(s) after the head. */
static void body(const struct lp_aggmap *m, const struct row *r, struct lp_buf *out)
{
	if (m->op == LP_AGG_HIST || m->op == LP_AGG_LHIST) {
		size_t nr = 0, len;
		const uint64_t *b = lp_aggmap_buckets(m, r->idx, &nr);
		struct lp_lhist lh = m->lh;
		char *text = lp_hist_text(b, nr, m->op == LP_AGG_LHIST ? lp_lhist_label : NULL, &lh, &len);
		if (!text) {
			out->err = -ENOMEM;
			return;
		}
		lp_buf_add(out, "\n", 1);
		lp_buf_add(out, text, len);
		lp_buf_add(out, "\n", 1);
		free(text);
	} else if (m->op == LP_AGG_STATS) {
		uint64_t count;
		int64_t sum;
		lp_aggmap_stats(m, r->idx, &count, &sum);
		lp_buf_printf(out, "count %" PRIu64 ", average %" PRId64 ", total %" PRId64 "\n", count,
			      r->value, sum);
	} else {
		lp_buf_printf(out, "%" PRId64 "\n", r->value);
	}
}

int lp_aggmap_text(const struct lp_aggmap *m, const char *name, struct lp_buf *out)
{
	size_t n = lp_aggmap_count(m);
	if (!n)
		return 0;
	struct row *rows = calloc(n, sizeof *rows);
	struct lp_buf keys = { 0 };
	if (!rows)
		return out->err = -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		rows[i] = (struct row){ .value = lp_aggmap_value(m, i), .idx = i, .off = keys.len };
		key_text(m, i, &keys);
		rows[i].len = keys.len - rows[i].off;
	}
	if (keys.err) {
		free(rows);
		lp_buf_free(&keys);
		return out->err = -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		rows[i].key = keys.p ? keys.p + rows[i].off : "";
	qsort(rows, n, sizeof *rows, by_value_then_key);
	for (size_t i = 0; i < n && !out->err; i++) {
		head(m, name, &rows[i], out);
		body(m, &rows[i], out);
	}
	if (m->op == LP_AGG_AVG || m->op == LP_AGG_STATS)
		lp_buf_add(out, "\n", 1);
	free(rows);
	lp_buf_free(&keys);
	return out->err ? -ENOMEM : 0;
}
