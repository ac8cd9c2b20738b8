/*
 * lhist.c - histograms: luaprof.hist() (power-of-two buckets) and
 * luaprof.hist{ min =, max =, step = } (linear buckets), with running
 * statistics and quantiles, printed the way bpftrace prints them.
 *
 *   local h = luaprof.hist()          buckets (..., 0) [0] [1] [2, 4) [4, 8) ...
 *   local l = luaprof.hist{ min = 0, max = 100, step = 10 }
 *                                     (..., 0) [0, 10) ... [90, 100) [100, ...)
 *   h:add(value [, n])                values are numbers; n repeats them
 *   h:count() h:sum() h:min() h:max() h:mean()
 *   h:quantile(q)                     0 <= q <= 1, estimated within a bucket
 *   h:stats()                         { count=, sum=, min=, max=, mean= }
 *   h:buckets()                       { {min=, max=, count=}, ... } (min/max nil: open)
 *   tostring(h), h:print()            the bpftrace-style table
 *
 * A value lands in one bucket by arithmetic (a count of leading zeros, or
 * a division): add costs the same whatever the data.  Quantiles are
 * estimated by linear interpolation inside the bucket that holds the rank,
 * clamped to the smallest and largest value seen, so they are exact for
 * the single-value buckets [0] and [1] and within one bucket's width
 * otherwise.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "lclass.h"
#include "linit.h"
#include "lpaux.h"
#include "luaprof/agg.h"
#include "luaprof/luaprof.h"

#define POW2_BUCKETS LP_HIST_POW2_BUCKETS     /* (..,0) [0] [1] [2,4) ... [2^63, ...) */
#define MAX_LINEAR 100000

struct hist {
	bool linear;
	struct lp_lhist lh;             /* linear only: core/agg's buckets */
	size_t nr;                      /* buckets */
	uint64_t count;
	double sum, lo, hi;             /* statistics of the values added */
	uint64_t b[];
};

static const struct lp_class hist_class;

static struct hist *check_hist(lua_State *L)
{
	return lp_class_check(L, 1, &hist_class);
}

static struct hist *new_hist(lua_State *L, size_t nr)
{
	struct hist *h = lp_class_alloc(L, &hist_class, sizeof *h + nr * sizeof h->b[0], 0);
	h->nr = nr;
	return h;
}

static size_t bucket_of(const struct hist *h, double v)
{
	if (h->linear) {
		if (v < (double)h->lh.min)
			return 0;
		if (v >= (double)h->lh.max)
			return h->nr - 1;
		return lp_lhist_bucket(&h->lh, (int64_t)floor(v));     /* the one-liners' lhist */
	}
	if (v < 0)
		return 0;
	if (v < 1)
		return 1;
	if (v >= 9223372036854775808.0)
		return POW2_BUCKETS - 1;
	return lp_agg_bucket((int64_t)v);       /* the one-liners' buckets */
}

/* Bucket i's range [lo, hi); false for an open end. */
static void bounds(const struct hist *h, size_t i, double *lo, double *hi, bool *open_lo,
		   bool *open_hi)
{
	*open_lo = i == 0;
	*open_hi = i == h->nr - 1;
	if (h->linear) {
		/* the last bucket starts at max, where the one before it was
		 * cut short when step does not divide max - min */
		*lo = !i ? -(double)INFINITY : *open_hi ? (double)h->lh.max :
		      (double)(h->lh.min + (int64_t)(i - 1) * h->lh.step);
		*hi = *open_hi ? (double)INFINITY : i ? fmin(*lo + (double)h->lh.step, (double)h->lh.max)
					       : (double)h->lh.min;
		return;
	}
	*lo = i == 0 ? -(double)INFINITY : i == 1 ? 0 : ldexp(1, (int)i - 2);
	*hi = i == 0 ? 0 : i == 1 ? 1 : *open_hi ? (double)INFINITY : ldexp(1, (int)i - 1);
}

static int l_add(lua_State *L)
{
	struct hist *h = check_hist(L);
	double v = luaL_checknumber(L, 2);
	lua_Integer n = luaL_optinteger(L, 3, 1);
	luaL_argcheck(L, n >= 0, 3, "a count is >= 0");
	luaL_argcheck(L, !isnan(v), 2, "NaN is not a value");
	if (n == 0)
		return 0;
	h->b[bucket_of(h, v)] += (uint64_t)n;
	if (!h->count || v < h->lo)
		h->lo = v;
	if (!h->count || v > h->hi)
		h->hi = v;
	h->count += (uint64_t)n;
	h->sum += v * (double)n;
	return 0;
}

static void push_num(lua_State *L, double v)
{
	if (v == floor(v) && fabs(v) < 9007199254740992.0)
		lua_pushinteger(L, (lua_Integer)v);
	else
		lua_pushnumber(L, v);
}

static int l_count(lua_State *L)
{
	lua_pushinteger(L, (lua_Integer)check_hist(L)->count);
	return 1;
}

static int l_sum(lua_State *L) { push_num(L, check_hist(L)->sum); return 1; }

static int l_min(lua_State *L)
{
	struct hist *h = check_hist(L);
	h->count ? push_num(L, h->lo) : lua_pushnil(L);
	return 1;
}

static int l_max(lua_State *L)
{
	struct hist *h = check_hist(L);
	h->count ? push_num(L, h->hi) : lua_pushnil(L);
	return 1;
}

static int l_mean(lua_State *L)
{
	struct hist *h = check_hist(L);
	h->count ? lua_pushnumber(L, h->sum / (double)h->count) : lua_pushnil(L);
	return 1;
}

