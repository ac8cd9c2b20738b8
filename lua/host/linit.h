/*
 * linit.h - internal to lua/: the report writers' library, the C half of it
 * (the Lua half is in lua/lib/luaprof/, found by require) and the one list
 * of public modules (linit.c).
 */
#ifndef LP_LINIT_H
#define LP_LINIT_H

#include <lua.h>

/* Adds the C modules (hist, json, flamegraph, pprof, push, folded, perfscript,
 * report, stacks, term, url)
 * as fields of the luaprof table on top of the stack, and as
 * package.loaded["luaprof.NAME"], so require "luaprof.NAME" finds them;
 * the Lua modules (calltree, counts, fmt, map, speedscope) load when first
 * read.  Reading any other field of luaprof, or requiring luaprof.NAME of
 * another name or a shipped script's helper, is an error listing the
 * valid names.  Call after lp_script_set_path. */
void lp_lib_open(lua_State *L);

int luaopen_luaprof_hist(lua_State *L);
int luaopen_luaprof_json(lua_State *L);
int luaopen_luaprof_flamegraph(lua_State *L);
int luaopen_luaprof_pprof(lua_State *L);
int luaopen_luaprof_folded(lua_State *L);
int luaopen_luaprof_perfscript(lua_State *L);
int luaopen_luaprof_term(lua_State *L);
int luaopen_luaprof_push(lua_State *L);
int luaopen_luaprof_report(lua_State *L);
int luaopen_luaprof_stacks(lua_State *L);
int luaopen_luaprof_url(lua_State *L);

#endif
