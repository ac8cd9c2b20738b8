/*
 * lib.c - registers the C modules of the report writers' library under
 * the luaprof table and in package.loaded.
 */
#include <lauxlib.h>

#include "lib.h"
#include "lmap.h"

static const luaL_Reg modules[] = {
	{ "map", luaopen_luaprof_map },
	{ NULL, NULL },
};

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
}
