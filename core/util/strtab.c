/*
 * strtab.c - interned strings: the generic table (htab.c) keyed by
 * pointers to the strings, which live in chunked storage.  Strings are
 * never removed; chunks are freed together.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "luaprof/hmap.h"
#include "util/chunks.h"
#include "util/htab.h"
#include "util/strtab.h"

#define CHUNK_SIZE (64 * 1024)

struct lp_strtab {
	struct lp_chunk *chunks;
	struct lp_htab *strs;   /* string pointer -> nothing */
};

static const char *str_of(uint64_t k)
{
	return (const char *)(uintptr_t)k;
}

static uint64_t hash_str(uint64_t k, void *ctx)
{
	(void)ctx;
	return lp_hash(str_of(k), strlen(str_of(k)));
}

static bool same_str(uint64_t k1, uint64_t k2, void *ctx)
{
	(void)ctx;
	return !strcmp(str_of(k1), str_of(k2));
}

struct lp_strtab *lp_strtab_new(void)
{
	struct lp_strtab *t = calloc(1, sizeof *t);
	if (!t || !(t->strs = lp_htab_new(hash_str, same_str, NULL))) {
		free(t);
		return errno = ENOMEM, NULL;
	}
	return t;
}

void lp_strtab_free(struct lp_strtab *t)
{
	if (!t)
		return;
	lp_chunks_free(t->chunks);
	lp_htab_free(t->strs);
	free(t);
}

const char *lp_strtab_store(struct lp_strtab *t, const char *s, size_t n)
{
	char *p = lp_chunks_alloc(&t->chunks, n + 1, CHUNK_SIZE);
	if (p) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

const char *lp_strtab_intern(struct lp_strtab *t, const char *s)
{
	bool added;
	struct lp_htab_ent *e = lp_htab_add(t->strs, (uintptr_t)s, &added);
	if (!e)
		return NULL;
	if (added) {
		const char *p = lp_strtab_store(t, s, strlen(s));
		if (!p) {
			lp_htab_delete(t->strs, (uintptr_t)s, NULL);
			return NULL;
		}
		e->key = (uintptr_t)p;
	}
	return str_of(e->key);
}
