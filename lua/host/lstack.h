/*
 * lstack.h - internal to lua/: symbolizing the current sample: its leaf
 * frame, its call stack as a Lua array and as a folded string.
 */
#ifndef LP_LSTACK_H
#define LP_LSTACK_H

#include <stdbool.h>
#include <stdint.h>

#include <lua.h>

#include "lfold.h"
#include "lp.h"

/* The resolved frame of the sample's ip, computed once per sample. */
const struct lp_frame *lp_stack_leaf(struct lp_run *run);

/* Resolves every frame of the current sample into run->stack.frames, leaf
 * first (run->stack.frame_caller: which are unwound callers, named at
 * their return address - 1); returns how many (at least 1: a corrupt
 * chain, run->stack.corrupt, is its sampled frame alone). */
size_t lp_stack_frames(struct lp_run *run);

struct lp_srcframe;

/* After lp_stack_frames: the source frames of run->stack.frames[i], the
 * functions inlined at its address innermost first (whatever the stack),
 * then its own function's file and line; how many (0: no DWARF for it).
 * Borrowed until the next sample. */
int lp_stack_srcframes(struct lp_run *run, size_t i, const struct lp_srcframe **sf);

/* The same at the frame's own address: a caller of a frame-pointer
 * callchain (a return address) looked up there, not at the call before
 * it, as perf script does (its callchain's addresses as they are). */
int lp_stack_srcframes_at(struct lp_run *run, size_t i, const struct lp_srcframe **sf);

/* The run's cache of source lines (core/dwarf/srcline.c), made on first
 * use; NULL when out of memory. */
struct lp_srclines *lp_stack_lines(struct lp_run *run);

/* The source line perf gives frame f, whose ELF address is vaddr and whose
 * innermost function's file and line are file, line (file NULL: none),
 * as perf 6.1's __get_srcline with show_addr (report's srcline key,
 * script's srcline field) prints it: FILE:LINE (the file's base name);
 * "FILE:0" or "??:0" where addr2line finds the function by an ELF symbol
 * but no line (FILE an STT_FILE symbol's, lp_srclines_symfile); else
 * with_sym and a symbol: SYM+OFF (decimal;
 * the kernel, [vdso] and perf maps always), or OBJECT[ADDR] (the object's
 * base name, vaddr in hex); "??:0" for a frame in no object.  Interned
 * for the run (equal text, equal pointer); NULL when out of memory. */
const char *lp_stack_srcline(struct lp_run *run, const struct lp_frame *f, uint64_t vaddr,
			     const char *file, uint32_t line, bool with_sym);

/* perf report's name for frame f when it has no symbol: its offset in the
 * file mapped there (else its address) as 0x%016x ("0000000000000000" for
 * 0), interned for the run (equal names, equal pointers); NULL when out
 * of memory. */
const char *lp_stack_unnamed(struct lp_run *run, const struct lp_frame *f);

/* The source frames of the sampled frame (lp_stack_leaf), as
 * lp_stack_srcframes: sf[0] is where s.file and s.line come from. */
int lp_stack_leaf_srcframes(struct lp_run *run, const struct lp_srcframe **sf);

/* The addresses the sample's stack is made of, perf's context markers
 * included: its callchain, or the single ip; for a sample with a user
 * stack copy, the callchain's kernel part, PERF_CONTEXT_USER and the
 * unwound user frames (*unwound set; every user frame after the first is
 * a return address).  Computed once per sample; borrowed until the next. */
const uint64_t *lp_stack_addrs(struct lp_run *run, uint64_t *nr, bool *unwound);

/* Pushes s.stack: an array of { ip=, sym=, dso=, symoff=, kernel=, file=,
 * line= }, leaf first; on a stack unwound from a stack copy (--call-graph
 * dwarf), the functions inlined at a user frame's address come before it,
 * innermost first, as { ip=, sym=, dso=, kernel=, inlined=true, file=,
 * line= } (perf adds them to such stacks only). */
void lp_stack_push(lua_State *L, struct lp_run *run);

/* Pushes s.ustack, then s.kstack, from one walk of the stack: the user's
 * and the kernel's frames of the sample's stack as bpftrace prints a
 * stack, "\n" and then a line "    sym+off" per frame, leaf first
 * ("    0x..." of its address when unnamed), the functions inlined at a
 * frame of an unwound stack ("    func+0") before it, as s.stack has
 * them; "" when there is none.  Unlike s.stack it looks up no source line
 * for a callchain's frames.  Raises a Lua error when out of memory. */
void lp_stack_push_texts(lua_State *L, struct lp_run *run);

/* Pushes s.file (line false) or s.line (line true) of the sampled ip, as
 * a frame's file and line: those of the innermost function inlined there,
 * or nil without DWARF. */
void lp_stack_push_leaf_source(lua_State *L, struct lp_run *run, bool line);

/* Fills st with what keys the current sample's string of that kind in
 * the fold cache (lfold.h): its thread, addresses, cpumode and, for
 * s.folded, the words of its first frame (fold_leaf in lstack.c).
 * Returns false when the sample cannot be cached. */
bool lp_stack_fold_key(struct lp_run *run, enum lp_fold_kind kind, struct lp_fold_stack *st);

/* Pushes s.folded: "comm;root;...;leaf", each function named as perf
 * script names it (C++ and Rust without parameters), unknown frames
 * "[unknown]",
 * with FlameGraph's annotations (stackcollapse-perf.pl --all --inline):
 * kernel frames suffixed "_[k]", JIT frames (named by a perf map) "_[j]",
 * inlined functions "_[i]" (as s.stack has them: on unwound stacks
 * only). */
void lp_stack_push_folded(lua_State *L, struct lp_run *run);

/* The names the current sample's folded string is made of after the
 * command name (what s.folded is made of), as ids of lfold.h's run-wide
 * table of names (lp_foldids_text gives their text): each frame's, leaf
 * first, a frame's in the string's order (its own, then the functions
 * inlined there, outermost first).  out->nr_frames frames, frame i's
 * names from out->ids[out->starts[i]].  0, or -1 when out of memory. */
struct lp_fold_ids {
	uint32_t *ids, *starts;
	size_t nr, cap, nr_frames, cap_frames;
};
int lp_stack_fold_ids(struct lp_run *run, struct lp_fold_ids *out);

#endif
