/*
 * hmap.c - byte-string keys to 64-bit values: a dense array of entries in
 * insertion order, indexed by the generic table (htab.c) keyed by entry
 * number, and the keys in large chunks.  The table keeps 32 bits of each
 * key's hash, so a miss rarely compares a key.  A lookup is keyed by
 * PROBE, which stands for the key being looked up (m->probe).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "luaprof/hmap.h"
#include "util/chunks.h"
#include "util/grow.h"
#include "util/htab.h"

#ifndef KEY_CHUNK      /* make fuzz builds with small chunks: see the Makefile */
#define KEY_CHUNK (1u << 20)
#endif
#define MAX_ENTRIES (1u << 31)
#define PROBE UINT64_MAX

struct entry {
	uint64_t value;
	const char *key;
	uint32_t len;
	uint32_t hash;
};

struct lp_hmap {
	struct entry *ents;
	size_t nr, cap;
	struct lp_htab *index;  /* entry number -> nothing */
	struct entry probe;     /* the key being looked up */
	struct lp_chunk *chunks;
	size_t key_bytes;
};

static uint64_t mix(uint64_t h)
{
	h ^= h >> 32;
	h *= 0xd6e8feb86659fd93ull;
	h ^= h >> 32;
	return h;
}

uint64_t lp_hash(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ (n * 0xff51afd7ed558ccdull), w;
	for (; n >= 8; n -= 8, s += 8) {
		memcpy(&w, s, 8);
		h = (h ^ mix(w * 0xc4ceb9fe1a85ec53ull)) * 0x9e3779b97f4a7c15ull;
		h = (h << 27) | (h >> 37);
	}
	w = 0;
	memcpy(&w, s, n);
	return mix(h ^ (w * 0xc4ceb9fe1a85ec53ull) ^ n);
}

static const struct entry *entry_of(const struct lp_hmap *m, uint64_t k)
{
	return k == PROBE ? &m->probe : &m->ents[k];
}

static uint64_t key_hash(uint64_t k, void *ctx)
{
	return entry_of(ctx, k)->hash;
}

static bool key_equal(uint64_t k1, uint64_t k2, void *ctx)
{
	const struct entry *a = entry_of(ctx, k1), *b = entry_of(ctx, k2);
	return a->len == b->len && !memcmp(a->key, b->key, a->len);
}

struct lp_hmap *lp_hmap_new(void)
{
	struct lp_hmap *m = calloc(1, sizeof *m);
	if (!m || !(m->index = lp_htab_new(key_hash, key_equal, m))) {
		free(m);
		return errno = ENOMEM, NULL;
	}
	return m;
}

void lp_hmap_free(struct lp_hmap *m)
{
	if (!m)
		return;
	lp_chunks_free(m->chunks);
	lp_htab_free(m->index);
	free(m->ents);
	free(m);
}

/* A copy of the key in chunk storage; NULL when out of memory. */
static const char *store(struct lp_hmap *m, const void *key, size_t n)
{
	char *p = lp_chunks_alloc(&m->chunks, n, KEY_CHUNK);
	if (p) {
		memcpy(p, key, n);
		m->key_bytes += n;
	}
	return p;
}

/* Adds the probe's key as entry m->nr, in the index slot e; its number or
 * -ENOMEM (the index then forgets it). */
static int64_t add(struct lp_hmap *m, struct lp_htab_ent *e)
{
	const char *k = NULL;
	if (m->nr >= MAX_ENTRIES ||
	    lp_grow(&m->ents, &m->cap, m->nr, sizeof *m->ents, 64, MAX_ENTRIES) ||
	    (!(k = store(m, m->probe.key, m->probe.len)) && m->probe.len)) {
		lp_htab_delete(m->index, PROBE, NULL);
		return -ENOMEM;
	}
	m->ents[m->nr] = m->probe;
	m->ents[m->nr].key = k;
	e->key = m->nr;
	return (int64_t)m->nr++;
}

int64_t lp_hmap_find(struct lp_hmap *m, const void *key, size_t n, uint64_t h, bool create,
		     bool *added)
{
	if (n > UINT32_MAX)
		return create ? -ENOMEM : -1;
	m->probe = (struct entry){ 0, key, (uint32_t)n, (uint32_t)(h ^ (h >> 32)) };
	if (!create) {
		const struct lp_htab_ent *e = lp_htab_find(m->index, PROBE);
		return e ? (int64_t)e->key : -1;
	}
	bool fresh;
	struct lp_htab_ent *e = lp_htab_add_hashed(m->index, PROBE, m->probe.hash, &fresh);
	if (!e)
		return -ENOMEM;
	if (!fresh)
		return (int64_t)e->key;
	int64_t i = add(m, e);
	if (i >= 0 && added)
		*added = true;
	return i;
}

uint64_t *lp_hmap_value(struct lp_hmap *m, size_t i)
{
	return &m->ents[i].value;
}

const void *lp_hmap_key(const struct lp_hmap *m, size_t i, size_t *n)
{
	*n = m->ents[i].len;
	return m->ents[i].key;
}

size_t lp_hmap_count(const struct lp_hmap *m)
{
	return m->nr;
}

size_t lp_hmap_bytes(const struct lp_hmap *m)
{
	return m->cap * sizeof *m->ents + lp_htab_bytes(m->index) + m->key_bytes;
}

void lp_hmap_clear(struct lp_hmap *m)
{
	lp_chunks_free(m->chunks);
	m->chunks = NULL;
	m->key_bytes = 0;
	m->nr = 0;
	lp_htab_clear(m->index);
}
