/*
 * lfold.c - caches of strings made from a stack: folded stacks (s.folded),
 * perf script's lines of a call chain (luaprof.perfscript).  One cache per
 * kind, alike.
 *
 * A profile repeats a few stacks many times, and building s.folded (naming
 * every frame, joining the names, interning the string in Lua) costs far
 * more than recognising a stack seen before.  The folded string of a sample
 * depends only on its thread's command name, its process's maps (the
 * process and its map generation, which no two map states share), the
 * cpumode it was taken in, and its addresses; entries are keyed by exactly
 * those, compared in full on a hit, so a cached string is always the one
 * lp_stack_push_folded would build.  All but the first address, for
 * s.folded (perf script's text has every address): samples
 * land all over a hot function, so the first frame is keyed by what it
 * adds to the string instead (its name and the functions inlined there:
 * lstack.c's fold_leaf), which one resolution per sample gives; keyed by
 * address, the cache would miss often (many address stacks fold to one
 * string).
 *
 * A stack missed by address is looked for by its names (the second level,
 * lp_fold_named_get): recursions through two call sites make many address
 * stacks of one string, and the names of each frame are cached by address too, so a miss costs
 * a few lookups per frame, not a walk and a new string.
 *
 * Both levels are direct-mapped: FOLD_SLOTS and NAMED_SLOTS entries, a
 * newer stack replaces an older one in its slot.  The strings live in a
 * Lua table in the registry, index = slot + 1 (then FOLD_SLOTS + slot + 1
 * for the second level), so they stay alive while cached and are
 * collected when replaced.  Stacks whose key is longer than FOLD_MAX_WORDS
 * (LP_FOLD_NAME_WORDS) are not cached.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "lfold.h"

#define FOLD_SLOTS 1024
#define FOLD_MAX_WORDS LP_FOLD_MAX_WORDS
#define NAMED_SLOTS 1024
#define WORDS_BITS 12
#define WORDS_SLOTS (1u << WORDS_BITS)
#define FRAME_WORDS 8

struct fold_ent {
	uint64_t hash;
	const struct lp_proc *proc;
	uint32_t gen;
	uint16_t nr;            /* words; 0: slot empty */
	uint16_t flags;
	char comm[16];
	/* the first frame's words (lp_fold_stack.lead), then the addresses
	 * with the first frame's left 0 */
	uint64_t words[FOLD_MAX_WORDS];
};

struct named_ent {
	uint64_t hash;
	size_t nr;              /* 0: slot empty */
	uint64_t *words;        /* malloc'd */
};

struct words_ent {
	const struct lp_proc *proc;
	uint32_t gen;
	uint16_t how;
	uint16_t nr;            /* 0: slot empty */
	uint64_t ip;
	uint64_t words[FRAME_WORDS];
};

struct lp_fold_cache {
	int ref;                /* the strings' table in the registry */
	struct fold_ent ents[FOLD_SLOTS];
	struct named_ent named[NAMED_SLOTS];
	struct named_ent *named_pending;        /* and its key: */
	const uint64_t *named_words;
	size_t named_nr;
	uint64_t named_hash;
	struct words_ent words[WORDS_SLOTS];
	/* the key of the last lookup, for lp_fold_put */
	struct fold_ent *pending;
	struct fold_ent key;
};

enum { FOLD_KERNEL = 1, FOLD_CHAIN = 2, FOLD_UNWOUND = 4 };

/* Fills c->key from st (NULL: the sample cannot be cached); false when
 * it cannot be cached. */
static bool make_key(struct lp_fold_cache *c, const struct lp_fold_stack *st)
{
	const struct lp_thread *t = st ? st->thread : NULL;
	struct fold_ent *k = &c->key;
	size_t nw = st ? st->nr_lead : 0;

	if (!t || nw > FOLD_MAX_WORDS || st->nr > FOLD_MAX_WORDS - nw)
		return false;
	memcpy(k->words, st->lead, nw * sizeof *k->words);
	memcpy(k->words + nw, st->ips, st->nr * sizeof *st->ips);
	if (st->leaf < st->nr)
		k->words[nw + st->leaf] = 0;
	k->proc = t->proc;
	k->gen = t->proc ? t->proc->gen : 0;
	k->nr = (uint16_t)(nw + st->nr);
	k->flags = (uint16_t)((st->kernel_mode ? FOLD_KERNEL : 0) | (st->chain ? FOLD_CHAIN : 0) |
			      (st->unwound ? FOLD_UNWOUND : 0));
	memcpy(k->comm, t->comm, sizeof k->comm);
	uint64_t h = (uint64_t)(uintptr_t)k->proc ^ ((uint64_t)k->gen << 32) ^ k->flags;
	for (uint64_t i = 0; i < k->nr; i++)
		h = (h ^ k->words[i]) * 0x100000001b3ull;
	for (size_t i = 0; i < sizeof k->comm && k->comm[i]; i++)
		h = (h ^ (unsigned char)k->comm[i]) * 0x100000001b3ull;
	k->hash = h;
	return true;
}

/* Entry e holds the key of the last lookup. */
static bool same(const struct fold_ent *e, const struct lp_fold_cache *c)
{
	const struct fold_ent *k = &c->key;

	return e->hash == k->hash && e->nr == k->nr && e->proc == k->proc && e->gen == k->gen &&
	       e->flags == k->flags && !memcmp(e->comm, k->comm, sizeof e->comm) &&
	       !memcmp(e->words, k->words, e->nr * sizeof *e->words);
}

static struct lp_fold_cache *cache_new(lua_State *L, struct lp_run *run, enum lp_fold_kind kind)
{
	struct lp_fold_cache *c = calloc(1, sizeof *c);

