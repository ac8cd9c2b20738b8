/*
 * lsetup.c - luaprof.setup{...}: what a script declares it needs, so that
 * `luaprof run script.lua -- cmd` needs no flags.
 *
 *   luaprof.setup{ events = {"cpu-clock"}, freq = 999, call_graph = true,
 *                  interval = 1000 }
 *   luaprof.setup{ events = {"sched:sched_switch"},
 *                  filter = { ["sched:sched_switch"] = "prev_pid == 1" } }
 *   luaprof.setup{ events = {"sched:sched_switch"}, all_cpus = true }
 *   luaprof.setup{ events = {"task-clock", "page-faults"}, counting = true }
 *
 * Called at the script's top level (it runs before anything is opened).
 * Replaying (-i), the keys of what to sample are checked but not applied:
 * the recording has its events already.
 * Each key fills the command line's setting only when the command line did
 * not give it: -e replaces the script's events, -F or -c its freq/period,
 * --filter its filter on the events the command line filters.
 * Keys are checked at the call, so a mistake is reported at the script's
 * line: an unknown key lists the known ones.  Each key is one entry of
 * `keys` below; a subsystem adds its own.  A key is named as the command
 * line's long option with '-' as '_' (--all-cpus: all_cpus), except
 * period (-c/--count, perf's spelling: the value s.period gives) and
 * counting (luaprof stat's mode; no option): see docs/scripting.md's
 * Conventions.
 */
#include <fnmatch.h>
#include <string.h>

#include <lauxlib.h>

#include "settings.h"
#include "lclass.h"
#include "lp.h"
#include "luaprof/luaprof.h"

/* Applies the value at the top of the stack to cli (given by the command
 * line or not); raises a Lua error for a bad value. */
typedef void (*apply_fn)(lua_State *L, struct lp_cli *cli);

static void add_event_string(lua_State *L, struct lp_cli *cli, const char *s)
{
	char err[LP_ERRMSG_MAX];
	if (lp_cli_add_events(cli, s, err, sizeof err))
		lp_argerror(L, 1, "%s", err);
}

static void set_events(lua_State *L, struct lp_cli *cli)
{
	if (cli->user_events)
		return;                 /* -e replaces the script's events */
	if (lua_type(L, -1) == LUA_TSTRING) {
		add_event_string(L, cli, lua_tostring(L, -1));
	} else if (lua_istable(L, -1)) {
		lua_Integer n = luaL_len(L, -1);
		for (lua_Integer i = 1; i <= n; i++) {
			if (lua_geti(L, -1, i) != LUA_TSTRING)
				lp_argerror(L, 1, "events[%d] is not a string", (int)i);
			add_event_string(L, cli, lua_tostring(L, -1));
			lua_pop(L, 1);
		}
	} else {
		lp_argerror(L, 1, "events must be a list of event names or a "
			    "comma-separated string");
	}
	cli->user_events = false;       /* still the script's, not the user's */
}

static uint64_t positive(lua_State *L, const char *key)
{
	int ok;
	lua_Integer v = lua_tointegerx(L, -1, &ok);
	if (!ok || v <= 0)
		lp_argerror(L, 1, "%s must be a positive integer", key);
	return (uint64_t)v;
}

static void set_freq(lua_State *L, struct lp_cli *cli)
{
	uint64_t v = positive(L, "freq");
	if (!cli->sampling.freq && !cli->sampling.use_period)
		cli->sampling.freq = v;
}

static void set_period(lua_State *L, struct lp_cli *cli)
{
	uint64_t v = positive(L, "period");
	if (!cli->sampling.freq && !cli->sampling.use_period) {
		cli->sampling.period = v;
		cli->sampling.use_period = true;
	}
}

/* true, "fp", "dwarf" or "dwarf,SIZE"; -g or --call-graph overrides it. */
static void set_call_graph(lua_State *L, struct lp_cli *cli)
{
	char err[LP_ERRMSG_MAX];
	struct lp_sampling s = cli->sampling;
	if (lua_type(L, -1) == LUA_TBOOLEAN)
		s.callchain |= lua_toboolean(L, -1);
	else if (lua_type(L, -1) != LUA_TSTRING)
		lp_argerror(L, 1, "call_graph must be true, false, \"fp\", \"dwarf\" "
			    "or \"dwarf,SIZE\"");
	else if (lp_cli_call_graph(&s, lua_tostring(L, -1), err, sizeof err))
		lp_argerror(L, 1, "call_graph: %s", err);
	if (!cli->call_graph_given)
		cli->sampling = s;
}

/* Events on every CPU for every process, as -a, while the run still
 * follows (and ends with) the command or the -p targets: a script of
 * scheduling (off-CPU, wake-ups) needs the switches of other tasks. */
static void set_all_cpus(lua_State *L, struct lp_cli *cli)
{
	if (lua_type(L, -1) != LUA_TBOOLEAN)
		lp_argerror(L, 1, "all_cpus must be true or false");
	cli->script_system_wide = lua_toboolean(L, -1);
}

/* counting = true: count the events, as perf stat, and sample nothing
 * (info.values in on_interval and on_end). */
static void set_counting(lua_State *L, struct lp_cli *cli)
{
	if (lua_type(L, -1) != LUA_TBOOLEAN)
		lp_argerror(L, 1, "counting must be true or false");
	cli->sampling.count_only |= lua_toboolean(L, -1);
}

/* switch_events = true: PERF_RECORD_SWITCH records too (--switch-events);
 * defining on_switch does as much. */
static void set_switch_events(lua_State *L, struct lp_cli *cli)
{
	if (lua_type(L, -1) != LUA_TBOOLEAN)
		lp_argerror(L, 1, "switch_events must be true or false");
	cli->sampling.switch_events |= lua_toboolean(L, -1);
}

