/*
 * lagg.c - the one-liners' aggregations in C (core/agg) for their front
 * end (lua/helpers/oneliner.lua), which alone sees this table: luaprof -x
 * hands it over as the global _ONELINER_AGG, which the front end takes
 * and clears.  It is no public module.
 *
 *   local a = agg.new{ event = "sched:sched_switch", op = "count",
 *                      keys = { "comm", "field:prev_state" },
 *                      value = "field:ret",                 -- sum, min, max, hist
 *                      filter = { "field:ret", ">", 0 } }   -- optional
 *   a:entries()  -> { { keys = { k1, ... }, value = v, hist = { [bucket] = n } }, ... }
 *   a:active()   -> whether the run fed it samples in C (it bound to its event)
 *   a:clear()
 *   agg.only()   -- every clause taking samples is one of these (replay.c)
 *   agg.cli(), agg.describe(EV), agg.recording()   -- the run's events (lxevents.c)
 *   agg.bucket(v), agg.hist_text({ [bucket] = n })  -- core/agg's histogram
 *                   buckets and bpftrace text, luaprof.hist's too
 *
 * Operands are "pid", "tid", "cpu", "comm", "sym" or "field:NAME".  The run feeds
 * an aggregation every sample of its event (matched by name at the
 * event's first sample, as on_event is) instead of calling the event's
 * Lua handler, once lp_agg_bind accepts the event; when it does not (a
 * field the event lacks, a string value) the handler gets the samples, so
 * the front end keeps one for every event it aggregates here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "lp.h"
#include "luaprof/agg.h"
#include "luaprof/luaprof.h"
#include "luaprof/record.h"

#define LP_AGG_MT "luaprof.OnelinerAgg"

struct lp_agg_reg {
	struct lp_agg *agg;
	char *event;
	bool active;
};

static const char *const ops[] = { "count", "sum", "min", "max", "hist", NULL };
static const char *const cmps[] = { "==", "~=", "<", "<=", ">", ">=", NULL };
static const char *const srcs[] = { "pid", "tid", "cpu", "comm", "sym", NULL };

static void operand(lua_State *L, int idx, struct lp_agg_operand *o)
{
	const char *s = luaL_checkstring(L, idx);
	if (!strncmp(s, "field:", 6)) {
		o->src = LP_AGG_FIELD;
		if (strlen(s + 6) >= sizeof o->field)
			luaL_error(L, "field name too long: %s", LP_SHOW(s + 6));
		strcpy(o->field, s + 6);
		return;
	}
	o->src = (uint8_t)luaL_checkoption(L, idx, NULL, srcs);
}

/* Reads field key of the table at 1 onto the stack; returns its type. */
static int get(lua_State *L, const char *key)
{
	lua_settop(L, 1);
	return lua_getfield(L, 1, key);
}

static void read_spec(lua_State *L, struct lp_agg_spec *spec)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	get(L, "op");
	spec->op = (uint8_t)luaL_checkoption(L, 2, NULL, ops);
	if (get(L, "keys") == LUA_TTABLE) {
		lua_Integer n = luaL_len(L, 2);
		luaL_argcheck(L, n <= LP_AGG_MAX_KEYS, 1, "too many keys");
		spec->nr_keys = (uint8_t)n;
		for (lua_Integer i = 1; i <= n; i++) {
			lua_geti(L, 2, i);
			operand(L, 3, &spec->keys[i - 1]);
			lua_pop(L, 1);
		}
	}
	if (spec->op != LP_AGG_COUNT) {
		get(L, "value");
		operand(L, 2, &spec->value);
	}
	if (get(L, "filter") == LUA_TTABLE) {
		spec->has_filter = true;
		lua_geti(L, 2, 1);
		operand(L, 3, &spec->filter);
		lua_geti(L, 2, 2);
		spec->cmp = (uint8_t)luaL_checkoption(L, 4, NULL, cmps);
		lua_geti(L, 2, 3);
		spec->filter_const = luaL_checkinteger(L, 5);
	}
}