	if (c) {
		lua_createtable(L, FOLD_SLOTS + NAMED_SLOTS, 0);
		c->ref = luaL_ref(L, LUA_REGISTRYINDEX);
	}
	return run->stack.fold[kind] = c;
}

/* Pushes the string at index i of the strings' table. */
static void push_string(lua_State *L, const struct lp_fold_cache *c, lua_Integer i)
{
	lua_rawgeti(L, LUA_REGISTRYINDEX, c->ref);
	lua_rawgeti(L, -1, i);
	lua_remove(L, -2);
}

/* Sets index i of the strings' table to the string on top of the stack,
 * which stays there. */
static void set_string(lua_State *L, const struct lp_fold_cache *c, lua_Integer i)
{
	lua_rawgeti(L, LUA_REGISTRYINDEX, c->ref);
	lua_pushvalue(L, -2);
	lua_rawseti(L, -2, i);
	lua_pop(L, 1);
}

/* Pushes the cached string of entry e. */
static void push_ent(lua_State *L, const struct lp_fold_cache *c, const struct fold_ent *e)
{
	push_string(L, c, (lua_Integer)(e - c->ents) + 1);
}

bool lp_fold_get(lua_State *L, struct lp_run *run, enum lp_fold_kind kind,
		 const struct lp_fold_stack *st)
{
	struct lp_fold_cache *c = run->stack.fold[kind];

	if (!c && !(c = cache_new(L, run, kind)))
		return false;
	c->pending = NULL;
	c->named_pending = NULL;
	if (!make_key(c, st))
		return false;
	struct fold_ent *e = &c->ents[c->key.hash % FOLD_SLOTS];
	if (e->nr && same(e, c)) {
		push_ent(L, c, e);
		return true;
	}
	c->pending = e;
	return false;
}

void lp_fold_put(lua_State *L, struct lp_run *run, enum lp_fold_kind kind)
{
	struct lp_fold_cache *c = run->stack.fold[kind];
	struct fold_ent *e = c ? c->pending : NULL;

	if (!e)
		return;
	memcpy(e, &c->key, offsetof(struct fold_ent, words) + c->key.nr * sizeof *e->words);
	set_string(L, c, (lua_Integer)(e - c->ents) + 1);
	c->pending = NULL;
}

/* ---- the second level: by names ---- */

bool lp_fold_named_get(lua_State *L, struct lp_run *run, const uint64_t *words, size_t nr)
{
	struct lp_fold_cache *c = run->stack.fold[LP_FOLD_FOLDED];
	uint64_t h = 0xcbf29ce484222325ull;

	if (!c)
		return false;
	for (size_t i = 0; i < nr; i++)
		h = (h ^ words[i]) * 0x100000001b3ull;
	struct named_ent *e = &c->named[h % NAMED_SLOTS];
	if (e->nr == nr && e->hash == h && !memcmp(e->words, words, nr * sizeof *words)) {
		push_string(L, c, FOLD_SLOTS + (lua_Integer)(e - c->named) + 1);
		return true;
	}
	c->named_pending = e;
	c->named_words = words;
	c->named_nr = nr;
	c->named_hash = h;
	return false;
}

void lp_fold_named_put(lua_State *L, struct lp_run *run)
{
	struct lp_fold_cache *c = run->stack.fold[LP_FOLD_FOLDED];
	struct named_ent *e = c ? c->named_pending : NULL;

	if (!e)
		return;
	c->named_pending = NULL;
	uint64_t *w = realloc(e->words, c->named_nr * sizeof *w);
	if (!w)
		return;
	memcpy(w, c->named_words, c->named_nr * sizeof *w);
	*e = (struct named_ent){ c->named_hash, c->named_nr, w };
	set_string(L, c, FOLD_SLOTS + (lua_Integer)(e - c->named) + 1);
}

/* ---- the names of one frame, by address ---- */

static struct words_ent *words_slot(struct lp_fold_cache *c, const struct lp_proc *proc,
				    uint64_t ip, unsigned how)
{
	uint64_t h = (ip ^ (uint64_t)(uintptr_t)proc ^ how) * 0x9e3779b97f4a7c15ull;
	return &c->words[h >> (64 - WORDS_BITS)];
}

size_t lp_fold_words_get(struct lp_run *run, const struct lp_proc *proc, uint64_t ip,
			 unsigned how, uint64_t *w, size_t max)
{
	struct lp_fold_cache *c = run->stack.fold[LP_FOLD_FOLDED];
	if (!c || !proc)
		return 0;
	const struct words_ent *e = words_slot(c, proc, ip, how);
	if (!e->nr || e->ip != ip || e->proc != proc || e->gen != proc->gen || e->how != how ||
	    e->nr > max)
		return 0;
	memcpy(w, e->words, e->nr * sizeof *w);
	return e->nr;
}

void lp_fold_words_put(struct lp_run *run, const struct lp_proc *proc, uint64_t ip,
		       unsigned how, const uint64_t *w, size_t n)
{
	struct lp_fold_cache *c = run->stack.fold[LP_FOLD_FOLDED];
	if (!c || !proc || n > FRAME_WORDS)
		return;
	struct words_ent *e = words_slot(c, proc, ip, how);
	*e = (struct words_ent){ proc, proc->gen, (uint16_t)how, (uint16_t)n, ip, { 0 } };
	memcpy(e->words, w, n * sizeof *w);
}

void lp_fold_free(struct lp_run *run)
{
	for (size_t i = 0; i < sizeof run->stack.fold / sizeof *run->stack.fold; i++) {
		struct lp_fold_cache *c = run->stack.fold[i];

		for (size_t j = 0; c && j < NAMED_SLOTS; j++)
			free(c->named[j].words);
		free(c);
		run->stack.fold[i] = NULL;
	}
}
