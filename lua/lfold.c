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
 * lp_stack_push_folded would build.
 *
 * Direct-mapped: FOLD_SLOTS entries, a newer stack replaces an older one in
 * its slot.  The strings live in a Lua table in the registry, index = slot
 * + 1, so they stay alive while cached and are collected when replaced.  Stacks deeper than FOLD_MAX_IPS are not cached.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "lfold.h"
#include "lstack.h"

#define FOLD_SLOTS 1024
#define FOLD_MAX_IPS 64

struct fold_ent {
	uint64_t hash;
	const struct lp_proc *proc;
	uint32_t gen;
	uint16_t nr;            /* 0: slot empty */
	uint16_t flags;
	char comm[16];
	uint64_t ips[FOLD_MAX_IPS];
};

struct lp_fold_cache {
	int ref;                /* the strings' table in the registry */
	struct fold_ent ents[FOLD_SLOTS];
	/* the key of the last lookup, for lp_fold_put: all but its addresses,
	 * which stay in the sample (key_ips) until a put copies them */
	struct fold_ent *pending;
	struct fold_ent key;
	const uint64_t *key_ips;
};

enum { FOLD_KERNEL = 1, FOLD_CHAIN = 2, FOLD_UNWOUND = 4 };

/* Fills c->key from the current sample; false when it cannot be cached. */
static bool make_key(struct lp_fold_cache *c, struct lp_run *run, bool kernel_mode)
{
	const struct lp_sample *s = &run->view.rec->u.sample;
	const struct lp_thread *t = lp_view_thread(run);
	uint64_t nr;
	bool unwound;
	const uint64_t *ips = lp_stack_addrs(run, &nr, &unwound);
	struct fold_ent *k = &c->key;

	if (!t || nr > FOLD_MAX_IPS)
		return false;
	k->proc = t->proc;
	k->gen = t->proc ? t->proc->gen : 0;
	k->nr = (uint16_t)nr;
	k->flags = (uint16_t)((kernel_mode ? FOLD_KERNEL : 0) | (s->nr_ips ? FOLD_CHAIN : 0) |
			      (unwound ? FOLD_UNWOUND : 0));
	memcpy(k->comm, t->comm, sizeof k->comm);
	uint64_t h = (uint64_t)(uintptr_t)k->proc ^ ((uint64_t)k->gen << 32) ^ k->flags;
	for (uint64_t i = 0; i < nr; i++)
		h = (h ^ ips[i]) * 0x100000001b3ull;
	for (size_t i = 0; i < sizeof k->comm && k->comm[i]; i++)
		h = (h ^ (unsigned char)k->comm[i]) * 0x100000001b3ull;
	k->hash = h;
	c->key_ips = ips;
	return true;
}

/* Entry e holds the key of the last lookup. */
static bool same(const struct fold_ent *e, const struct lp_fold_cache *c)
{
	const struct fold_ent *k = &c->key;

	return e->hash == k->hash && e->nr == k->nr && e->proc == k->proc && e->gen == k->gen &&
	       e->flags == k->flags && !memcmp(e->comm, k->comm, sizeof e->comm) &&
	       !memcmp(e->ips, c->key_ips, e->nr * sizeof *e->ips);
}

static struct lp_fold_cache *cache_new(lua_State *L, struct lp_run *run, enum lp_fold_kind kind)
{
	struct lp_fold_cache *c = calloc(1, sizeof *c);

	if (c) {
		lua_createtable(L, FOLD_SLOTS, 0);
		c->ref = luaL_ref(L, LUA_REGISTRYINDEX);
	}
	return run->fold[kind] = c;
}

/* Pushes the cached string of entry e. */
static void push_ent(lua_State *L, const struct lp_fold_cache *c, const struct fold_ent *e)
{
	lua_rawgeti(L, LUA_REGISTRYINDEX, c->ref);
	lua_rawgeti(L, -1, (lua_Integer)(e - c->ents) + 1);
	lua_remove(L, -2);
}

bool lp_fold_get(lua_State *L, struct lp_run *run, enum lp_fold_kind kind, bool kernel_mode)
{
	struct lp_fold_cache *c = run->fold[kind];

	if (!c && !(c = cache_new(L, run, kind)))
		return false;
	c->pending = NULL;
	if (!make_key(c, run, kernel_mode))
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
	struct lp_fold_cache *c = run->fold[kind];
	struct fold_ent *e = c ? c->pending : NULL;

	if (!e)
		return;
	memcpy(e, &c->key, offsetof(struct fold_ent, ips));
	memcpy(e->ips, c->key_ips, c->key.nr * sizeof *e->ips);
	lua_rawgeti(L, LUA_REGISTRYINDEX, c->ref);
	lua_pushvalue(L, -2);
	lua_rawseti(L, -2, (lua_Integer)(e - c->ents) + 1);
	lua_pop(L, 1);
	c->pending = NULL;
}

void lp_fold_free(struct lp_run *run)
{
	for (size_t i = 0; i < sizeof run->fold / sizeof *run->fold; i++) {
		free(run->fold[i]);
		run->fold[i] = NULL;
	}
}
