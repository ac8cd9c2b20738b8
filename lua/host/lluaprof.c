/*
 * lluaprof.c - the `luaprof` module: a global in every script, and also
 * what require "luaprof" returns.
 *
 *   luaprof.version      the version string
 *   luaprof.executable   the path of the running luaprof (to run it again:
 *                        flamegraph --diff replays a second recording so)
 *   luaprof.exit()       end the run after the current callback
 *   luaprof.setup{...}   the script's own defaults (lsetup.c)
 *   luaprof.syscall_name(nr [, "audit"]), luaprof.syscall_nr(name)   this
 *                        machine's system calls (ltrace.c; "audit": libaudit's
 *                        names, perf's Python scripts'); luaprof.errno_name(nr)
 *   luaprof.options{...} the script's description and options (lopts.c);
 *                        luaprof.usage_error(msg) to refuse what it was given
 *   luaprof.shown(value) a value as luaprof's messages quote it (lp_show)
 *   luaprof.demangle(name [, params])   a C++ or Rust name demangled
 *   luaprof.write_file(path, text)      a file written whole or not at all
 *   luaprof.functions(object [, glob])  its path and matching functions (lfunctions.c)
 *   luaprof.read_string(pid, addr [, max])  a string in a live process's
 *                        memory (lmem.c); nil replaying
 *   luaprof.frame(pid, addr [, kernel])  the frame (function, object) of
 *                        an address of a process the run follows (lstack.c)
 *   luaprof.is_target(id) whether the run follows process (or thread) id
 *                        (ltarget.c)
 *   luaprof.signal_name(nr), .open_flags(flags), .task_state(state),
 *   luaprof.const.NAME   the kernel's named constants (lconst.c)
 *   luaprof.map, .hist, .json, ...  the report writers' library (lib.c)
 */
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <lauxlib.h>

#include "linit.h"
#include "lpaux.h"
#include "luaprof/luaprof.h"
#include "lp.h"

static int l_exit(lua_State *L)
{
	lp_get_run(L)->exit_requested = 1;
	return 0;
}

/* luaprof.demangle(name [, params]): name demangled, with its parameters
 * (the default, as frames are named) or without (as perf prints it); the
 * name itself when it is not mangled. */
static int l_demangle(lua_State *L)
{
	const char *name = luaL_checkstring(L, 1);
	char *d = lp_demangle_name(name, lua_isnoneornil(L, 2) || lua_toboolean(L, 2));
	lua_pushstring(L, d ? d : name);
	free(d);
	return 1;
}

/* luaprof.write_file(path, text): the whole text or nothing (a temporary
 * file renamed over path); "-" is standard output, a device or FIFO is
 * written as it is. */
static int l_write_file(lua_State *L)
{
	size_t n;
	const char *path = luaL_checkstring(L, 1), *text = luaL_checklstring(L, 2, &n);
	lp_lib_write_file(L, path, text, n);
	return 0;
}

/* luaprof.shown(value): the string as every message of luaprof's quotes a
 * value from outside: whole when short, else its start and end around its
 * length, on one line (lp_show). */
static int l_shown(lua_State *L)
{
	size_t n;
	const char *s = luaL_tolstring(L, 1, &n);
	lua_pushstring(L, LP_SHOW_N(s, n));
	return 1;
}

static const luaL_Reg funcs[] = {
	{ "exit", l_exit },
	{ "setup", lp_setup },
	{ "syscall_name", lp_l_syscall_name },
	{ "syscall_nr", lp_l_syscall_nr },
	{ "errno_name", lp_l_errno_name },
	{ "options", lp_options },
	{ "usage_error", lp_usage_error },
	{ "shown", l_shown },
	{ "is_target", lp_l_is_target },
	{ "demangle", l_demangle },
	{ "write_file", l_write_file },
	{ "functions", lp_l_functions },
	{ "read_string", lp_l_read_string },
	{ "frame", lp_l_frame },
	{ NULL, NULL },
};

int luaopen_luaprof(lua_State *L)
{
	luaL_newlib(L, funcs);
	lua_pushliteral(L, LP_VERSION);
	lua_setfield(L, -2, "version");
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		lua_pushlstring(L, exe, (size_t)n);
		lua_setfield(L, -2, "executable");
	}
	lp_const_open(L);
	lp_lib_open(L);
	lua_pushvalue(L, -1);
	lua_setglobal(L, "luaprof");
	return 1;
}