/* all_cgroups = true: each sample's cgroup (--all-cgroups): s.cgroup
 * from the sample rather than from /proc, and the paths of the cgroups
 * made during the run from the kernel. */
static void set_all_cgroups(lua_State *L, struct lp_cli *cli)
{
	if (lua_type(L, -1) != LUA_TBOOLEAN)
		lp_argerror(L, 1, "all_cgroups must be true or false");
	cli->sampling.all_cgroups |= lua_toboolean(L, -1);
}

/* Milliseconds, as -I takes them: 1 to a day. */
static void set_interval(lua_State *L, struct lp_cli *cli)
{
	int ok;
	lua_Integer v = lua_tointegerx(L, -1, &ok);
	if (!ok || v <= 0 || v > 86400000)
		lp_argerror(L, 1, "interval must be a number of milliseconds from 1 to "
			    "86400000 (a day), as -I takes");
	if (!cli->interval_ns)
		cli->interval_ns = v * 1000000;        /* milliseconds */
}

/* Applies expr to the tracepoints whose name matches the glob pattern (NULL:
 * every tracepoint) and that have no filter from the command line; raises
 * an error when it names none of the script's own events. */
static void filter_events(lua_State *L, struct lp_cli *cli, const char *pattern, const char *expr)
{
	size_t matched = 0;
	for (size_t i = 0; i < cli->events.n; i++) {
		struct lp_event_spec *e = &cli->events.v[i];
		if (e->type != PERF_TYPE_TRACEPOINT || (pattern && fnmatch(pattern, e->name, 0)))
			continue;
		matched++;
		if (!e->filter && lp_cli_add_filter(e, expr))
			lp_nomem(L);
	}
	if (!matched && !cli->user_events)
		lp_argerror(L, 1, "filter%s%s%s names none of the tracepoints in events",
			    pattern ? " for '" : "", pattern ? LP_SHOW(pattern) : "",
			    pattern ? "'" : "");
}

/* filter = "EXPR" (every tracepoint) or { [EVENT or glob] = "EXPR", ... }.
 * Command-line events (-e) take the filters that name them, if --filter
 * gave them none. */
static void set_filter(lua_State *L, struct lp_cli *cli)
{
	if (lua_type(L, -1) == LUA_TSTRING) {
		filter_events(L, cli, NULL, lua_tostring(L, -1));
		return;
	}
	if (!lua_istable(L, -1))
		lp_argerror(L, 1, "filter must be a string or a table of event names "
			    "to filter expressions");
	for (lua_pushnil(L); lua_next(L, -2); lua_pop(L, 1)) {
		if (lua_type(L, -2) != LUA_TSTRING || lua_type(L, -1) != LUA_TSTRING)
			lp_argerror(L, 1, "filter must map event names to expressions "
				    "such as [\"sched:sched_switch\"] = \"prev_pid == 1\"");
		filter_events(L, cli, lua_tostring(L, -2), lua_tostring(L, -1));
	}
}

/* In the order applied: filter after events.  Replaying (-i), the keys of
 * what to sample are checked but not applied: the recording has its events
 * (and tracefs, which a tracepoint name needs, may not be there). */
static const struct {
	const char *name;
	apply_fn apply;
	bool live_only;
} keys[] = {
	{ "events", set_events, true },
	{ "freq", set_freq, true },
	{ "period", set_period, true },
	{ "call_graph", set_call_graph, true },
	{ "filter", set_filter, true },
	{ "all_cpus", set_all_cpus, true },
	{ "counting", set_counting, true },
	{ "switch_events", set_switch_events, true },
	{ "all_cgroups", set_all_cgroups, true },
	{ "strings", lp_strings_setup, true },           /* lstrings.c; after events */
	{ "interval", set_interval, false },
};

#define NR_KEYS (sizeof keys / sizeof keys[0])

static int key_index(const char *name)
{
	for (size_t i = 0; i < NR_KEYS; i++)
		if (!strcmp(keys[i].name, name))
			return (int)i;
	return -1;
}

static void unknown_key(lua_State *L, const char *name)
{
	luaL_Buffer b;
	luaL_buffinit(L, &b);
	for (size_t i = 0; i < NR_KEYS; i++) {
		luaL_addstring(&b, i ? ", " : "");
		luaL_addstring(&b, keys[i].name);
	}
	luaL_pushresult(&b);
	lp_argerror(L, 1, "unknown key '%s' (known: %s)", LP_SHOW(name),
		    lua_tostring(L, -1));
}

int lp_setup(lua_State *L)
{
	struct lp_run *run = lp_get_run(L);
	luaL_checktype(L, 1, LUA_TTABLE);
	if (!run->cli || run->vm.started)
		return luaL_error(L, "luaprof.setup must be called at the script's top level");
	if (run->opt.setup_called)
		return luaL_error(L, "luaprof.setup is called once, with every setting in one table");
	run->opt.setup_called = true;
	/* Unknown keys first, so nothing is half-applied. */
	lua_pushnil(L);
	while (lua_next(L, 1)) {
		lua_pop(L, 1);
		if (lua_type(L, -1) != LUA_TSTRING || key_index(lua_tostring(L, -1)) < 0)
			unknown_key(L, luaL_tolstring(L, -1, NULL));
	}
	for (size_t i = 0; i < NR_KEYS; i++) {
		if (run->cli->input && keys[i].live_only)
			continue;
		if (lua_getfield(L, 1, keys[i].name) != LUA_TNIL)
			keys[i].apply(L, run->cli);
		lua_pop(L, 1);
	}
	return 0;
}
