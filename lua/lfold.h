/*
 * lfold.h - internal to lua/: the cache of folded stack strings (lfold.c).
 */
#ifndef LP_LFOLD_H
#define LP_LFOLD_H

#include <stdbool.h>

#include <lua.h>

#include "lp.h"

/* Pushes the current sample's folded string and returns true when the
 * cache holds it; else pushes nothing, returns false, and remembers the
 * sample's key for lp_fold_put.  kernel_mode: the sample's cpumode is the
 * kernel's.  Allocates the cache on first use (an allocation failure only
 * disables it). */
bool lp_fold_get(lua_State *L, struct lp_run *run, bool kernel_mode);

/* Caches the string on top of the stack (left there) under the key of the
 * last lp_fold_get that missed; does nothing when that sample could not be
 * cached. */
void lp_fold_put(lua_State *L, struct lp_run *run);

/* Frees the cache; the strings go with the Lua state. */
void lp_fold_free(struct lp_run *run);

#endif
