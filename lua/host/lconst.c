/*
 * lconst.c - the kernel's named constants (core/trace/consts.c), for a
 * script that reads a tracepoint's fields:
 *
 *   luaprof.signal_name(nr)     "SIGKILL" for 9, or nil
 *   luaprof.open_flags(flags)   "O_RDONLY|O_CLOEXEC" for 0x80000
 *   luaprof.task_state(state)   "S", "D", "R+" (preempted), ... for
 *                               sched_switch's prev_state
 *   luaprof.const.NAME          the value of NAME: the error numbers
 *                               (ENOENT), signals (SIGKILL), open flags
 *                               (O_CREAT) and task states (TASK_RUNNING,
 *                               TASK_INTERRUPTIBLE, ..., TASK_REPORT_MAX, the
 *                               bit of a preempted task); an unknown NAME
 *                               is an error
 *
 * (luaprof.errno_name is ltrace.c's.)  The task states are this kernel's,
 * read from sched_switch's format the first time one is asked for.
 */
#include <string.h>

#include <lauxlib.h>

#include "lp.h"
#include "luaprof/trace.h"

/* The task states, loaded once per process (the kernel's do not change
 * while it runs). */
static const struct lp_task_states *states(void)
{
	static struct lp_task_states ts;
	static bool loaded;
	if (!loaded) {
		lp_task_states_load(&ts);
		loaded = true;
	}
	return &ts;
}

/* The kernel's names of the states' letters. */
static const struct { char letter; const char *name; } state_names[] = {
	{ 'S', "TASK_INTERRUPTIBLE" }, { 'D', "TASK_UNINTERRUPTIBLE" }, { 'T', "TASK_STOPPED" },
	{ 't', "TASK_TRACED" }, { 'X', "EXIT_DEAD" }, { 'Z', "EXIT_ZOMBIE" },
	{ 'P', "TASK_PARKED" }, { 'I', "TASK_IDLE" },
};

static int l_signal_name(lua_State *L)
{
	lua_Integer nr = luaL_checkinteger(L, 1);
	const char *name = nr > 0 && nr < 1024 ? lp_signal_name((int)nr) : NULL;
	name ? (void)lua_pushstring(L, name) : lua_pushnil(L);
	return 1;
}

static int l_open_flags(lua_State *L)
{
	char buf[512];
	lp_open_flags_str((unsigned long long)luaL_checkinteger(L, 1), buf, sizeof buf);
	lua_pushstring(L, buf);
	return 1;
}

static int l_task_state(lua_State *L)
{
	char buf[128];
	lp_task_state_str(states(), (unsigned long long)luaL_checkinteger(L, 1), buf, sizeof buf);
	lua_pushstring(L, buf);
	return 1;
}

/* Adds the task states to the table at idx, once. */
static void add_states(lua_State *L, int idx)
{
	const struct lp_task_states *ts = states();
	lua_pushinteger(L, 0);
	lua_setfield(L, idx, "TASK_RUNNING");
	lua_pushinteger(L, (lua_Integer)ts->preempted);
	lua_setfield(L, idx, "TASK_REPORT_MAX");
	for (size_t i = 0; i < sizeof state_names / sizeof state_names[0]; i++)
		for (size_t j = 0; j < ts->nr; j++)
			if (ts->flag[j].letter == state_names[i].letter) {
				lua_pushinteger(L, (lua_Integer)ts->flag[j].bit);
				lua_setfield(L, idx, state_names[i].name);
			}
}

/* The constants' table, upvalue 1 of the proxy's metamethods, with the
 * task states once one was asked for (their reading costs a file). */
static int real_table(lua_State *L, bool states_too)
{
	int t = lua_upvalueindex(1);
	if (states_too && lua_getfield(L, t, "TASK_RUNNING") == LUA_TNIL)
		add_states(L, t);
	if (states_too)
		lua_pop(L, 1);
	return t;
}

/* luaprof.const.NAME: a known name's value; any other is an error. */
static int const_index(lua_State *L)
{
	const char *key = luaL_checkstring(L, 2);
	int t = real_table(L, !strncmp(key, "TASK_", 5) || !strncmp(key, "EXIT_", 5));
	if (lua_getfield(L, t, key) != LUA_TNIL)
		return 1;
	return luaL_error(L, "luaprof.const.%s: no such constant (it holds the error numbers E*, "
			     "signals SIG*, open flags O_* and task states TASK_*, EXIT_*)", key);
}

static int const_newindex(lua_State *L)
{
	return luaL_error(L, "luaprof.const is read-only");
}

static int const_pairs(lua_State *L)
{
	int t = real_table(L, true);
	lua_getglobal(L, "next");
	lua_pushvalue(L, t);
	lua_pushnil(L);
	return 3;
}

void lp_const_open(lua_State *L)
{
	static const luaL_Reg funcs[] = {
		{ "signal_name", l_signal_name },
		{ "open_flags", l_open_flags },
		{ "task_state", l_task_state },
		{ NULL, NULL },
	};
	luaL_setfuncs(L, funcs, 0);
	lua_newtable(L);                        /* the proxy */
	lua_createtable(L, 0, 3);               /* its metatable */
	lua_createtable(L, 0, 160);             /* the constants */
	long long v;
	const char *name;
	for (size_t i = 0; (name = lp_const_at(i, &v)); i++) {
		lua_pushinteger(L, (lua_Integer)v);
		lua_setfield(L, -2, name);
	}
	static const luaL_Reg meta[] = {
		{ "__index", const_index }, { "__newindex", const_newindex }, { "__pairs", const_pairs },
		{ NULL, NULL },
	};
	luaL_setfuncs(L, meta, 1);              /* the constants as upvalue */
	lua_setmetatable(L, -2);
	lua_setfield(L, -2, "const");
}
