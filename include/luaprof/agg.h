/* Part of include/luaprof/: the core's interface to the layer above it (lua/). */
/*
 * agg.h - the aggregation engine: counting, summing and histogramming
 * samples by a key, in C, with no call into the script per sample.
 *
 * The one-liners (luaprof -x) compile their short forms into an lp_agg
 * when every operand is one the engine reads itself: the sample's pid,
 * tid, cpu, a tracepoint field, or a name the caller looks up (the
 * thread's command name, the function sampled).  An lp_agg
 * is made from a spec, bound once to its event (the tracepoint format and
 * what its samples carry), then fed every sample of that event:
 *
 *   @[k1, k2] = count()        op COUNT, keys k1, k2
 *   @[k] = sum(v), min, max    op SUM / MIN / MAX, value v
 *   @[k] = hist(v)             op HIST: bpftrace's power-of-two buckets
 *   avg(v), stats(v), lhist(v, min, max, step)     AVG, STATS, LHIST
 *
 * optionally only for the samples where `filter CMP constant` holds, into
 * a map (aggmap.h) that other aggregations and Lua may feed too.
 * Values are 64-bit signed integers (a tracepoint field as its format
 * says, sign-extended when signed), summed with wrap-around, exactly as
 * the same one-liner computes them in Lua.
 *
 * Keys are made as bytes (8 bytes per integer, a string and its NUL), the
 * map's layout, so a sample costs one hash and one lookup; memory is
 * taken only when a key is seen for the first time (and the map grows).
 */
#ifndef LUAPROF_AGG_H
#define LUAPROF_AGG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LP_AGG_MAX_KEYS 4
#define LP_AGG_BUCKETS 65       /* see lp_agg_bucket */
#define LP_AGG_FIELD_MAX 64     /* a field name's bytes, NUL included */

enum lp_agg_op {
	LP_AGG_COUNT, LP_AGG_SUM, LP_AGG_MIN, LP_AGG_MAX, LP_AGG_HIST,
	LP_AGG_AVG, LP_AGG_STATS, LP_AGG_LHIST,         /* the count and sum; linear buckets */
	LP_AGG_NR_OPS
};

/* Where an operand's value comes from. */
enum lp_agg_src {
	LP_AGG_PID,             /* the sample's pid (signed 32 bits, as s.pid) */
	LP_AGG_TID,
	LP_AGG_CPU,             /* needs PERF_SAMPLE_CPU */
	LP_AGG_COMM,            /* the thread's command name (a string) */
	LP_AGG_SYM,             /* the function sampled, as s.sym (a string) */
	LP_AGG_FIELD,           /* a tracepoint field: integer or string */
	LP_AGG_NR_SRCS
};

enum lp_agg_cmp { LP_AGG_EQ, LP_AGG_NE, LP_AGG_LT, LP_AGG_LE, LP_AGG_GT, LP_AGG_GE, LP_AGG_NR_CMPS };

struct lp_agg_operand {
	uint8_t src;                    /* enum lp_agg_src */
	char field[LP_AGG_FIELD_MAX];   /* LP_AGG_FIELD: the field's name */
};

struct lp_agg_spec {
	uint8_t op;                     /* enum lp_agg_op: its map's */
	uint8_t nr_keys;                /* 0 to LP_AGG_MAX_KEYS */
	struct lp_agg_operand keys[LP_AGG_MAX_KEYS];
	struct lp_agg_operand value;    /* every op but COUNT: an integer */
	bool has_filter;                /* count only where filter cmp filter_const */
	struct lp_agg_operand filter;   /* an integer */
	uint8_t cmp;                    /* enum lp_agg_cmp */
	int64_t filter_const;
};

struct lp_agg;
struct lp_aggmap;
struct lp_sample;
struct lp_tp_format;

/* A new, unbound aggregation of spec (copied) into map (aggmap.h: the
 * caller's, which must outlive it, of spec's op; NULL: a map of its own,
 * not for LHIST).  Several may feed one map, and Lua too (lagg.c).  NULL
 * with errno EINVAL when the spec is malformed (an op, source or
 * comparison out of range, too many keys, a field name that is empty or
 * not NUL-terminated, COMM or SYM as the value or filter) or its op is
 * not map's, ENOMEM. */
struct lp_agg *lp_agg_new(const struct lp_agg_spec *spec, struct lp_aggmap *map);

/* Frees a (and its own map, not the caller's). */
void lp_agg_free(struct lp_agg *a);

/* The map a adds to. */
struct lp_aggmap *lp_agg_map(const struct lp_agg *a);

