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

/* What a cache entry is keyed by: the current sample's stack, as the
 * caller found it (lstack.c: lp_stack_fold_key); the cache fetches
 * nothing itself. */
#define LP_FOLD_MAX_WORDS 80
struct lp_fold_stack {
	const struct lp_thread *thread; /* the sample's thread */
	const uint64_t *ips;            /* its addresses (lp_stack_addrs) */
	uint64_t nr;
	bool unwound;                   /* ips is a DWARF-unwound user stack */
	bool kernel_mode;               /* the sample's cpumode is the kernel's */
	bool chain;                     /* the sample has a call chain */
	/* s.folded keys its first frame by the words naming it (nr_lead of
	 * them in lead) and leaves the address at index leaf 0; other kinds:
	 * nr_lead 0, leaf UINT64_MAX */
	size_t nr_lead;
	uint64_t leaf;
	uint64_t lead[LP_FOLD_MAX_WORDS];
};

/* Pushes the current sample's string of that kind and returns true when
 * the cache holds the stack st; else pushes nothing, returns false, and
 * remembers st's key for lp_fold_put.  st NULL: the sample cannot be
 * cached.  Allocates the cache on first use (an allocation failure only
 * disables it). */
bool lp_fold_get(lua_State *L, struct lp_run *run, enum lp_fold_kind kind,
		 const struct lp_fold_stack *st);

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
 * it is named (how: lstack.c's flags) and the sample's process proc and
 * its maps (nothing is cached without a process):
 * lp_fold_words_get copies them to w (room for max) and returns how many,
 * or 0 when not cached; lp_fold_words_put caches n of them. */
size_t lp_fold_words_get(struct lp_run *run, const struct lp_proc *proc, uint64_t ip,
			 unsigned how, uint64_t *w, size_t max);
void lp_fold_words_put(struct lp_run *run, const struct lp_proc *proc, uint64_t ip,
		       unsigned how, const uint64_t *w, size_t n);

/* Frees the caches; the strings go with the Lua state. */
void lp_fold_free(struct lp_run *run);

/* ---- the names of folded strings as numbers (lfoldids.c) ---- */

/* What names a frame of a folded string: frames of one key are named
 * alike (proc NULL: a sample without a process, not cached by it). */
struct lp_fold_frame {
	const struct lp_proc *proc;
	uint32_t gen;           /* proc's maps, as they were */
	unsigned how;           /* LP_FOLD_HOW_*: how the frame is resolved */
	uint64_t ip;
	uint32_t kgen;          /* a kernel frame's: the kernel's maps, as
				 * they were (lp_procs_kernel's gen) */
};
enum { LP_FOLD_HOW_FIRST = 1, LP_FOLD_HOW_CALLER = 2, LP_FOLD_HOW_RET = 4,
       LP_FOLD_HOW_KERNEL = 8, LP_FOLD_HOW_UNWOUND = 16 };

/* A name of a frame in a folded string: name (its ';' and newlines not
 * yet replaced), or, when mangled is set, mangled's demangled without
 * parameters (name when it does not demangle); then the annotation
 * suffix ("_[k]", "_[j]", "_[i]" or "").  key: a pointer that stands for
 * the text (the same key and suffix, the same text), or NULL. */
struct lp_fold_name {
	const char *name, *mangled, *suffix;
	const void *key;
};

/* The ids (at most 6; ids has room for them) of frame k's names when
 * cached, and how many; 0 when not.  lp_foldids_put caches n of them
 * (nothing when more), and the addresses [same_lo, same_hi) around k's
 * (in its process's maps) as named alike when there is one name (the
 * frame's lp_frame.same_lo and same_hi; empty: none). */
size_t lp_foldids_get(struct lp_run *run, const struct lp_fold_frame *k, uint32_t *ids);
void lp_foldids_put(struct lp_run *run, const struct lp_fold_frame *k, const uint32_t *ids,
		    size_t n, uint64_t same_lo, uint64_t same_hi);

/* The id of a name, of a command name (as s.folded's root) and of a text
 * as it is; -1 when out of memory. */
int64_t lp_foldids_name(struct lp_run *run, const struct lp_fold_name *n);
int64_t lp_foldids_comm(struct lp_run *run, const char *comm);
int64_t lp_foldids_text_id(struct lp_run *run, const char *text, size_t len);

/* The text of id and its length (borrowed for the run); NULL when none. */
const char *lp_foldids_text(struct lp_run *run, uint32_t id, size_t *len);

void lp_foldids_free(struct lp_run *run);

#endif
