/*
 * lib.h - internal to lua/: the report writers' library, the C half of it
 * (the Lua half is in lua/lib/luaprof/, found by require).
 */
#ifndef LP_LIB_H
#define LP_LIB_H

#include <lua.h>

/* Adds the C modules (hist, lhist, json, flamegraph, pprof, folded, perfscript)
 * as fields of the luaprof table on top of the stack, and as
 * package.loaded["luaprof.NAME"], so require "luaprof.NAME" finds them. */
void lp_lib_open(lua_State *L);

int luaopen_luaprof_hist(lua_State *L);
int luaopen_luaprof_lhist(lua_State *L);
int luaopen_luaprof_json(lua_State *L);
int luaopen_luaprof_flamegraph(lua_State *L);
int luaopen_luaprof_pprof(lua_State *L);
int luaopen_luaprof_folded(lua_State *L);
int luaopen_luaprof_perfscript(lua_State *L);



/* Writes len bytes to path whole or not at all (a temporary file renamed
 * over it); "-" is standard output, and a path that exists but is no
 * regular file (/dev/null, a FIFO) is written as it is.  Raises a Lua
 * error naming the path. */
void lp_lib_write_file(lua_State *L, const char *path, const char *data, size_t len);

/* Calls fn for every string key -> count of the stacks at idx: a
 * luaprof.map (its string keys) or a plain table.  Raises a Lua error,
 * prefixed by what, for any other value, a count that is not a number, or
 * when fn returns non-zero. */
typedef int (*lp_stacks_fn)(void *ctx, const char *key, size_t len, double count);
void lp_stacks_each(lua_State *L, int idx, lp_stacks_fn fn, void *ctx, const char *what);
#endif
