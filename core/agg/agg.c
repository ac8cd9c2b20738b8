/*
 * agg.c - the aggregation engine's sample reader (include/luaprof/agg.h):
 * a spec's operands read from each sample in C, the key made into bytes
 * in a scratch buffer (the map's layout) and folded into its map
 * (aggmap.c), which Lua and other aggregations may feed too.
 *
 * The hot path (lp_agg_add) allocates only when a key is new (the map
 * grows) or longer than any before (the scratch buffer).  The previous
 * key's entry and the sym cache's hold entry numbers, which stay valid
 * until the map is cleared (its generation changes).
 *
 * A lone sym key (count(sym)) skips the key's bytes for the names seen
 * before: the resolver's names live as long as it does and one pointer is
 * one name, so a small cache maps the name's pointer to its entry (the
 * leaves of a profile are few; two threads' samples alternate between
 * theirs, so the previous sample's key alone would seldom do).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "agg/aggmap_int.h"
#include "luaprof/agg.h"
#include "luaprof/record.h"
#include "luaprof/trace.h"

/* How an integer operand is read, settled at bind, so that a sample costs
 * a switch and a load: the sample's ids, a plain 4- or 8-byte field, or
 * any other integer field (through lp_tp_read_int). */
enum { RD_PID, RD_TID, RD_CPU, RD_U32, RD_S32, RD_64, RD_FIELD };

#define SYM_CACHE 64            /* entries of the sym name cache: a power of 2 */

struct reader {
	uint8_t how;
	uint32_t off, end;              /* RD_U32, RD_S32, RD_64: the field's bytes */
	const struct lp_tp_field *f;    /* RD_FIELD, and string keys */
};

struct lp_agg {
	struct lp_agg_spec spec;
	bool bound;
	bool fixed;                     /* no string key: a key is nr_keys words */
	struct reader rk[LP_AGG_MAX_KEYS], rv, rf;      /* keys, value, filter */
	bool key_is_str[LP_AGG_MAX_KEYS];
	uint64_t last_k[LP_AGG_MAX_KEYS];       /* fixed: the previous sample's key */
	struct lp_aggmap *map;
	bool own_map;
	uint64_t gen;                   /* the map's generation the entry numbers are of */
	uint8_t *scratch;               /* the key being built */
	size_t cap_scratch;
	uint8_t *last;                  /* the previous sample's key (same capacity) */
	size_t last_len;
	int64_t last_idx;               /* its entry, or -1 */
	bool sym_only;                  /* the key is one sym: sym_cache is used */
	struct { const char *name; int64_t idx; } sym_cache[SYM_CACHE];
};

static bool operand_ok(const struct lp_agg_operand *o, bool integer)
{
	if (o->src >= LP_AGG_NR_SRCS || (integer && (o->src == LP_AGG_COMM || o->src == LP_AGG_SYM)))
		return false;
	return o->src != LP_AGG_FIELD || (o->field[0] && memchr(o->field, '\0', sizeof o->field));
}

static bool spec_ok(const struct lp_agg_spec *s, const struct lp_aggmap *map)
{
	if (s->op >= LP_AGG_NR_OPS || s->nr_keys > LP_AGG_MAX_KEYS || s->cmp >= LP_AGG_NR_CMPS ||
	    (map ? lp_aggmap_op(map) != s->op : s->op == LP_AGG_LHIST))
		return false;
	for (unsigned i = 0; i < s->nr_keys; i++)
		if (!operand_ok(&s->keys[i], false))
			return false;
	if (s->op != LP_AGG_COUNT && !operand_ok(&s->value, true))
		return false;
	return !s->has_filter || operand_ok(&s->filter, true);
}

struct lp_agg *lp_agg_new(const struct lp_agg_spec *spec, struct lp_aggmap *map)
{
	if (!spec_ok(spec, map)) {
		errno = EINVAL;
		return NULL;
	}
	struct lp_agg *a = calloc(1, sizeof *a);
	if (!a)
		return NULL;
	a->spec = *spec;
	a->cap_scratch = 256;
	a->own_map = !map;
	a->map = map ? map : lp_aggmap_new(spec->op, NULL);
	a->scratch = malloc(a->cap_scratch);
	a->last = malloc(a->cap_scratch);
	a->last_idx = -1;
	if (!a->map || !a->scratch || !a->last) {
		lp_agg_free(a);
		errno = ENOMEM;
		return NULL;
	}
	return a;
}

