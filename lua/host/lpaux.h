/*
 * lpaux.h - internal to lua/: helpers for the bindings and the C modules
 * (lpaux.c); lp_get_run is declared in lp.h.
 */
#ifndef LP_LPAUX_H
#define LP_LPAUX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <lua.h>

/* Writes len bytes to path whole or not at all (a temporary file renamed
 * over it); "-" is standard output, and a path that exists but is no
 * regular file (/dev/null, a FIFO) is written as it is.  Raises a Lua
 * error naming the path. */
void lp_lib_write_file(lua_State *L, const char *path, const char *data, size_t len);

/* Writes what put writes to the open file f (true when every write
 * succeeded; it must not raise a Lua error, which would leave the
 * temporary file behind), with lp_lib_write_file's guarantees: output too
 * large to build in memory first streams through the stdio buffer. */
typedef bool (*lp_lib_producer)(void *ctx, FILE *f);
void lp_lib_write_with(lua_State *L, const char *path, lp_lib_producer put, void *ctx);

/* Pushes a new sequence of the n strings v[0..n-1]. */
void lp_push_strings(lua_State *L, const char *const *v, size_t n);

/* Sorts the sequence at idx in place, as table.sort sorts it (strings in
 * byte order); raises what table.sort raises. */
void lp_sort_sequence(lua_State *L, int idx);

/* lstacks.c: calls fn for every string key -> count of the stacks at idx: a
 * luaprof.map (its string keys), a luaprof.stacks (its stacks, in the
 * order of their text) or a plain table.  Raises a Lua error, prefixed by
 * what, for any other value, a count that is not a number, or when fn
 * returns non-zero. */
typedef int (*lp_stacks_fn)(void *ctx, const char *key, size_t len, double count);
void lp_stacks_each(lua_State *L, int idx, lp_stacks_fn fn, void *ctx, const char *what);

#endif
