/*
 * lagg.c - the one-liners' aggregations in C (core/agg) for their front
 * end (lua/helpers/oneliner.lua), which alone sees this table: luaprof -x
 * hands it to the front end's main chunk as its argument (local AGG =
 * ...; vm.c), so no global, module or registry field shows it to the
 * program's code.  It is no public module.
 *
 *   local a = agg.new{ event = "sched:sched_switch", map = M,  -- maps:map's
 *                      keys = { "comm", "field:prev_state" },
 *                      value = "field:ret",                 -- all but count
 *                      filter = { "field:ret", ">", 0 } }   -- optional
 *   a:active()   -> whether the run fed it samples in C (it bound to its event)
 *   agg.only()   -- every clause taking samples is one of these (replay.c)
 *   agg.maps()   -- the maps, which these and the program's Lua add to
 *                   and print (laggmap.c)
 *   agg.cli(), agg.describe(EV), agg.recording()   -- the run's events (lxevents.c)
 *
 * An aggregation adds to its map M (its op is the map's): the same map
 * the clauses run in Lua add to, so C's entries and Lua's are one map,
 * printed once.
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

#include "lclass.h"
#include "lp.h"
#include "luaprof/agg.h"
#include "luaprof/aggmap.h"
#include "luaprof/luaprof.h"
#include "luaprof/record.h"


struct lp_agg_reg {
	struct lp_agg *agg;
	char *event;
	bool active;
};

static const char *const cmps[] = { "==", "~=", "<", "<=", ">", ">=", NULL };
static const char *const srcs[] = { "pid", "tid", "cpu", "comm", "sym", NULL };

/* The operand at idx, named key in agg.new's table (argument 1). */
static void operand(lua_State *L, int idx, const char *key, struct lp_agg_operand *o)
{
	const char *s = lp_checkfield_string(L, idx, 1, key);
	if (!strncmp(s, "field:", 6)) {
		o->src = LP_AGG_FIELD;
		if (strlen(s + 6) >= sizeof o->field)
			lp_argerror(L, 1, "%s: field name too long: %s", key, LP_SHOW(s + 6));
		strcpy(o->field, s + 6);
		return;
	}
	o->src = (uint8_t)lp_checkfield_option(L, idx, 1, key, NULL, srcs);
}

/* Reads field key of the table at 1 onto the stack; returns its type. */
static int get(lua_State *L, const char *key)
{
	lua_settop(L, 1);
	return lua_getfield(L, 1, key);
}

static void read_spec(lua_State *L, struct lp_agg_spec *spec, const struct lp_aggmap *map)
{
	spec->op = (uint8_t)lp_aggmap_op(map);
	if (get(L, "keys") == LUA_TTABLE) {
		lua_Integer n = luaL_len(L, 2);
		luaL_argcheck(L, n <= LP_AGG_MAX_KEYS, 1, "too many keys");
		spec->nr_keys = (uint8_t)n;
		for (lua_Integer i = 1; i <= n; i++) {
			lua_geti(L, 2, i);
			operand(L, 3, lua_pushfstring(L, "keys[%I]", i), &spec->keys[i - 1]);
			lua_pop(L, 2);
		}
	}
	if (spec->op != LP_AGG_COUNT) {
		get(L, "value");
		operand(L, 2, "value", &spec->value);
	}
	if (get(L, "filter") == LUA_TTABLE) {
		spec->has_filter = true;
		lua_geti(L, 2, 1);
		operand(L, 3, "filter[1]", &spec->filter);
		lua_geti(L, 2, 2);
		spec->cmp = (uint8_t)lp_checkfield_option(L, 4, 1, "filter[2]", NULL, cmps);
		lua_geti(L, 2, 3);
		spec->filter_const = lp_checkfield_integer(L, 5, 1, "filter[3]");
	}
}

static const struct lp_class agg_class;

static struct lp_agg_reg *check(lua_State *L)
{
	return lp_class_check(L, 1, &agg_class);
}

/* agg.new{...}: registered with the run for its event. */
static int l_new(lua_State *L)
{
	struct lp_agg_spec spec;
	memset(&spec, 0, sizeof spec);
	luaL_checktype(L, 1, LUA_TTABLE);
	get(L, "map");
	struct lp_aggmap *map = lp_l_checkaggmap(L, 2);
	read_spec(L, &spec, map);
	get(L, "event");
	const char *event = lp_checkfield_string(L, 2, 1, "event");
	lua_getfield(L, 1, "map");      /* 3 */
	struct lp_run *run = lp_get_run(L);
	struct lp_agg_reg *r = lp_class_alloc(L, &agg_class, sizeof *r, 1);
	lua_pushvalue(L, 3);
	lua_setiuservalue(L, -2, 1);    /* the map lives as long as this */
	r->agg = lp_agg_new(&spec, map);
	r->event = strdup(event);
	if (!r->agg || !r->event)
		return luaL_error(L, "cannot make the aggregation: %s", strerror(errno));
	struct lp_agg_reg **v = realloc(run->aggs.v, (run->aggs.n + 1) * sizeof *v);
	if (!v)
		return lp_nomem(L);
	run->aggs.v = v;
	v[run->aggs.n++] = r;
	lua_pushvalue(L, -1);   /* kept alive for the run by the registry */
	luaL_ref(L, LUA_REGISTRYINDEX);
	return 1;
}

static int l_active(lua_State *L)
{
	lua_pushboolean(L, check(L)->active);
	return 1;
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

static const luaL_Reg agg_meths[] = { { "active", l_active }, { NULL, NULL } };
static const luaL_Reg agg_meta[] = { { "__gc", l_gc }, { NULL, NULL } };
static const struct lp_class agg_class = {
	.name = LP_CLASS_NAME("oneliner", "Aggregation"), .methods = agg_meths, .meta = agg_meta,
};

void lp_agg_open(lua_State *L)
{
	static const luaL_Reg funcs[] = {
		{ "new", l_new }, { "only", l_only }, { NULL, NULL },
	};
	lp_class_new(L, &agg_class, 0);
	luaL_newlib(L, funcs);
	lp_xevents_register(L);
	lp_aggmap_register(L);
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

bool lp_agg_order_free(const struct lp_run *run, bool timed_calls)
{
	static const enum lp_hook timed[] = {   /* on_interval runs only with interval.ns */
		LP_HOOK_COMM, LP_HOOK_FORK, LP_HOOK_EXIT, LP_HOOK_SWITCH, LP_HOOK_KEY,
	};
	if (!run->aggs.only || timed_calls)
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
