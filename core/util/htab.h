/*
 * htab.h - internal to core/: the one generic hash table of core/, from
 * 64-bit keys to 64-bit values, with the key's hash and equality given as
 * callbacks (as libbpf's hashmap takes them).
 *
 * A key is whatever the callbacks make of it: an integer (a tid), a
 * pointer to a string or a struct, or an index into the caller's array.
 * With both callbacks NULL the key is its own identity (integers,
 * pointers compared as addresses) and no call is made per lookup.
 *
 * Open addressing with linear probing, at most three quarters full; each
 * slot keeps 32 bits of its key's hash, so a probe calls equal_fn only
 * when those match, and growing never calls hash_fn again.  Entries move
 * when the table grows or an entry is deleted: a pointer to one is valid
 * until the next lp_htab_add() or lp_htab_delete().
 *
 * The struct is here, not in htab.c, only so that lookups (once per
 * sample in the process model, once per frame in the source line cache)
 * inline into their callers; nothing outside htab.h/htab.c touches it.
 */
#ifndef LP_HTAB_H
#define LP_HTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The hash of key (any 64 bits; the table folds them); ctx is the one
 * given to lp_htab_new().  Must give equal keys equal hashes. */
typedef uint64_t lp_htab_hash_fn(uint64_t key, void *ctx);

/* Whether keys k1 and k2 are the same key. */
typedef bool lp_htab_equal_fn(uint64_t k1, uint64_t k2, void *ctx);

struct lp_htab_ent {
	uint64_t key;
	uint64_t val;
};

struct lp_htab {
	struct lp_htab_ent *ents;
	uint32_t *tags;         /* 32 bits of the hash | LP_HTAB_USED; 0: empty */
	size_t mask;            /* slots - 1 */
	size_t nr;
	lp_htab_hash_fn *hash;
	lp_htab_equal_fn *equal;
	void *ctx;
};

#define LP_HTAB_USED 0x80000000u

/* An empty table hashing with hash and comparing with equal, both called
 * with ctx.  hash NULL: a multiplicative hash of the key's 64 bits (only
 * right when equal keys have equal bits); equal NULL: keys are the same
 * when their bits are.  NULL and errno on failure.  Free with
 * lp_htab_free(). */
struct lp_htab *lp_htab_new(lp_htab_hash_fn *hash, lp_htab_equal_fn *equal, void *ctx);

/* Frees t (not what its keys and values point at).  Accepts NULL. */
void lp_htab_free(struct lp_htab *t);

/* A tag made of hash h: 32 bits of it, LP_HTAB_USED set. */
static inline uint32_t lp_htab_fold(uint64_t h)
{
	return (uint32_t)(h ^ (h >> 32)) | LP_HTAB_USED;
}

/* The hash of integer key k in a table without hash_fn. */
static inline uint64_t lp_htab_int_hash(uint64_t k)
{
	return k * 0x9e3779b97f4a7c15ull;
}

/* The tag of key in t. */
static inline uint32_t lp_htab_tag(const struct lp_htab *t, uint64_t key)
{
	return lp_htab_fold(t->hash ? t->hash(key, t->ctx) : lp_htab_int_hash(key));
}

/* The slot of key (tag lp_htab_tag(t, key)) in t, or the empty slot that
 * ends its run.  Integer keys (no equal_fn) get a loop without calls. */
static inline size_t lp_htab_probe(const struct lp_htab *t, uint64_t key, uint32_t tag)
{
	size_t i = tag & t->mask;
	if (!t->equal) {
		while (t->tags[i] && t->ents[i].key != key)
			i = (i + 1) & t->mask;
		return i;
	}
	for (; t->tags[i]; i = (i + 1) & t->mask)
		if (t->tags[i] == tag && t->equal(t->ents[i].key, key, t->ctx))
			break;
	return i;
}

/* The entry of key, or NULL when absent.  Valid until the next
 * lp_htab_add() or lp_htab_delete(). */
static inline struct lp_htab_ent *lp_htab_find(const struct lp_htab *t, uint64_t key)
{
	size_t i = lp_htab_probe(t, key, lp_htab_tag(t, key));
	return t->tags[i] ? &t->ents[i] : NULL;
}

/* lp_htab_find() for a table made with both callbacks NULL (integer
 * keys), without the tests for them: the lookup of a thread per sample
 * and of a source address per frame. */
static inline struct lp_htab_ent *lp_htab_find_int(const struct lp_htab *t, uint64_t key)
{
	size_t i = lp_htab_fold(lp_htab_int_hash(key)) & t->mask;
	for (; t->tags[i]; i = (i + 1) & t->mask)
		if (t->ents[i].key == key)
			return &t->ents[i];
	return NULL;
}

/* For lp_htab_add_hashed only: adds key, of tag tag, at slot, the empty
 * slot lp_htab_probe() found for it (or elsewhere when t must grow), and
 * sets *added (when not NULL); its entry, or NULL and errno ENOMEM. */
struct lp_htab_ent *lp_htab_insert(struct lp_htab *t, size_t slot, uint64_t key, uint32_t tag,
				   bool *added);

/* lp_htab_add() with the key's hash given (what hash_fn, or the integer
 * hash when there is none, would return), for callers that have it. */
static inline struct lp_htab_ent *lp_htab_add_hashed(struct lp_htab *t, uint64_t key,
						    uint64_t hash, bool *added)
{
	uint32_t tag = lp_htab_fold(hash);
	size_t i = lp_htab_probe(t, key, tag);
	if (t->tags[i]) {
		if (added)
			*added = false;
		return &t->ents[i];
	}
	return lp_htab_insert(t, i, key, tag, added);
}

/* The entry of key, added with value 0 when absent; *added (when not NULL)
 * says which.  The caller may then replace the entry's key with one equal
 * to it (same hash, equal_fn true): a table keyed by string pointers adds
 * the caller's string, then stores its own copy.  NULL and errno ENOMEM
 * when the table cannot grow.  Valid as lp_htab_find()'s entries. */
struct lp_htab_ent *lp_htab_add(struct lp_htab *t, uint64_t key, bool *added);

/* Removes key's entry, copying it to *old when old is not NULL; 0, or
 * -ENOENT when key is absent. */
int lp_htab_delete(struct lp_htab *t, uint64_t key, struct lp_htab_ent *old);

/* The entries, one per call, in no particular order: *iter starts at 0;
 * NULL after the last.  The table must not change during a walk. */
struct lp_htab_ent *lp_htab_next(const struct lp_htab *t, size_t *iter);

/* The number of entries. */
size_t lp_htab_count(const struct lp_htab *t);

/* Bytes held by the table itself, for reports. */
size_t lp_htab_bytes(const struct lp_htab *t);

/* Removes every entry, keeping the memory for reuse. */
void lp_htab_clear(struct lp_htab *t);

#endif
