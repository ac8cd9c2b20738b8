/*
 * lib.c - the report writers' library as fields of the luaprof table:
 * luaprof.NAME is package.loaded["luaprof.NAME"], the C modules registered
 * here at start, the Lua ones (lua/lib/luaprof/NAME.lua) loaded by require
 * the first time a script reads luaprof.NAME.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <lauxlib.h>

#include "lib.h"

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

/* Writes to what path already is when that is no regular file (/dev/null,
 * /dev/stdout, a FIFO): a temporary file renamed over it would replace a
 * device node with a file. */
static void write_special(lua_State *L, const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		luaL_error(L, "cannot open %s: %s", path, strerror(errno));
	bool ok = fwrite(data, 1, len, f) == len;
	int err = errno;
	if (fclose(f) || !ok)
		luaL_error(L, "cannot write %s: %s", path, strerror(ok ? errno : err));
}

void lp_lib_write_file(lua_State *L, const char *path, const char *data, size_t len)
{
	struct stat st;
	if (!strcmp(path, "-")) {
		if (fwrite(data, 1, len, stdout) != len || fflush(stdout))
			luaL_error(L, "cannot write to standard output: %s", strerror(errno));
		return;
	}
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		write_special(L, path, data, len);
		return;
	}
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
	FILE *f = fopen(tmp, "wb");
	if (!f)
		luaL_error(L, "cannot create %s: %s", path, strerror(errno));
	bool ok = fwrite(data, 1, len, f) == len;
	int err = errno;
	if (fclose(f) || !ok || rename(tmp, path)) {
		err = ok ? errno : err;
		unlink(tmp);
		luaL_error(L, "cannot write %s: %s", path, strerror(err));
	}
}

static void each_pair(lua_State *L, int idx, lp_stacks_fn fn, void *ctx, const char *what)
{
	lua_pushnil(L);
	while (lua_next(L, idx)) {
		if (lua_type(L, -2) == LUA_TSTRING) {
			size_t n;
			const char *k = lua_tolstring(L, -2, &n);
			if (lua_type(L, -1) != LUA_TNUMBER)
				luaL_error(L, "%s: the count of '%s' is a %s, not a number", what, k,
					   luaL_typename(L, -1));
			if (fn(ctx, k, n, lua_tonumber(L, -1)))
				luaL_error(L, "%s: cannot use the stack '%s' (out of memory, or a "
					      "negative count)", what, k);
		}
		lua_pop(L, 1);
	}
}

void lp_stacks_each(lua_State *L, int idx, lp_stacks_fn fn, void *ctx, const char *what)
{
	idx = lua_absindex(L, idx);
	if (!lua_istable(L, idx))
		luaL_error(L, "%s: expected a luaprof.map or a table of stack -> count, not %s", what,
			   luaL_typename(L, idx));
	int top = lua_gettop(L);
	/* a luaprof.map keeps its scalar keys in .counts */
	if (lua_getmetatable(L, idx) && lua_getfield(L, idx, "counts") == LUA_TTABLE)
		each_pair(L, lua_gettop(L), fn, ctx, what);
	else
		each_pair(L, idx, fn, ctx, what);
	lua_settop(L, top);
}