struct lp_aggmap *lp_agg_map(const struct lp_agg *a)
{
	return a->map;
}

void lp_agg_free(struct lp_agg *a)
{
	if (!a)
		return;
	if (a->own_map)
		lp_aggmap_free(a->map);
	free(a->scratch);
	free(a->last);
	free(a);
}

/* The sym name cache's slot for name. */
static size_t sym_slot(const char *name)
{
	return ((uintptr_t)name >> 3) & (SYM_CACHE - 1);
}

/* Empties the sym name cache (the entries it points at are gone). */
static void forget_syms(struct lp_agg *a)
{
	for (size_t i = 0; i < SYM_CACHE; i++)
		a->sym_cache[i].name = NULL;
}

/* The samples must carry bit for source src. */
static uint64_t needs(uint8_t src)
{
	switch (src) {
	case LP_AGG_PID: case LP_AGG_TID: case LP_AGG_COMM: return PERF_SAMPLE_TID;
	case LP_AGG_CPU: return PERF_SAMPLE_CPU;
	case LP_AGG_SYM: return PERF_SAMPLE_IP;
	default: return PERF_SAMPLE_RAW;
	}
}

/* Resolves operand o: 0 with *f (NULL for non-fields) and *is_str, or
 * -ENOENT/-EINVAL as lp_agg_bind says. */
static int bind_operand(const struct lp_agg_operand *o, const struct lp_tp_format *fmt,
			uint64_t sample_type, bool integer, const struct lp_tp_field **f, bool *is_str)
{
	*f = NULL;
	*is_str = o->src == LP_AGG_COMM || o->src == LP_AGG_SYM;
	if (!(sample_type & needs(o->src)))
		return -EINVAL;
	if (o->src != LP_AGG_FIELD)
		return 0;
	const struct lp_tp_field *tf = fmt ? lp_tp_field_find(fmt, o->field) : NULL;
	if (!tf || tf->common)          /* s.fields leaves the common_* out */
		return -ENOENT;
	if (tf->kind != LP_TP_INT && (integer || tf->kind != LP_TP_STRING))
		return -EINVAL;
	*f = tf;
	*is_str = tf->kind == LP_TP_STRING;
	return 0;
}

static const char *operand_name(const struct lp_agg_operand *o)
{
	static const char *const names[] = { "pid", "tid", "cpu", "comm", "sym" };
	return o->src == LP_AGG_FIELD ? o->field : names[o->src];
}

static struct reader make_reader(const struct lp_agg_operand *o, const struct lp_tp_field *f)
{
	struct reader r = { .how = RD_FIELD, .f = f };

	if (o->src == LP_AGG_PID || o->src == LP_AGG_TID || o->src == LP_AGG_CPU)
		r.how = o->src == LP_AGG_PID ? RD_PID : o->src == LP_AGG_TID ? RD_TID : RD_CPU;
	else if (f && !f->dyn && f->kind == LP_TP_INT && (f->size == 4 || f->size == 8)) {
		r.how = f->size == 8 ? RD_64 : f->is_signed ? RD_S32 : RD_U32;
		r.off = f->offset;
		r.end = f->offset + f->size;
	}
	return r;
}