/* Binds a to an event whose samples carry sample_type (PERF_SAMPLE_*
 * bits) and, for a tracepoint, have format fmt (NULL otherwise): resolves
 * the fields.  Returns 0; -ENOENT when a field is not in fmt (or fmt is
 * NULL), -EINVAL when a field cannot be an operand there (a value or filter
 * that is not an integer, a key that is neither integer nor string), or
 * when the samples lack what an operand needs (TID for pid/tid/comm, CPU
 * for cpu, IP for sym, RAW for fields), or when the keys are not of the
 * map's shape (lp_aggmap_shape: a string where the map has an integer;
 * the map takes the keys' shape when it has none); *what (when not NULL)
 * then names the operand ("prev_state", "cpu").  May be called again for
 * another event with the same layout; it keeps the entries. */
int lp_agg_bind(struct lp_agg *a, const struct lp_tp_format *fmt, uint64_t sample_type,
		const char **what);

/* The names of a sample the engine cannot read from it, looked up by the
 * caller: each NULL when unknown or not wanted (lp_agg_wants). */
struct lp_agg_names {
	const char *comm;       /* the thread's command name */
	const char *sym;        /* the function sampled: one pointer must hold one
				 * name for as long as the lp_agg lives (the
				 * resolver's names do), as it may be known by
				 * its address alone */
};

/* Whether one of a's keys is src (LP_AGG_COMM, LP_AGG_SYM): the caller
 * then looks that name up for each sample it passes to lp_agg_add. */
bool lp_agg_wants(const struct lp_agg *a, enum lp_agg_src src);

/* Adds sample s (of the bound event) to a, with the names the caller
 * looked up (NULL: none).  Returns 0 when added, 1 when the sample was
 * left out (the filter is false, or an operand is missing: a field
 * outside the sample's data, no comm, no symbol), -ENOMEM.  Allocates
 * only for a key seen for the first time.  a must be bound. */
int lp_agg_add(struct lp_agg *a, const struct lp_sample *s, const struct lp_agg_names *names);

/* --- histograms (core/agg/hist.c): the one bucket function and the one
 * printer, for luaprof.hist and the one-liners' hist() alike. */

/* bpftrace's power-of-two histogram bucket of v: 0 for v < 0, 1 for 0,
 * 2 for 1, and k + 2 for 2^k <= v < 2^(k+1) (k = 1..62).  luaprof.hist's
 * values are numbers: one at or past 2^63 is in one more bucket,
 * LP_HIST_POW2_BUCKETS - 1. */
unsigned lp_agg_bucket(int64_t v);
#define LP_HIST_POW2_BUCKETS (LP_AGG_BUCKETS + 1)

/* An edge of a power-of-two bucket as bpftrace writes it: 1K, 2M, ...
 * (a multiple of 1024^k with its suffix), else the number. */
void lp_hist_edge(char *out, size_t size, uint64_t v);

/* Power-of-two bucket b's label as bpftrace prints it: "(..., 0)", "[0]",
 * "[1]", "[2, 4)", ..., "[1K, 2K)", ..., and "[8E, ...)" for the last. */
void lp_hist_pow2_label(unsigned b, char *out, size_t size);

/* Writes the label of bucket i (at most 95 bytes) to out. */
typedef void lp_hist_label_fn(size_t i, char *out, size_t size, void *ctx);

/* The histogram of nr bucket counts as bpftrace prints it: one line per
 * bucket from the first non-empty one to the last, "LABEL COUNT |@@@ |"
 * (the label left in 16 columns, the count right in 8, a bar of 52
 * scaled to the largest count).  label NULL: power-of-two buckets
 * (lp_hist_pow2_label).  Returns a malloc'd NUL-terminated text (empty
 * when every count is 0) and its length in *len, or NULL when out of
 * memory. */
char *lp_hist_text(const uint64_t *counts, size_t nr, lp_hist_label_fn *label, void *ctx,
		   size_t *len);

/* Linear buckets, bpftrace's lhist(v, min, max, step) and
 * luaprof.hist{ min =, max =, step = }: (..., min), [min, min + step),
 * ..., the last one cut at max when step does not divide max - min, and
 * [max, ...).  nr counts them all. */
struct lp_lhist {
	int64_t min, max, step;
	size_t nr;
};

/* Fills *l for min, max, step: 0, or -EINVAL when max <= min or step <= 0,
 * -E2BIG past max_buckets buckets between min and max. */
int lp_lhist_init(struct lp_lhist *l, int64_t min, int64_t max, int64_t step, size_t max_buckets);

/* The bucket of v: 0 below min, nr - 1 from max on. */
size_t lp_lhist_bucket(const struct lp_lhist *l, int64_t v);

/* Bucket i's label as bpftrace prints lhist's: "(..., 0)", "[0, 10)",
 * "[1K, 2K)", "[100, ...)" (edges as lp_hist_edge writes them, a
 * negative one with its sign); an lp_hist_label_fn with ctx l. */
void lp_lhist_label(size_t i, char *out, size_t size, void *l);

#endif
