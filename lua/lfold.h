/*
 * lfold.h - internal to lua/: the caches of strings made from a stack:
 * folded stacks, perf script's text (lfold.c).
 */
#ifndef LP_LFOLD_H
#define LP_LFOLD_H

#include <stdbool.h>

#include <lua.h>

#include "lp.h"

/* What a cache holds: one string per stack made from the stack alone. */
enum lp_fold_kind {
	LP_FOLD_FOLDED,         /* s.folded */
	LP_FOLD_PERF_TEXT,      /* perf script's lines of the call chain (lperfscript.c) */
};

/* Pushes the current sample's string of that kind and returns true when
 * the cache holds it; else pushes nothing, returns false, and remembers
 * the sample's key for lp_fold_put.  kernel_mode: the sample's cpumode is
 * the kernel's.  Allocates the cache on first use (an allocation failure
 * only disables it). */
bool lp_fold_get(lua_State *L, struct lp_run *run, enum lp_fold_kind kind, bool kernel_mode);

/* Caches the string on top of the stack (left there) under the key of the
 * last lp_fold_get of that kind that missed; does nothing when that sample
 * could not be cached. */
void lp_fold_put(lua_State *L, struct lp_run *run, enum lp_fold_kind kind);

/* Frees the caches; the strings go with the Lua state. */
void lp_fold_free(struct lp_run *run);

#endif