static struct lp_agg_reg *check(lua_State *L)
{
	return luaL_checkudata(L, 1, LP_AGG_MT);
}

/* agg.new{...}: registered with the run for its event. */
static int l_new(lua_State *L)
{
	struct lp_agg_spec spec;
	memset(&spec, 0, sizeof spec);
	read_spec(L, &spec);
	get(L, "event");
	const char *event = luaL_checkstring(L, 2);
	struct lp_run *run = lp_get_run(L);
	struct lp_agg_reg *r = lua_newuserdatauv(L, sizeof *r, 0);
	memset(r, 0, sizeof *r);
	luaL_setmetatable(L, LP_AGG_MT);
	r->agg = lp_agg_new(&spec);
	r->event = strdup(event);
	if (!r->agg || !r->event)
		return luaL_error(L, "cannot make the aggregation: %s", strerror(errno));
	struct lp_agg_reg **v = realloc(run->aggs.v, (run->aggs.n + 1) * sizeof *v);
	if (!v)
		return luaL_error(L, "out of memory");
	run->aggs.v = v;
	v[run->aggs.n++] = r;
	lua_pushvalue(L, -1);   /* kept alive for the run by the registry */
	luaL_ref(L, LUA_REGISTRYINDEX);
	return 1;
}

static void push_key(lua_State *L, const struct lp_agg *a, size_t i, unsigned j)
{
	const char *s;
	int64_t n;
	if (lp_agg_key(a, i, j, &s, &n))
		lua_pushstring(L, s);
	else
		lua_pushinteger(L, (lua_Integer)n);
}

