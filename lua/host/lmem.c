/*
 * lmem.c - luaprof.read_string(pid, addr [, max]): the string at addr in
 * the memory of live process pid, read when the call is made (bpftrace's
 * str()).  A tracepoint's pointer (syscalls:sys_enter_openat's filename)
 * is read so while its sample is handled: the calling thread is then
 * still in the system call, so the string is the one it passed.
 *
 * A replay has the pointer only (the process is long gone, or is another
 * process now): there read_string returns nil, as it does when the memory
 * cannot be read (a bad pointer, an exited process).
 */
#include <stdint.h>

#include <lauxlib.h>

#include "lp.h"
#include "luaprof/proc.h"

#define DEFAULT_MAX 4096        /* PATH_MAX: a path is read whole */
#define LIMIT (1u << 20)

int lp_l_read_string(lua_State *L)
{
	lua_Integer pid = luaL_checkinteger(L, 1), addr = luaL_checkinteger(L, 2);
	lua_Integer max = luaL_optinteger(L, 3, DEFAULT_MAX);
	luaL_argcheck(L, max >= 1 && max <= LIMIT, 3, "max must be from 1 to 1048576 bytes");
	struct lp_run *run = lp_get_run(L);
	if (!run->live.on || pid <= 0 || pid > INT32_MAX) {
		lua_pushnil(L);
		return 1;
	}
	luaL_Buffer b;
	char *buf = luaL_buffinitsize(L, &b, (size_t)max + 1);
	size_t len;
	if (lp_proc_read_str((pid_t)pid, (uint64_t)addr, buf, (size_t)max + 1, &len)) {
		lua_pushnil(L);
		return 1;
	}
	luaL_pushresultsize(&b, len);
	return 1;
}
