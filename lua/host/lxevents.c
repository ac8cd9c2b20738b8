/*
 * lxevents.c - what the one-liner front end (lua/helpers/oneliner.lua) asks
 * of the run before the first sample, so that a mistake in a program is
 * said before anything starts: three functions of the table only it sees
 * (_ONELINER_AGG, lagg.c).
 *
 *   agg.cli()           -> { rate = BOOL, interval = MS or nil, replay = BOOL }
 *                          the command line's: -F or -c given, -I, -i
 *                          (asked before luaprof.setup, which fills them)
 *   agg.describe(EV [, fields])
 *                       -> { { name =, kind =, rate =, nargs =, fields = }, ... }
 *                          or nil, MESSAGE: the events an -e item stands for
 *                          (a glob is every tracepoint it matches), parsed
 *                          as -e parses them; with fields, a tracepoint's
 *                          format from tracefs (nil when it does not read)
 *   agg.recording()     -> { { name =, fields =, ip =, tid =, time =, cpu =,
 *                              callchain =, raw = }, ... } or nil: replaying,
 *                          in on_start, the recording's events, the format
 *                          it holds of each tracepoint and what its samples
 *                          carry (PERF_SAMPLE_* bits as booleans)
 *
 * kind is "tracepoint", "software", "hardware", "cache", "uprobe",
 * "uretprobe", "usdt", "kprobe", "kretprobe", "watchpoint", "raw" or
 * "pmu"; rate "run" (the run's -F or -c), "default" (every hit unless -F
 * or -c) or "own" (a term's); nargs a USDT probe's argument count.  A
 * field is { name =, kind = "integer" | "string" | "array" | "bytes",
 * signed = BOOL }, the common_* ones left out as s.args leaves them.
 */
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>

#include "lp.h"
#include "settings.h"
#include "luaprof/err.h"
#include "luaprof/event.h"
#include "luaprof/luaprof.h"
#include "luaprof/probe.h"
#include "luaprof/trace.h"

static const char *const field_kinds[] = { "integer", "string", "array", "bytes" };

/* Pushes the list of fmt's fields (common ones left out). */
static void push_fields(lua_State *L, const struct lp_tp_format *fmt)
{
	lua_createtable(L, (int)fmt->nr_fields, 0);
	int n = 0;
	for (size_t i = 0; i < fmt->nr_fields; i++) {
		const struct lp_tp_field *f = &fmt->fields[i];
		if (f->common)
			continue;
		lua_createtable(L, 0, 3);
		lua_pushstring(L, f->name);
		lua_setfield(L, -2, "name");
		lua_pushstring(L, f->kind < 4 ? field_kinds[f->kind] : "bytes");
		lua_setfield(L, -2, "kind");
		lua_pushboolean(L, f->is_signed);
		lua_setfield(L, -2, "signed");
		lua_rawseti(L, -2, ++n);
	}
}

static void set_string(lua_State *L, const char *key, const char *val)
{
	lua_pushstring(L, val);
	lua_setfield(L, -2, key);
}

/* agg.cli(): what the command line gave, before the script's setup. */
static int l_cli(lua_State *L)
{
	const struct lp_cli *cli = lp_get_run(L)->cli;
	lua_createtable(L, 0, 3);
	if (!cli)
		return 1;
	lua_pushboolean(L, cli->sampling.use_period || cli->sampling.freq);
	lua_setfield(L, -2, "rate");
	if (cli->interval_ns) {
		lua_pushinteger(L, (lua_Integer)(cli->interval_ns / 1000000));
		lua_setfield(L, -2, "interval");
	}
	lua_pushboolean(L, cli->input != NULL);
	lua_setfield(L, -2, "replay");
	return 1;
}

static const char *kind_of(const struct lp_event_spec *e)
{
	static const char *const probes[] = { NULL, "uprobe", "uretprobe", "usdt", "kprobe",
					      "kretprobe", "watchpoint" };
	if (e->probe && e->probe < sizeof probes / sizeof probes[0])
		return probes[e->probe];
	switch (e->type) {
	case PERF_TYPE_TRACEPOINT: return "tracepoint";
	case PERF_TYPE_SOFTWARE: return "software";
	case PERF_TYPE_HARDWARE: return "hardware";
	case PERF_TYPE_HW_CACHE: return "cache";
	case PERF_TYPE_BREAKPOINT: return "watchpoint";
	case PERF_TYPE_RAW: return "raw";
	default: return "pmu";
	}
}

