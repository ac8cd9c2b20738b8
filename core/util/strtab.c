/*
 * strtab.c - interned strings: an open-addressing hash of pointers into
 * chunked storage.  Strings are never removed; chunks are freed together.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/chunks.h"
#include "util/strtab.h"

#define CHUNK_SIZE (64 * 1024)

struct lp_strtab {
	struct lp_chunk *chunks;
	const char **slots;
	size_t nr_slots, nr_used;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;   /* FNV-1a */
	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

struct lp_strtab *lp_strtab_new(void)
{
	struct lp_strtab *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	t->nr_slots = 256;
	t->slots = calloc(t->nr_slots, sizeof *t->slots);
	if (!t->slots) {
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
	free(t->slots);
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

static int grow(struct lp_strtab *t)
{
	size_t n = t->nr_slots * 2;
	const char **s = calloc(n, sizeof *s);
	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < t->nr_slots; i++) {
		if (!t->slots[i])
			continue;
		size_t h = hash_str(t->slots[i]) & (n - 1);
		while (s[h])
			h = (h + 1) & (n - 1);
		s[h] = t->slots[i];
	}
	free(t->slots);
	t->slots = s;
	t->nr_slots = n;
	return 0;
}

const char *lp_strtab_intern(struct lp_strtab *t, const char *s)
{
	if ((t->nr_used + 1) * 2 > t->nr_slots && grow(t))
		return NULL;
	size_t h = hash_str(s) & (t->nr_slots - 1);
	for (; t->slots[h]; h = (h + 1) & (t->nr_slots - 1))
		if (!strcmp(t->slots[h], s))
			return t->slots[h];
	const char *p = lp_strtab_store(t, s, strlen(s));
	if (p) {
		t->slots[h] = p;
		t->nr_used++;
	}
	return p;
}
