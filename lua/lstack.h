/*
 * lstack.h - internal to lua/: symbolizing the current sample: its leaf
 * frame, its call stack as a Lua array and as a folded string.
 */
#ifndef LP_LSTACK_H
#define LP_LSTACK_H

#include <lua.h>

#include "lp.h"

/* The resolved frame of the sample's ip, computed once per sample. */
const struct lp_frame *lp_stack_leaf(struct lp_run *run);

/* Resolves every frame of the current sample into run->frames, leaf
 * first; returns how many (at least 1). */
size_t lp_stack_frames(struct lp_run *run);

/* Pushes s.stack: an array of { ip=, sym=, dso=, symoff=, kernel= },
 * leaf first. */
void lp_stack_push(lua_State *L, struct lp_run *run);

/* Pushes s.folded: "comm;root;...;leaf", unknown frames "[unknown]",
 * kernel frames suffixed "_[k]". */
void lp_stack_push_folded(lua_State *L, struct lp_run *run);

#endif