/* Pushes a tracepoint's fields, or nothing (0) when its format does not
 * read (tracefs not mounted, not readable). */
static int push_tp_fields(lua_State *L, const struct lp_event_spec *e)
{
	const char *colon = strchr(e->name, ':');
	char sys[256];
	struct lp_tp_format *fmt;
	if (!colon || (size_t)(colon - e->name) >= sizeof sys)
		return 0;
	snprintf(sys, sizeof sys, "%.*s", (int)(colon - e->name), e->name);
	if (lp_tracefs_format(sys, colon + 1, &fmt))
		return 0;
	push_fields(L, fmt);
	lp_tp_format_free(fmt);
	return 1;
}

static void push_spec(lua_State *L, const struct lp_event_spec *e, bool fields)
{
	static const char *const rates[] = { "run", "default", "own" };
	lua_createtable(L, 0, 5);
	set_string(L, "name", e->name);
	set_string(L, "kind", kind_of(e));
	set_string(L, "rate", e->rate < 3 ? rates[e->rate] : "run");
	if (e->probe == LP_PROBE_USDT && e->usdt && !e->usdt->args_bad) {
		lua_pushinteger(L, e->usdt->nr_args);
		lua_setfield(L, -2, "nargs");
	}
	if (fields && e->type == PERF_TYPE_TRACEPOINT && push_tp_fields(L, e))
		lua_setfield(L, -2, "fields");
}

/* agg.describe(EV [, fields]): EV parsed on a list of its own. */
static int l_describe(lua_State *L)
{
	const char *ev = luaL_checkstring(L, 1);
	bool fields = lua_toboolean(L, 2);
	struct lp_event_list l = { 0 };
	if (lp_event_list_add(&l, ev)) {
		lp_event_list_free(&l);
		lua_pushnil(L);
		lua_pushstring(L, lp_last_error());
		return 2;
	}
	lua_createtable(L, (int)l.n, 0);
	for (size_t i = 0; i < l.n; i++) {
		push_spec(L, &l.v[i], fields);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	lp_event_list_free(&l);
	return 1;
}

/* agg.recording(): the replay's events, from the source on_start sees. */
static int l_recording(lua_State *L)
{
	static const struct { const char *name; uint64_t bit; } carried[] = {
		{ "ip", PERF_SAMPLE_IP }, { "tid", PERF_SAMPLE_TID },
		{ "time", PERF_SAMPLE_TIME }, { "cpu", PERF_SAMPLE_CPU },
		{ "callchain", PERF_SAMPLE_CALLCHAIN }, { "raw", PERF_SAMPLE_RAW },
	};
	const struct lp_source *src = lp_get_run(L)->aggs.start_src;
	if (!src) {
		lua_pushnil(L);
		return 1;
	}
	lua_newtable(L);
	const char *name;
	for (int i = 0; (name = src->event_name(src->ctx, i)); i++) {
		lua_createtable(L, 0, 8);
		set_string(L, "name", name);
		uint64_t st = src->sample_type ? src->sample_type(src->ctx, i) : ~(uint64_t)0;
		for (size_t k = 0; k < sizeof carried / sizeof carried[0]; k++) {
			lua_pushboolean(L, (st & carried[k].bit) != 0);
			lua_setfield(L, -2, carried[k].name);
		}
		const struct lp_tp_format *fmt = src->event_format ? src->event_format(src->ctx, i) : NULL;
		if (fmt) {
			push_fields(L, fmt);
			lua_setfield(L, -2, "fields");
		}
		lua_rawseti(L, -2, i + 1);
	}
	return 1;
}

void lp_xevents_register(lua_State *L)
{
	static const luaL_Reg funcs[] = {
		{ "cli", l_cli }, { "describe", l_describe }, { "recording", l_recording },
		{ NULL, NULL },
	};
	luaL_setfuncs(L, funcs, 0);
}
