/*
 * lmap.h - internal to lua/: the counting map (luaprof.map) as other
 * bindings read it: the flame graph and folded writers take one directly.
 */
#ifndef LP_LMAP_H
#define LP_LMAP_H

#include <stdbool.h>
#include <stdint.h>

#include <lua.h>

#include "luaprof/hmap.h"

#define LP_MAP_MT "luaprof.Map"

/* The map at index idx, or NULL when the value there is not one. */
struct lp_hmap *lp_lmap_test(lua_State *L, int idx, bool *is_float);

/* Entry i's value as a double (maps hold integers or, once a fractional
 * amount was added, doubles). */
double lp_lmap_value(struct lp_hmap *h, bool is_float, size_t i);

/* The string key of entry i (a key that is a string), else NULL. */
const char *lp_lmap_string_key(const struct lp_hmap *h, size_t i, size_t *len);

/* Calls fn for every string key and its value, whether idx holds a
 * luaprof.map or a plain table of string -> number; other keys are
 * skipped.  Raises a Lua error when idx is neither, or when fn returns
 * non-zero (with fn's message in err). */
typedef int (*lp_lmap_fn)(void *ctx, const char *key, size_t len, double value);
void lp_lmap_each_string(lua_State *L, int idx, lp_lmap_fn fn, void *ctx, const char *what);

int luaopen_luaprof_map(lua_State *L);

#endif
