/*
 * hmap.c - byte-string keys to 64-bit values: a dense array of entries in
 * insertion order, an open-addressing index of 32-bit (entry, hash) slot
 * pairs with linear probing at most half full, and the keys in large
 * chunks.  A probe compares 32 bits of hash in the index before it touches
 * an entry, so a miss rarely costs a second cache line.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "luaprof/hmap.h"
#include "util/chunks.h"
#include "util/grow.h"

#ifndef KEY_CHUNK      /* make fuzz builds with small chunks: see the Makefile */
#define KEY_CHUNK (1u << 20)
#endif
#define MAX_ENTRIES (1u << 31)

struct entry {
	uint64_t value;
	const char *key;
	uint32_t len;
	uint32_t hash;
};

struct slot {
	uint32_t idx1;          /* entry + 1; 0 = empty */
	uint32_t hash;
};

struct lp_hmap {
	struct entry *ents;
	size_t nr, cap;
	struct slot *slots;
	size_t mask;            /* slots - 1 */
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

struct lp_hmap *lp_hmap_new(void)
{
	struct lp_hmap *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	m->mask = 63;
	if (!(m->slots = calloc(m->mask + 1, sizeof *m->slots))) {
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
	free(m->ents);
	free(m->slots);
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

static void place(struct slot *slots, size_t mask, uint32_t idx, uint32_t hash)
{
	size_t i = hash & mask;
	while (slots[i].idx1)
		i = (i + 1) & mask;
	slots[i] = (struct slot){ idx + 1, hash };
}

static int rehash(struct lp_hmap *m)
{
	size_t mask = m->mask * 2 + 1;
	struct slot *s = calloc(mask + 1, sizeof *s);
	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < m->nr; i++)
		place(s, mask, (uint32_t)i, m->ents[i].hash);
	free(m->slots);
	m->slots = s;
	m->mask = mask;
	return 0;
}

static int64_t add(struct lp_hmap *m, const void *key, size_t n, uint32_t h32)
{
	if (n > UINT32_MAX || m->nr >= MAX_ENTRIES)
		return -ENOMEM;
	if ((m->nr + 1) * 2 > m->mask + 1 && rehash(m))
		return -ENOMEM;
	if (lp_grow(&m->ents, &m->cap, m->nr, sizeof *m->ents, 64, MAX_ENTRIES))
		return -ENOMEM;
	const char *k = store(m, key, n);
	if (!k && n)
		return -ENOMEM;
	m->ents[m->nr] = (struct entry){ 0, k, (uint32_t)n, h32 };
	place(m->slots, m->mask, (uint32_t)m->nr, h32);
	return (int64_t)m->nr++;
}

int64_t lp_hmap_find(struct lp_hmap *m, const void *key, size_t n, uint64_t h, bool create,
		     bool *added)
{
	uint32_t h32 = (uint32_t)(h ^ (h >> 32));
	for (size_t i = h32 & m->mask;; i = (i + 1) & m->mask) {
		const struct slot *s = &m->slots[i];
		if (!s->idx1)
			break;
		if (s->hash != h32)
			continue;
		const struct entry *e = &m->ents[s->idx1 - 1];
		if (e->len == n && !memcmp(e->key, key, n))
			return s->idx1 - 1;
	}
	if (!create)
		return -1;
	int64_t i = add(m, key, n, h32);
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
	return m->cap * sizeof *m->ents + (m->mask + 1) * sizeof *m->slots + m->key_bytes;
}

void lp_hmap_clear(struct lp_hmap *m)
{
	lp_chunks_free(m->chunks);
	m->chunks = NULL;
	m->key_bytes = 0;
	m->nr = 0;
	memset(m->slots, 0, (m->mask + 1) * sizeof *m->slots);
}
