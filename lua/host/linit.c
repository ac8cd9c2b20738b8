/*
 * linit.c - the report writers' library: the one list of luaprof's public
 * modules, as Lua's linit.c lists its standard libraries.  luaprof.NAME is
 * package.loaded["luaprof.NAME"]: the C modules are opened here at start
 * (their shared helpers are in lpaux.c), the Lua ones
 * (lua/lib/luaprof/NAME.lua) loaded by require the first time a script
 * reads luaprof.NAME.
 *
 * Nothing else is a module of luaprof: require "luaprof.NAME" of a name
 * not listed here is an error listing the modules, and so is reading a
 * field luaprof does not have (luaprof.NAME).  The shipped scripts' own
 * helpers (lua/helpers/NAME.lua: profile, sched, perfpy, perfnames,
 * fleet, oneliner, bpftools) are on the
 * require path of the shipped scripts only (lscript.c); any other script
 * requiring one gets an error saying so.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <lauxlib.h>

#include "linit.h"
#include "lscript.h"
#include "luaprof/luaprof.h"

/* The public modules, sorted by name: C ones with their open function,
 * Lua ones (lua/lib/luaprof/NAME.lua) with none. */
static const luaL_Reg modules[] = {
	{ "calltree", NULL },
	{ "flamegraph", luaopen_luaprof_flamegraph },
	{ "fmt", NULL },
	{ "folded", luaopen_luaprof_folded },
	{ "hist", luaopen_luaprof_hist },
	{ "json", luaopen_luaprof_json },
	{ "map", NULL },
	{ "perfscript", luaopen_luaprof_perfscript },
	{ "pprof", luaopen_luaprof_pprof },
	{ "push", luaopen_luaprof_push },
	{ "report", luaopen_luaprof_report },
	{ "speedscope", NULL },
	{ "stacks", luaopen_luaprof_stacks },
	{ "stat", NULL },
	{ "term", luaopen_luaprof_term },
	{ "url", luaopen_luaprof_url },
	{ NULL, NULL },
};

/* luaprof's fields that may be absent (known, nil when so). */
static const char *const optional_fields[] = { "executable" };

static const luaL_Reg *find_module(const char *name)
{
	for (const luaL_Reg *m = modules; m->name; m++)
		if (!strcmp(m->name, name))
			return m;
	return NULL;
}

/* Whether name is a helper of the shipped scripts (a file of theirs). */
static bool is_helper(const char *name)
{
	const char *dir = lp_script_helperdir();
	char path[4096];
	struct stat st;
	if (!dir || strpbrk(name, "./") || !*name)
		return false;
	int n = snprintf(path, sizeof path, "%s/%s.lua", dir, name);
	return n > 0 && (size_t)n < sizeof path && !stat(path, &st) && S_ISREG(st.st_mode);
}

/* Pushes "luaprof.A, luaprof.B, ...": the public modules. */
static void push_module_list(lua_State *L)
{
	luaL_Buffer b;
	luaL_buffinit(L, &b);
	for (const luaL_Reg *m = modules; m->name; m++) {
		luaL_addstring(&b, m == modules ? "luaprof." : ", luaprof.");
		luaL_addstring(&b, m->name);
	}
	luaL_pushresult(&b);
}

/* Raises WHERE "WHAT: NAME is a helper of luaprof's own scripts, not a
 * public module; the modules are: ...", located at the Lua code level
 * levels up. */
static int helper_error(lua_State *L, int level, const char *what, const char *name)
{
	luaL_where(L, level);
	push_module_list(L);
	lua_pushfstring(L, "%s%s: '%s' is a helper of luaprof's own scripts, not a public "
			"module; the modules are: %s", lua_tostring(L, -2), what, name,
			lua_tostring(L, -1));
	return lua_error(L);
}

/* The first searcher of require: luaprof.NAME must be a public module,
 * and a helper's name that the script's path does not find (a script of
 * the user's) is said to be a helper.  Finds nothing itself. */