int lp_agg_bind(struct lp_agg *a, const struct lp_tp_format *fmt, uint64_t sample_type,
		const char **what)
{
	const struct lp_agg_spec *s = &a->spec;
	const struct lp_tp_field *kf[LP_AGG_MAX_KEYS], *vf = NULL, *ff = NULL;
	bool str[LP_AGG_MAX_KEYS], dummy;
	const struct lp_agg_operand *bad = NULL;
	int rc = 0;
	for (unsigned i = 0; i < s->nr_keys && !rc; i++)
		if ((rc = bind_operand(&s->keys[i], fmt, sample_type, false, &kf[i], &str[i])))
			bad = &s->keys[i];
	if (!rc && s->op != LP_AGG_COUNT &&
	    (rc = bind_operand(&s->value, fmt, sample_type, true, &vf, &dummy)))
		bad = &s->value;
	if (!rc && s->has_filter && (rc = bind_operand(&s->filter, fmt, sample_type, true, &ff, &dummy)))
		bad = &s->filter;
	unsigned j = 0;
	if (!rc && lp_aggmap_shape(a->map, s->nr_keys, str, &j)) {
		rc = -EINVAL;           /* the map's keys would not decode */
		bad = j < s->nr_keys ? &s->keys[j] : s->nr_keys ? &s->keys[0] : NULL;
	}
	if (rc) {
		if (what)
			*what = bad ? operand_name(bad) : "the keys";
		return rc;
	}
	a->fixed = true;
	for (unsigned i = 0; i < s->nr_keys; i++) {
		a->rk[i] = make_reader(&s->keys[i], kf[i]);
		a->fixed = a->fixed && !str[i];
	}
	a->rv = make_reader(&s->value, vf);
	a->rf = make_reader(&s->filter, ff);
	memcpy(a->key_is_str, str, sizeof str);
	a->bound = true;
	a->last_idx = -1;
	a->sym_only = s->nr_keys == 1 && s->keys[0].src == LP_AGG_SYM;
	forget_syms(a);
	return 0;
}

bool lp_agg_wants(const struct lp_agg *a, enum lp_agg_src src)
{
	for (unsigned i = 0; i < a->spec.nr_keys; i++)
		if (a->spec.keys[i].src == src)
			return true;
	return false;
}

/* An integer operand's value; false when its field lies outside the data. */
static inline bool rd(const struct reader *r, const struct lp_sample *s, int64_t *v)
{
	uint32_t w;
	uint64_t u;

	switch (r->how) {
	case RD_PID: *v = (int32_t)s->pid; return true;
	case RD_TID: *v = (int32_t)s->tid; return true;
	case RD_CPU: *v = s->cpu; return true;
	case RD_U32:
	case RD_S32:
		if (r->end > s->raw_size)
			return false;
		memcpy(&w, (const uint8_t *)s->raw + r->off, 4);
		*v = r->how == RD_S32 ? (int64_t)(int32_t)w : (int64_t)w;
		return true;
	case RD_64:
		if (r->end > s->raw_size)
			return false;
		memcpy(&u, (const uint8_t *)s->raw + r->off, 8);
		*v = (int64_t)u;
		return true;
	default:
		if (lp_tp_read_int(r->f, s->raw, s->raw_size, &u))
			return false;
		*v = (int64_t)u;
		return true;
	}
}

/* Room for n more bytes of key at offset off; false when out of memory. */
static bool scratch_grow(struct lp_agg *a, size_t off, size_t n);

static inline bool scratch_room(struct lp_agg *a, size_t off, size_t n)
{
	return off + n <= a->cap_scratch || scratch_grow(a, off, n);
}

static bool scratch_grow(struct lp_agg *a, size_t off, size_t n)
{
	size_t cap = a->cap_scratch;
	while (cap < off + n)
		cap *= 2;
	uint8_t *p = realloc(a->scratch, cap);
	if (!p)
		return false;
	a->scratch = p;
	if (!(p = realloc(a->last, cap)))
		return false;
	a->last = p;
	a->cap_scratch = cap;
	return true;
}

/* Builds the sample's key in a->scratch: its length, 0 when an operand is
 * missing, -ENOMEM. */
static long make_key(struct lp_agg *a, const struct lp_sample *s,
		     const struct lp_agg_names *names)
{
	size_t off = 0;
	for (unsigned i = 0; i < a->spec.nr_keys; i++) {
		const struct lp_agg_operand *o = &a->spec.keys[i];
		const char *str = NULL;
		size_t len = 0;
		if (o->src == LP_AGG_COMM || o->src == LP_AGG_SYM) {
			str = !names ? NULL : o->src == LP_AGG_COMM ? names->comm : names->sym;
			if (!str)
				return 0;
			len = strlen(str);
		} else if (a->key_is_str[i]) {
			if (lp_tp_read_string(a->rk[i].f, s->raw, s->raw_size, &str, &len))
				return 0;
		} else {
			int64_t v;
			if (!rd(&a->rk[i], s, &v))
				return 0;
			if (!scratch_room(a, off, 8))
				return -ENOMEM;
			memcpy(a->scratch + off, &v, 8);
			off += 8;
			continue;
		}
		if (!scratch_room(a, off, len + 1))
			return -ENOMEM;
		memcpy(a->scratch + off, str, len);
		a->scratch[off + len] = '\0';
		off += len + 1;
	}
	return (long)off + 1;   /* +1: 0 means missing; the caller takes 1 off */
}

