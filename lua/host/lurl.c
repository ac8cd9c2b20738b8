/*
 * lurl.c - luaprof.url: URLs taken apart and put together by libcurl's URL
 * API (core/push/url.c), the parser the requests of luaprof.push go
 * through, and shown without their credentials.
 *
 *   luaprof.url.parse(s)    -> { scheme =, user =, password =, host =,
 *                              zoneid =, port =, path =, query =,
 *                              fragment = } (absent parts nil; port a
 *                              string; path "/" at least), or nil and
 *                              libcurl's reason
 *   luaprof.url.build(t)    -> the URL of the parts in t (a table as parse
 *                              gives), libcurl checking each; an error
 *                              when one is refused
 *   luaprof.url.shown(s)    -> s without user, password, query and
 *                              fragment, for a line to print (a URL
 *                              libcurl refuses is cut textually: its
 *                              scheme, what follows its last '@', up to
 *                              '?' or '#')
 *
 * libcurl is opened at the first call (as by luaprof.push); parse and
 * build raise an error when it cannot be.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "lclass.h"
#include "linit.h"
#include "luaprof/err.h"
#include "luaprof/url.h"

static int no_curl(lua_State *L)
{
	return luaL_error(L, "url: libcurl (libcurl.so.4) cannot be opened: install Debian's "
			     "libcurl4 (make deps)");
}

static int l_parse(lua_State *L)
{
	const char *s = luaL_checkstring(L, 1);
	struct lp_url u;
	int rc = lp_url_parse(s, &u);
	if (rc == -ELIBACC)
		return no_curl(L);
	if (rc == -ENOMEM)
		return lp_nomem(L);
	if (rc) {
		lua_pushnil(L);
		lua_pushstring(L, lp_last_error());
		return 2;
	}
	lua_createtable(L, 0, LP_URL_NPARTS);
	for (int i = 0; i < LP_URL_NPARTS; i++) {
		if (!u.part[i])
			continue;
		lua_pushstring(L, u.part[i]);
		lua_setfield(L, -2, lp_url_part_names[i]);
	}
	lp_url_free(&u);
	return 1;
}

/* build's parts: the strings (or numbers) of t's fields, borrowed from
 * the table (kept on the stack above it). */
static void get_parts(lua_State *L, struct lp_url *u)
{
	for (int i = 0; i < LP_URL_NPARTS; i++) {
		int t = lua_getfield(L, 1, lp_url_part_names[i]);
		if (t != LUA_TNIL && t != LUA_TSTRING && t != LUA_TNUMBER)
			lp_checkfield_string(L, -1, 1, lp_url_part_names[i]);
		u->part[i] = t == LUA_TNIL ? NULL : (char *)(uintptr_t)lua_tostring(L, -1);
	}
}

static int l_build(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	lua_settop(L, 1);
	struct lp_url u;
	get_parts(L, &u);
	char *s = lp_url_build(&u);
	if (!s && errno == ELIBACC)
		return no_curl(L);
	if (!s)
		return errno == ENOMEM ? lp_nomem(L) :
		       lp_argerror(L, 1, "%s", lp_last_error());
	lua_pushstring(L, s);
	free(s);
	return 1;
}

static int l_shown(lua_State *L)
{
	const char *s = luaL_checkstring(L, 1);
	char buf[1024];
	size_t n = lp_url_shown(s, buf, sizeof buf);
	if (n < sizeof buf) {
		lua_pushstring(L, buf);
		return 1;
	}
	char *big = malloc(n + 1);
	if (!big)
		return lp_nomem(L);
	lp_url_shown(s, big, n + 1);
	lua_pushlstring(L, big, n);
	free(big);
	return 1;
}

static const luaL_Reg funcs[] = {
	{ "parse", l_parse }, { "build", l_build }, { "shown", l_shown }, { NULL, NULL },
};

int luaopen_luaprof_url(lua_State *L)
{
	luaL_newlib(L, funcs);
	return 1;
}
