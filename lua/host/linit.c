/*
 * linit.c - the report writers' library as fields of the luaprof table:
 * luaprof.NAME is package.loaded["luaprof.NAME"], the C modules registered
 * here at start (as Lua's linit.c registers its standard libraries; their
 * shared helpers are in lpaux.c), the Lua ones (lua/lib/luaprof/NAME.lua) loaded by require
 * the first time a script reads luaprof.NAME.
 */
#include <lauxlib.h>

#include "linit.h"

static const luaL_Reg modules[] = {
	{ "hist", luaopen_luaprof_hist },
	{ "lhist", luaopen_luaprof_lhist },
	{ "json", luaopen_luaprof_json },
	{ "flamegraph", luaopen_luaprof_flamegraph },
	{ "pprof", luaopen_luaprof_pprof },
	{ "folded", luaopen_luaprof_folded },
	{ "perfscript", luaopen_luaprof_perfscript },
	{ NULL, NULL },
};

/* __index of the luaprof table: require "luaprof.KEY" when the library
 * directory has such a module, else nil. */
static int lazy_index(lua_State *L)
{
	const char *key = lua_tostring(L, 2);
	if (!key || lua_getglobal(L, "package") != LUA_TTABLE)
		return 0;
	lua_getfield(L, -1, "searchpath");
	lua_pushfstring(L, "luaprof.%s", key);
	lua_getfield(L, -3, "path");
	lua_call(L, 2, 1);
	if (lua_isnil(L, -1))
		return 0;
	lua_getglobal(L, "require");
	lua_pushfstring(L, "luaprof.%s", key);
	lua_call(L, 1, 1);
	lua_pushvalue(L, -1);
	lua_setfield(L, 1, key);        /* the next read is a plain field */
	return 1;
}

void lp_lib_open(lua_State *L)
{
	luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
	for (const luaL_Reg *m = modules; m->name; m++) {
		m->func(L);
		lua_pushvalue(L, -1);
		lua_setfield(L, -4, m->name);   /* luaprof.NAME */
		lua_pushfstring(L, "luaprof.%s", m->name);
		lua_insert(L, -2);
		lua_settable(L, -3);            /* package.loaded["luaprof.NAME"] */
	}
	lua_pop(L, 1);
	lua_createtable(L, 0, 1);
	lua_pushcfunction(L, lazy_index);
	lua_setfield(L, -2, "__index");
	lua_setmetatable(L, -2);
}