static bool compare(int64_t v, uint8_t cmp, int64_t c)
{
	switch (cmp) {
	case LP_AGG_EQ: return v == c;
	case LP_AGG_NE: return v != c;
	case LP_AGG_LT: return v < c;
	case LP_AGG_LE: return v <= c;
	case LP_AGG_GT: return v > c;
	default: return v >= c;
	}
}

/* Whether the n bytes at p and q are the same: keys are short (a few
 * 8-byte integers), too short for a call of memcmp to pay. */
static inline bool same_key(const uint8_t *p, const uint8_t *q, size_t n)
{
	uint64_t x, y;
	for (; n >= 8; p += 8, q += 8, n -= 8) {
		memcpy(&x, p, 8);
		memcpy(&y, q, 8);
		if (x != y)
			return false;
	}
	return !n || !memcmp(p, q, n);
}

static inline bool same_words(const uint64_t *k, const uint64_t *l, unsigned n)
{
	for (unsigned j = 0; j < n; j++)
		if (k[j] != l[j])
			return false;
	return true;
}

/* The key of s when every key is an integer, in k (nr_keys words); false
 * when an operand is missing. */
static inline bool fixed_key(const struct lp_agg *a, const struct lp_sample *s, uint64_t *k)
{
	for (unsigned j = 0; j < a->spec.nr_keys; j++) {
		int64_t x;
		if (!rd(&a->rk[j], s, &x))
			return false;
		k[j] = (uint64_t)x;
	}
	return true;
}

/* The entry numbers a keeps (the previous key's, the sym cache's) are of
 * its map before a clear: forgotten when it was cleared since. */
static inline void check_gen(struct lp_agg *a)
{
	uint64_t gen = a->map->gen;
	if (gen != a->gen) {
		a->gen = gen;
		a->last_idx = -1;
		forget_syms(a);
	}
}

int lp_agg_add(struct lp_agg *a, const struct lp_sample *s, const struct lp_agg_names *names)
{
	int64_t v = 0, f;
	size_t len;

	if (a->spec.has_filter &&
	    (!rd(&a->rf, s, &f) || !compare(f, a->spec.cmp, a->spec.filter_const)))
		return 1;
	if (a->spec.op != LP_AGG_COUNT && !rd(&a->rv, s, &v))
		return 1;
	check_gen(a);
	/* runs of one key are common (a thread's switches, a loop's reads):
	 * the previous key is found again without hashing */
	if (a->fixed) {
		uint64_t k[LP_AGG_MAX_KEYS];
		if (!fixed_key(a, s, k))
			return 1;
		len = 8 * (size_t)a->spec.nr_keys;
		if (a->last_idx >= 0 && same_words(k, a->last_k, a->spec.nr_keys)) {
			aggmap_fold(a->map, (size_t)a->last_idx, false, v);
			return 0;
		}
		memcpy(a->scratch, k, len);     /* scratch holds 256 bytes at least */
		memcpy(a->last_k, k, len);
	} else {
		if (a->sym_only && names && names->sym) {
			size_t h = sym_slot(names->sym);
			if (a->sym_cache[h].name == names->sym) {
				aggmap_fold(a->map, (size_t)a->sym_cache[h].idx, false, v);
				return 0;
			}
		}
		long n = make_key(a, s, names);
		if (n <= 0)
			return n < 0 ? (int)n : 1;
		len = (size_t)n - 1;
		if (a->last_idx >= 0 && len == a->last_len && same_key(a->scratch, a->last, len)) {
			aggmap_fold(a->map, (size_t)a->last_idx, false, v);
			return 0;
		}
		memcpy(a->last, a->scratch, len);
		a->last_len = len;
	}
	bool added = false;
	int64_t i = aggmap_find(a->map, a->scratch, len, &added);
	if (i < 0) {
		a->last_idx = -1;
		return -ENOMEM;
	}
	a->last_idx = i;
	aggmap_fold(a->map, (size_t)i, added, v);
	if (a->sym_only) {
		size_t h = sym_slot(names->sym);
		a->sym_cache[h].name = names->sym;
		a->sym_cache[h].idx = i;
	}
	return 0;
}
