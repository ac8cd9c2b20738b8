/*
 * lmem.c - luaprof.read_string(s or pid, addr [, max]): bpftrace's str().
 *
 * With the sample s (or, while a sample of process pid is being handled,
 * that pid) it is s:str(addr, max): the string at addr as the sample's
 * event saw it, from what the run kept at the event (lcapture.c: the
 * kernel's copy, the stack copy, the drain thread's prompt read, a file's
 * literal) or else the live process now; one that cannot be read is nil
 * and counted, said at the end of the run.  With any other pid, or
 * outside a sample, it reads the live process pid when the call is made.
 * A replay has no process to read: only what the recording kept (stack
 * copies, files).
 */
#include <stdint.h>

#include <lauxlib.h>

#include "lp.h"
#include "luaprof/capture.h"
#include "luaprof/proc.h"

#define LIMIT (1u << 20)

int lp_l_read_string(lua_State *L)
{
	struct lp_run *run = lp_get_run(L);
	bool sample = lua_type(L, 1) == LUA_TLIGHTUSERDATA;
	if (sample)
		lp_view_check(L, 1);
	lua_Integer pid = sample ? 0 : luaL_checkinteger(L, 1), addr = luaL_checkinteger(L, 2);
	lua_Integer max = luaL_optinteger(L, 3, LP_CAPTURE_STR_MAX);
	luaL_argcheck(L, max >= 1 && max <= LIMIT, 3, "max must be from 1 to 1048576 bytes");
	if (sample || (run->view.rec && pid == (int32_t)run->view.rec->u.sample.pid)) {
		int n = lp_strings_push(L, run, (uint64_t)addr, (size_t)max);
		lua_pop(L, n - 1);      /* the string or nil: s:str adds the reason */
		return 1;
	}
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
