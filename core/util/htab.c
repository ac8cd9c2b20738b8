/*
 * htab.c - the generic hash table (see htab.h): an array of entries and a
 * parallel array of 32-bit tags, a power of two of each, at most three
 * quarters full.  A tag is 32 bits of the key's hash with the top bit
 * set; 0 marks an empty slot.  A key lives at its home slot (tag & mask)
 * or in the run of full slots after it; deleting shifts the rest of that
 * run back, so there are no tombstones and a miss stops at the first
 * empty slot.
 *
 * Workload: one lookup per sample or per frame in the tables built on it
 * (threads, objects, source lines, strings, flame graph nodes), so a
 * lookup makes no call when the callbacks are NULL, and calls equal_fn
 * only for slots whose tag matches.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/htab.h"

#define FIRST_SLOTS 16

/* The lookup itself (lp_htab_tag, lp_htab_probe, lp_htab_find) is in
 * htab.h, to be inlined. */

static size_t empty_slot(const struct lp_htab *t, uint32_t tag)
{
	size_t i = tag & t->mask;
	while (t->tags[i])
		i = (i + 1) & t->mask;
	return i;
}

/* Arrays of n slots (a power of two) for t, empty; 0 or -ENOMEM. */
static int alloc_slots(struct lp_htab *t, size_t n)
{
	if (n > SIZE_MAX / sizeof *t->ents)
		return -ENOMEM;
	struct lp_htab_ent *e = malloc(n * sizeof *e);
	uint32_t *g = calloc(n, sizeof *g);
	if (!e || !g) {
		free(e);
		free(g);
		return -ENOMEM;
	}
	t->ents = e;
	t->tags = g;
	t->mask = n - 1;
	return 0;
}

struct lp_htab *lp_htab_new(lp_htab_hash_fn *hash, lp_htab_equal_fn *equal, void *ctx)
{
	struct lp_htab *t = calloc(1, sizeof *t);
	if (!t || alloc_slots(t, FIRST_SLOTS)) {
		free(t);
		return errno = ENOMEM, NULL;
	}
	t->hash = hash;
	t->equal = equal;
	t->ctx = ctx;
	return t;
}

void lp_htab_free(struct lp_htab *t)
{
	if (!t)
		return;
	free(t->ents);
	free(t->tags);
	free(t);
}

/* Doubles t, moving the entries by their tags; 0 or -ENOMEM (t intact). */
static int grow(struct lp_htab *t)
{
	struct lp_htab old = *t;
	if (old.mask + 1 > SIZE_MAX / 2 || alloc_slots(t, (old.mask + 1) * 2))
		return -ENOMEM;
	for (size_t i = 0; i <= old.mask; i++) {
		if (!old.tags[i])
			continue;
		size_t j = empty_slot(t, old.tags[i]);
		t->tags[j] = old.tags[i];
		t->ents[j] = old.ents[i];
	}
	free(old.ents);
	free(old.tags);
	return 0;
}

struct lp_htab_ent *lp_htab_insert(struct lp_htab *t, size_t slot, uint64_t key, uint32_t tag,
				   bool *added)
{
	if (added)
		*added = false;
	/* Three quarters, not half: the tags of a run of slots share a cache
	 * line, so the longer runs cost no measurable time (top, folded,
	 * pprof, count(sym) on the make -j2 -g recording, 10-12 alternated
	 * runs), and a table just past a power of two is a quarter full,
	 * not an eighth: top --children's peak RSS on that recording fell
	 * from 69 to 61 MiB, its row tables past 64k entries. */
	if ((t->nr + 1) * 4 > (t->mask + 1) * 3) {
		if (grow(t))
			return errno = ENOMEM, NULL;
		slot = empty_slot(t, tag);
	}
	if (added)
		*added = true;
	t->tags[slot] = tag;
	t->ents[slot] = (struct lp_htab_ent){ key, 0 };
	t->nr++;
	return &t->ents[slot];
}

struct lp_htab_ent *lp_htab_add(struct lp_htab *t, uint64_t key, bool *added)
{
	return lp_htab_add_hashed(t, key, t->hash ? t->hash(key, t->ctx) : lp_htab_int_hash(key),
				  added);
}

int lp_htab_delete(struct lp_htab *t, uint64_t key, struct lp_htab_ent *old)
{
	size_t i = lp_htab_probe(t, key, lp_htab_tag(t, key));
	if (!t->tags[i])
		return -ENOENT;
	if (old)
		*old = t->ents[i];
	/* close the hole at i: a later entry of the run moves into it when
	 * its home slot is not between the hole and itself */
	for (size_t j = (i + 1) & t->mask; t->tags[j]; j = (j + 1) & t->mask) {
		size_t home = t->tags[j] & t->mask;
		if (((j - home) & t->mask) >= ((j - i) & t->mask)) {
			t->tags[i] = t->tags[j];
			t->ents[i] = t->ents[j];
			i = j;
		}
	}
	t->tags[i] = 0;
	t->nr--;
	return 0;
}

struct lp_htab_ent *lp_htab_next(const struct lp_htab *t, size_t *iter)
{
	for (size_t i = *iter; i <= t->mask; i++)
		if (t->tags[i]) {
			*iter = i + 1;
			return &t->ents[i];
		}
	*iter = t->mask + 1;
	return NULL;
}

size_t lp_htab_count(const struct lp_htab *t)
{
	return t->nr;
}

size_t lp_htab_bytes(const struct lp_htab *t)
{
	return sizeof *t + (t->mask + 1) * (sizeof *t->ents + sizeof *t->tags);
}

void lp_htab_clear(struct lp_htab *t)
{
	memset(t->tags, 0, (t->mask + 1) * sizeof *t->tags);
	t->nr = 0;
}
