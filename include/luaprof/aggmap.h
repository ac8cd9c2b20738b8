/* Part of include/luaprof/: the core's interface to the layer above it (lua/). */
/*
 * aggmap.h - a keyed map of aggregated values, bpftrace's @map: the
 * one-liners' maps (luaprof -x), fed per sample in C by an lp_agg
 * (agg.h) or from Lua (lua/host/lagg.c), and printed as bpftrace prints
 * its maps.
 *
 * A map holds one function's results (its op: count, sum, min, max, avg,
 * stats, hist, lhist) under keys of one shape: the same number of parts
 * (0 to LP_AGGMAP_MAX_KEYS), each an integer or a string, fixed by the
 * first add (or lp_aggmap_shape), as bpftrace fixes a map's key types at
 * its first use.  Values are 64-bit signed integers, summed with
 * wrap-around.
 *
 * A key is stored as bytes, 8 per integer (native order) and a string's
 * bytes and its NUL, in an lp_hmap whose value slot holds the count, sum,
 * min or max (hist, lhist, avg, stats: the number of values); hist and
 * lhist keep their bucket counts, avg and stats their sum, in an array
 * beside it, indexed by the entry's number.  Memory is taken only when a
 * key is new.
 */
#ifndef LUAPROF_AGGMAP_H
#define LUAPROF_AGGMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "luaprof/agg.h"

/* Parts of a key at most: bpftrace has no limit of its own but the BPF
 * stack's 512 bytes, which holds about as many integers with the rest. */
#define LP_AGGMAP_MAX_KEYS 32

struct lp_aggmap;
struct lp_buf;

/* One part of a key: a string (str, len bytes; a map keeps its bytes up
 * to a first NUL, where bpftrace's strings end) or, str NULL, the
 * integer num. */
struct lp_aggkey {
	const char *str;
	size_t len;
	int64_t num;
};

/* A new, empty map of op (enum lp_agg_op) with no shape yet; lh the
 * buckets of LP_AGG_LHIST (copied; ignored otherwise).  NULL with errno
 * EINVAL (op out of range, LHIST without buckets), ENOMEM. */
struct lp_aggmap *lp_aggmap_new(unsigned op, const struct lp_lhist *lh);

void lp_aggmap_free(struct lp_aggmap *m);

unsigned lp_aggmap_op(const struct lp_aggmap *m);

/* LP_AGG_LHIST: its buckets; NULL for other ops. */
const struct lp_lhist *lp_aggmap_lhist(const struct lp_aggmap *m);

/* Gives m the shape of nr keys, key j a string when is_str[j], when it
 * has none yet.  Returns 0 when m has that shape (now); -E2BIG when nr
 * is past LP_AGGMAP_MAX_KEYS; -ERANGE when m's keys are another number
 * of parts; -EINVAL when key *bad is a string where m's is an integer or
 * the other way round.  The shape stays through lp_aggmap_clear. */
int lp_aggmap_shape(struct lp_aggmap *m, unsigned nr, const bool *is_str, unsigned *bad);

/* m's number of key parts, -1 while it has no shape; and whether key j
 * is a string. */
int lp_aggmap_nr_keys(const struct lp_aggmap *m);
bool lp_aggmap_key_is_str(const struct lp_aggmap *m, unsigned j);

/* The entry of key, len bytes laid out as m's shape says (the caller
 * checked it: lp_aggmap_shape): its number, *added set when it is new;
 * -ENOMEM. */
int64_t lp_aggmap_find(struct lp_aggmap *m, const void *key, size_t len, bool *added);

/* Folds value v into entry i (added: just made by lp_aggmap_find). */
void lp_aggmap_fold(struct lp_aggmap *m, size_t i, bool added, int64_t v);

/* A number that changes when m is cleared: entry numbers kept from
 * before are then stale.  (They stay valid while entries are added.) */
uint64_t lp_aggmap_gen(const struct lp_aggmap *m);

/* Adds value v (ignored by COUNT) under the key of nr parts: the shape
 * checked (given it when m has none), the key built, its entry found
 * or made, v folded in.  Returns 0; -E2BIG, -ERANGE, -EINVAL with *bad
 * as lp_aggmap_shape says; -ENOMEM. */
int lp_aggmap_add(struct lp_aggmap *m, const struct lp_aggkey *keys, unsigned nr, int64_t v,
		  unsigned *bad);

/* The number of entries, numbered 0.. in the order first seen. */
size_t lp_aggmap_count(const struct lp_aggmap *m);

/* Part j of entry i's key: true with a string in *str (NUL-terminated,
 * valid until lp_aggmap_clear/free), or false with an integer in *num. */
bool lp_aggmap_key(const struct lp_aggmap *m, size_t i, unsigned j, const char **str, int64_t *num);

/* Entry i's value as bpftrace prints it: the count, sum, min or max; the
 * average of AVG and STATS (their sum divided by their count, toward
 * zero, as C divides); the number of values of HIST and LHIST. */
int64_t lp_aggmap_value(const struct lp_aggmap *m, size_t i);

/* Entry i's number of values and their sum (wrapped): AVG and STATS;
 * for the others, the value twice. */
void lp_aggmap_stats(const struct lp_aggmap *m, size_t i, uint64_t *count, int64_t *sum);

/* HIST and LHIST: entry i's bucket counts and their number in *nr
 * (LP_AGG_BUCKETS, lp_agg_bucket's; the lhist's nr, lp_lhist_bucket's);
 * NULL for other ops. */
const uint64_t *lp_aggmap_buckets(const struct lp_aggmap *m, size_t i, size_t *nr);

/* Forgets every entry (an interval's print-and-clear), keeping the shape
 * and the memory. */
void lp_aggmap_clear(struct lp_aggmap *m);

/* Appends map m, called name ("@", "@bytes"), as bpftrace prints it:
 * its entries sorted by value, smallest first (ties by key: the keys'
 * text compared part by part), one "name[k1, k2]: value" line each
 * ("name: value" with no key; stats: "count C, average A, total T"); a
 * hist or lhist as "name[k]: " and its buckets (lp_hist_text) and a
 * blank line; avg and stats maps end with a blank line.  Strings as they
 * are, integers in decimal.  Nothing for an empty map.  Returns 0, or
 * -ENOMEM (out->err is set then too). */
int lp_aggmap_text(const struct lp_aggmap *m, const char *name, struct lp_buf *out);

#endif
