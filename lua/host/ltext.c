/*
 * ltext.c - Lua code is loaded from source text only, never from
 * precompiled bytecode (luac output, string.dump).
 *
 * Lua does not check bytecode: a crafted chunk reads and writes memory
 * outside the VM ("binary chunks can crash the interpreter", Lua's
 * manual, 6.4), and a precompiled file cannot be read before it is run.
 * Scripts run with luaprof's privileges (often root) and are not
 * sandboxed (os.execute and io.open work: docs/reliability.md), so this
 * is no sandbox either: it keeps what a script does readable and inside
 * the VM's own checks.  Every path that turns bytes into code takes text
 * only: the script itself (vm.c, luaL_loadfilex with mode "t"), the base
 * library's load, loadfile and dofile (whatever mode they are given), and
 * require's Lua searcher.  require's C searchers (package.cpath, reduced
 * to Lua's absolute system directories by lscript.c) and package.loadlib
 * stay: native code is native code, and is loaded only from a path.
 */
#include <lauxlib.h>

#include "lp.h"

#define TEXT "t"

/* Calls the base library's function (upvalue 1) with the arguments
 * given, its mode argument (at index mode) "t" whatever was given. */
static int call_text_only(lua_State *L, int mode)
{
	int n = lua_gettop(L);
	if (n < mode)
		lua_settop(L, n = mode);
	lua_pushliteral(L, TEXT);
	lua_replace(L, mode);
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	lua_call(L, n, LUA_MULTRET);
	return lua_gettop(L);
}

/* load(chunk [, chunkname [, mode [, env]]]) */
static int l_load(lua_State *L)
{
	return call_text_only(L, 3);
}

/* loadfile([filename [, mode [, env]]]) */
static int l_loadfile(lua_State *L)
{
	return call_text_only(L, 2);
}

static int dofile_done(lua_State *L, int status, lua_KContext ctx)
{
	(void)status, (void)ctx;
	return lua_gettop(L) - 1;
}

/* dofile([filename]): the base library's, loading text only. */
static int l_dofile(lua_State *L)
{
	const char *name = luaL_optstring(L, 1, NULL);
	lua_settop(L, 1);
	if (luaL_loadfilex(L, name, TEXT) != LUA_OK)
		return lua_error(L);
	lua_callk(L, 0, LUA_MULTRET, 0, dofile_done);
	return dofile_done(L, 0, 0);
}

/* require's searcher of Lua files (package.path), as Lua's own
 * (loadlib.c's searcher_Lua) but loading text only. */
static int searcher_text(lua_State *L)
{
	const char *name = luaL_checkstring(L, 1);
	lua_getglobal(L, "package");
	if (lua_getfield(L, -1, "path") != LUA_TSTRING)
		return luaL_error(L, "'package.path' must be a string");
	lua_getfield(L, -2, "searchpath");
	lua_pushvalue(L, 1);
	lua_pushvalue(L, -3);
	lua_call(L, 2, 2);              /* filename or nil, what was tried */
	if (lua_isnil(L, -2))
		return 1;               /* the list of files tried */
	const char *file = lua_tostring(L, -2);
	if (luaL_loadfilex(L, file, TEXT) != LUA_OK)
		return luaL_error(L, "error loading module '%s' from file '%s':\n\t%s", name, file,
				  lua_tostring(L, -1));
	lua_pushstring(L, file);        /* the loader's second argument */
	return 2;
}

/* Replaces the global name (a function of the base library) by f, with
 * the original as its upvalue. */
static void wrap(lua_State *L, const char *name, lua_CFunction f)
{
	lua_getglobal(L, name);
	lua_pushcclosure(L, f, 1);
	lua_setglobal(L, name);
}

void lp_text_only(lua_State *L)
{
	wrap(L, "load", l_load);
	wrap(L, "loadfile", l_loadfile);
	lua_pushcfunction(L, l_dofile);
	lua_setglobal(L, "dofile");
	lua_getglobal(L, "package");
	lua_getfield(L, -1, "searchers");
	lua_pushcfunction(L, searcher_text);
	lua_rawseti(L, -2, 2);          /* Lua's order: preload, Lua, C, C root */
	lua_pop(L, 2);
}