static int l_entries(lua_State *L)
{
	struct lp_agg_reg *r = check(L);
	const struct lp_agg_spec *spec = lp_agg_spec(r->agg);
	size_t n = r->active ? lp_agg_count(r->agg) : 0;
	lua_createtable(L, (int)n, 0);
	for (size_t i = 0; i < n; i++) {
		lua_createtable(L, 0, 3);
		lua_createtable(L, spec->nr_keys, 0);
		for (unsigned j = 0; j < spec->nr_keys; j++) {
			push_key(L, r->agg, i, j);
			lua_rawseti(L, -2, j + 1);
		}
		lua_setfield(L, -2, "keys");
		lua_pushinteger(L, (lua_Integer)lp_agg_value(r->agg, i));
		lua_setfield(L, -2, "value");
		const uint64_t *b = lp_agg_hist(r->agg, i);
		if (b) {
			lua_createtable(L, 0, 8);
			for (unsigned k = 0; k < LP_AGG_BUCKETS; k++)
				if (b[k]) {
					lua_pushinteger(L, (lua_Integer)b[k]);
					lua_rawseti(L, -2, k);
				}
			lua_setfield(L, -2, "hist");
		}
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	return 1;
}

static int l_active(lua_State *L)
{
	lua_pushboolean(L, check(L)->active);
	return 1;
}

static int l_clear(lua_State *L)
{
	lp_agg_clear(check(L)->agg);
	return 0;
}

static int l_gc(lua_State *L)
{
	struct lp_agg_reg *r = check(L);
	struct lp_run *run = lp_get_run(L);
	for (size_t i = 0; i < run->aggs.n; i++)
		if (run->aggs.v[i] == r)
			run->aggs.v[i] = NULL;
	lp_agg_free(r->agg);
	free(r->event);
	r->agg = NULL;
	r->event = NULL;
	return 0;
}

/* The front end's word that every clause that takes samples is one of
 * these aggregations: no Lua runs per sample, so a replay reads on its
 * own thread, as reading ahead would only add copies and hand-overs
 * (lua/cmd/replay.c).  Should one not bind after all, its clause runs in
 * Lua on this thread, just as right. */
static int l_only(lua_State *L)
{
	lp_get_run(L)->aggs.only = true;
	return 0;
}

/* agg.hist_text(h): the histogram h ({ [bucket] = count }, buckets as
 * agg.bucket numbers them) as bpftrace prints it, by core/agg's printer,
 * the one luaprof.hist prints with. */
static int l_hist_text(lua_State *L)
{
	uint64_t counts[LP_AGG_BUCKETS] = { 0 };
	luaL_checktype(L, 1, LUA_TTABLE);
	for (lua_Integer b = 0; b < LP_AGG_BUCKETS; b++) {
		lua_Integer c = (lua_geti(L, 1, b), luaL_optinteger(L, -1, 0));
		counts[b] = c > 0 ? (uint64_t)c : 0;
		lua_pop(L, 1);
	}
	size_t n;
	char *text = lp_hist_text(counts, LP_AGG_BUCKETS, NULL, NULL, &n);
	if (!text)
		return luaL_error(L, "out of memory");
	lua_pushlstring(L, text, n);
	free(text);
	return 1;
}

/* The bucket of v, for the Lua path's histograms: the same numbers; nil
 * when v is no integer (1.5, 0/0), which the front end says at the
 * program's line. */
static int l_bucket(lua_State *L)
{
	int ok;
	lua_Integer v = lua_tointegerx(L, 1, &ok);
	if (ok)
		lua_pushinteger(L, lp_agg_bucket(v));
	else
		lua_pushnil(L);
	return 1;
}

void lp_agg_open(lua_State *L)
{
	static const luaL_Reg meths[] = {
		{ "entries", l_entries }, { "active", l_active }, { "clear", l_clear }, { NULL, NULL },
	};
	luaL_newmetatable(L, LP_AGG_MT);
	luaL_newlib(L, meths);
	lua_setfield(L, -2, "__index");
	lua_pushcfunction(L, l_gc);
	lua_setfield(L, -2, "__gc");
	lua_pop(L, 1);
	static const luaL_Reg funcs[] = {
		{ "new", l_new }, { "only", l_only }, { "bucket", l_bucket },
		{ "hist_text", l_hist_text }, { NULL, NULL },
	};
	luaL_newlib(L, funcs);
	lp_xevents_register(L);
	lua_setglobal(L, "_ONELINER_AGG");
}

/* The aggregation for the event called name (or its bare name, without
 * modifiers), bound to its samples' layout; NULL when there is none or it
 * does not bind (then the event's handler takes the samples). */
struct lp_agg *lp_agg_for_event(struct lp_run *run, const char *name, const char *bare,
				const struct lp_tp_format *fmt, uint64_t sample_type)
{
	for (size_t i = 0; name && i < run->aggs.n; i++) {
		struct lp_agg_reg *r = run->aggs.v[i];
		if (!r || (strcmp(r->event, name) && (!bare || strcmp(r->event, bare))))
			continue;
		if (lp_agg_bind(r->agg, fmt, sample_type, NULL))
			return NULL;
		r->active = true;
		return r->agg;
	}
	return NULL;
}

void lp_agg_regs_free(struct lp_run *run)
{
	free(run->aggs.v);
	run->aggs.v = NULL;
	run->aggs.n = 0;
}

bool lp_agg_order_free(const struct lp_run *run)
{
	static const enum lp_hook timed[] = {   /* on_interval runs only with interval.ns */
		LP_HOOK_COMM, LP_HOOK_FORK, LP_HOOK_EXIT, LP_HOOK_SWITCH, LP_HOOK_KEY,
	};
	if (!run->aggs.only || run->interval.ns)
		return false;
	for (size_t i = 0; i < sizeof timed / sizeof timed[0]; i++)
		if (run->vm.ref[timed[i]] != LUA_NOREF)
			return false;
	for (size_t i = 0; i < run->aggs.n; i++) {
		const struct lp_agg_reg *r = run->aggs.v[i];
		if (r && (lp_agg_wants(r->agg, LP_AGG_COMM) || lp_agg_wants(r->agg, LP_AGG_SYM)))
			return false;
	}
	return true;
}
