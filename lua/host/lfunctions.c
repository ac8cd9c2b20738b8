/*
 * lfunctions.c - luaprof.functions(OBJECT [, GLOB]): the functions of a
 * program or library whose names match a glob, for scripts that place a
 * uprobe on each (funccount).
 *
 *   local path, names = luaprof.functions("libc", "str*")
 *   -- "/usr/lib/x86_64-linux-gnu/libc.so.6", { "strcasecmp_l", ... }
 *
 * OBJECT is found as uprobe:OBJECT:FUNC finds it (a path, a program on
 * $PATH, a library name); the names come from its .symtab and .dynsym,
 * each once, without @VERSION, IFUNCs left out (uprobes refuse them), in
 * table order.  An object that cannot be found or read raises an error
 * naming it.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include <lauxlib.h>

#include "lp.h"
#include "luaprof/luaprof.h"
#include "luaprof/probe.h"

struct collect {
	lua_State *L;
	lua_Integer n;
};

static int add_name(const char *name, void *arg)
{
	struct collect *c = arg;
	lua_pushstring(c->L, name);
	lua_rawseti(c->L, -2, ++c->n);
	return 0;
}

int lp_l_functions(lua_State *L)
{
	const char *object = luaL_checkstring(L, 1), *glob = luaL_optstring(L, 2, "*");
	char path[PATH_MAX];
	int rc = lp_probe_find_object(object, path, sizeof path);
	if (rc)
		return luaL_error(L, "no object '%s' (%s): give a path, a program "
				  "on $PATH or a library name", LP_SHOW(object), strerror(-rc));
	lua_pushstring(L, path);
	lua_newtable(L);
	struct collect c = { L, 0 };
	if ((rc = lp_elf_functions(path, glob, add_name, &c)))
		return luaL_error(L, "cannot read the functions of %s: %s", LP_SHOW(path),
				  rc == -ENOEXEC ? "not an ELF file" : strerror(-rc));
	return 2;
}