static double quantile(const struct hist *h, double q)
{
	double rank = q * (double)h->count, seen = 0;
	for (size_t i = 0; i < h->nr; i++) {
		if (!h->b[i] || seen + (double)h->b[i] < rank) {
			seen += (double)h->b[i];
			continue;
		}
		double lo, hi;
		bool olo, ohi;
		bounds(h, i, &lo, &hi, &olo, &ohi);
		lo = olo || lo < h->lo ? h->lo : lo;
		hi = ohi || hi > h->hi ? h->hi : hi;
		if (!h->linear && i <= 2 && !olo)
			return lo;      /* [0] and [1] hold one value each */
		double v = lo + (hi - lo) * (rank - seen) / (double)h->b[i];
		return v < h->lo ? h->lo : v > h->hi ? h->hi : v;
	}
	return h->hi;
}

static int l_quantile(lua_State *L)
{
	struct hist *h = check_hist(L);
	double q = luaL_checknumber(L, 2);
	luaL_argcheck(L, q >= 0 && q <= 1, 2, "a quantile is between 0 and 1");
	if (!h->count)
		lua_pushnil(L);
	else
		lua_pushnumber(L, quantile(h, q));
	return 1;
}

static int l_stats(lua_State *L)
{
	struct hist *h = check_hist(L);
	lua_createtable(L, 0, 5);
	lua_pushinteger(L, (lua_Integer)h->count);
	lua_setfield(L, -2, "count");
	push_num(L, h->sum);
	lua_setfield(L, -2, "sum");
	if (h->count) {
		push_num(L, h->lo);
		lua_setfield(L, -2, "min");
		push_num(L, h->hi);
		lua_setfield(L, -2, "max");
		lua_pushnumber(L, h->sum / (double)h->count);
		lua_setfield(L, -2, "mean");
	}
	return 1;
}

static int l_buckets(lua_State *L)
{
	struct hist *h = check_hist(L);
	lua_createtable(L, (int)h->nr, 0);
	for (size_t i = 0, n = 0; i < h->nr; i++) {
		double lo, hi;
		bool olo, ohi;
		if (!h->b[i])
			continue;
		bounds(h, i, &lo, &hi, &olo, &ohi);
		lua_createtable(L, 0, 3);
		if (!olo) {
			push_num(L, lo);
			lua_setfield(L, -2, "min");
		}
		if (!ohi) {
			push_num(L, hi);
			lua_setfield(L, -2, "max");
		}
		lua_pushinteger(L, (lua_Integer)h->b[i]);
		lua_setfield(L, -2, "count");
		lua_rawseti(L, -2, (lua_Integer)++n);
	}
	return 1;
}

/* ---------------------------------------------------------- printing */

/* bpftrace's text (core/agg's printer and labels, as the one-liners'
 * hist() and lhist()). */
static int l_tostring(lua_State *L)
{
	struct hist *h = check_hist(L);
	size_t n;
	char *text = h->linear ? lp_hist_text(h->b, h->nr, lp_lhist_label, &h->lh, &n) :
				 lp_hist_text(h->b, h->nr, NULL, NULL, &n);
	if (!text)
		return lp_nomem(L);
	lua_pushlstring(L, text, n);
	free(text);
	return 1;
}

static int l_print(lua_State *L)
{
	l_tostring(L);
	fputs(lua_tostring(L, -1), stdout);
	return 0;
}

/* ------------------------------------------------------------- open */

/* The integer opts[key] of luaprof.hist{...}, which must be there. */
static lua_Integer linear_key(lua_State *L, const char *key)
{
	int ok;
	lua_getfield(L, 1, key);
	lua_Integer v = lua_tointegerx(L, -1, &ok);
	if (!ok)
		lp_argerror(L, 1, "%s must be an integer", key);
	lua_pop(L, 1);
	return v;
}

/* luaprof.hist(): power-of-two buckets; luaprof.hist{min=, max=, step=}:
 * linear ones (bpftrace's lhist), a key other than these an error. */
static int l_hist(lua_State *L)
{
	if (lua_isnoneornil(L, 1)) {
		new_hist(L, POW2_BUCKETS);
		return 1;
	}
	luaL_checktype(L, 1, LUA_TTABLE);
	for (lua_pushnil(L); lua_next(L, 1); lua_pop(L, 1)) {
		const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "";
		if (strcmp(k, "min") && strcmp(k, "max") && strcmp(k, "step"))
			lp_argerror(L, 1, "unknown key '%s' (known: min, max, step)",
				    LP_SHOW(luaL_tolstring(L, -2, NULL)));
	}
	lua_Integer min = linear_key(L, "min"), max = linear_key(L, "max");
	lua_Integer step = linear_key(L, "step");
	if (max <= min)
		lp_argerror(L, 1, "max must be larger than min");
	if (step <= 0)
		lp_argerror(L, 1, "step must be positive");
	struct lp_lhist lh;
	if (lp_lhist_init(&lh, min, max, step, MAX_LINEAR))
		lp_argerror(L, 1, "too many buckets (at most 100000)");
	struct hist *h = new_hist(L, lh.nr);
	h->linear = true;
	h->lh = lh;
	return 1;
}

static const luaL_Reg methods[] = {
	{ "add", l_add }, { "count", l_count }, { "sum", l_sum }, { "min", l_min },
	{ "max", l_max }, { "mean", l_mean }, { "quantile", l_quantile }, { "stats", l_stats },
	{ "buckets", l_buckets }, { "print", l_print }, { NULL, NULL },
};

static const luaL_Reg meta[] = { { "__tostring", l_tostring }, { NULL, NULL } };

static const struct lp_class hist_class = {
	.name = LP_CLASS_NAME("hist", "Hist"), .methods = methods, .meta = meta,
};

int luaopen_luaprof_hist(lua_State *L)
{
	lp_class_new(L, &hist_class, 0);
	lua_pushcfunction(L, l_hist);
	return 1;
}
