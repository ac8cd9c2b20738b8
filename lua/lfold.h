/*
 * lfold.h - internal to lua/: the caches of strings made from a stack:
 * folded stacks, perf script's text (lfold.c).
 */
#ifndef LP_LFOLD_H
#define LP_LFOLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* The second level of the s.folded cache, for samples lp_fold_get missed: the folded string by
 * the names it is made of (words from lstack.c: the command name and each
 * frame's names, as pointers), so that stacks whose addresses differ but
 * whose names do not (a recursion entered from two call sites) share one
 * string, and a miss costs no string building.  lp_fold_named_get pushes
 * the cached string and returns true, or pushes nothing, returns false and
 * remembers the words for lp_fold_named_put, which caches the string on
 * top of the stack (left there) under them. */
#define LP_FOLD_NAME_WORDS 256
bool lp_fold_named_get(lua_State *L, struct lp_run *run, const uint64_t *words, size_t nr);
void lp_fold_named_put(lua_State *L, struct lp_run *run);

/* The names of one frame (at most 8 words), cached by its address, how
 * it is named (how: lstack.c's flags) and the sample's process and maps:
 * lp_fold_words_get copies them to w (room for max) and returns how many,
 * or 0 when not cached; lp_fold_words_put caches n of them. */
size_t lp_fold_words_get(struct lp_run *run, uint64_t ip, unsigned how, uint64_t *w,
			 size_t max);
void lp_fold_words_put(struct lp_run *run, uint64_t ip, unsigned how, const uint64_t *w,
		       size_t n);

/* Frees the caches; the strings go with the Lua state. */
void lp_fold_free(struct lp_run *run);

#endif