static int searcher(lua_State *L)
{
	const char *name = luaL_checkstring(L, 1);
	const char *what = lua_pushfstring(L, "require \"%s\"", LP_SHOW(name));
	if (!strncmp(name, "luaprof.", 8)) {
		const char *sub = name + 8;
		if (find_module(sub))
			return 0;
		if (is_helper(sub))
			return helper_error(L, 2, what, sub);
		luaL_where(L, 2);
		push_module_list(L);
		lua_pushfstring(L, "%s%s: no such module; luaprof's modules are: %s",
				lua_tostring(L, -2), what, lua_tostring(L, -1));
		return lua_error(L);
	}
	if (!is_helper(name))
		return 0;
	lua_getglobal(L, "package");
	lua_getfield(L, -1, "searchpath");
	lua_pushstring(L, name);
	lua_getfield(L, -3, "path");
	lua_call(L, 2, 1);
	if (lua_isnil(L, -1))
		return helper_error(L, 2, what, name);
	return 0;
}

/* Pushes luaprof's field names, sorted, joined with ", ": the table's own
 * keys (at idx), the optional ones and the modules not loaded yet. */
static void push_field_list(lua_State *L, int idx)
{
	const char *names[128];
	size_t n = 0;
	for (lua_pushnil(L); lua_next(L, idx); lua_pop(L, 1))
		if (lua_type(L, -2) == LUA_TSTRING && n < 96)
			names[n++] = lua_tostring(L, -2);       /* kept alive by the table */
	for (const luaL_Reg *m = modules; m->name; m++) {
		lua_pushstring(L, m->name);
		if (lua_rawget(L, idx) == LUA_TNIL)     /* not loaded yet: no __index */
			names[n++] = m->name;
		lua_pop(L, 1);
	}
	for (size_t i = 0; i < sizeof optional_fields / sizeof optional_fields[0]; i++) {
		lua_pushstring(L, optional_fields[i]);
		if (lua_rawget(L, idx) == LUA_TNIL)
			names[n++] = optional_fields[i];
		lua_pop(L, 1);
	}
	for (size_t i = 1; i < n; i++)          /* a few dozen names: insertion sort */
		for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			const char *t = names[j];
			names[j] = names[j - 1];
			names[j - 1] = t;
		}
	luaL_Buffer b;
	luaL_buffinit(L, &b);
	for (size_t i = 0; i < n; i++) {
		luaL_addstring(&b, i ? ", " : "");
		luaL_addstring(&b, names[i]);
	}
	luaL_pushresult(&b);
}

/* __index of the luaprof table: a Lua module of the list is required the
 * first time it is read; an optional field is nil; any other name is an
 * error naming luaprof's fields. */
static int lazy_index(lua_State *L)
{
	const char *key = lua_tostring(L, 2);
	const luaL_Reg *m = key && lua_type(L, 2) == LUA_TSTRING ? find_module(key) : NULL;
	if (m) {
		lua_getglobal(L, "require");
		lua_pushfstring(L, "luaprof.%s", key);
		lua_call(L, 1, 1);
		lua_pushvalue(L, -1);
		lua_setfield(L, 1, key);        /* the next read is a plain field */
		return 1;
	}
	for (size_t i = 0; key && i < sizeof optional_fields / sizeof optional_fields[0]; i++)
		if (!strcmp(key, optional_fields[i]))
			return lua_pushnil(L), 1;
	if (!key)
		key = luaL_tolstring(L, 2, NULL);
	const char *what = lua_pushfstring(L, "luaprof.%s", LP_SHOW(key));
	if (is_helper(key))
		return helper_error(L, 1, what, key);
	luaL_where(L, 1);
	push_field_list(L, 1);
	lua_pushfstring(L, "%s%s: no such field of luaprof; its fields are: %s",
			lua_tostring(L, -2), what, lua_tostring(L, -1));
	return lua_error(L);
}

/* Puts searcher first in package.searchers, before the preload one. */
static void add_searcher(lua_State *L)
{
	lua_getglobal(L, "package");
	lua_getfield(L, -1, "searchers");
	for (lua_Integer i = (lua_Integer)lua_rawlen(L, -1); i >= 1; i--) {
		lua_rawgeti(L, -1, i);
		lua_rawseti(L, -2, i + 1);
	}
	lua_pushcfunction(L, searcher);
	lua_rawseti(L, -2, 1);
	lua_pop(L, 2);
}

void lp_lib_open(lua_State *L)
{
	luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
	for (const luaL_Reg *m = modules; m->name; m++) {
		if (!m->func)
			continue;
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
	add_searcher(L);
}
