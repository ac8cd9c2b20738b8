/* Part of include/luaprof/: the core's interface to the layer above it (lua/). */
/*
 * hmap.h - a hash map from byte strings to one 64-bit value each.
 *
 * Keys are copied into the map's own storage; entries are numbered 0, 1,
 * 2, ... in the order they were added and keep their number (and their key
 * pointer) until lp_hmap_clear() or lp_hmap_free().  Nothing is removed
 * one at a time.  The counting map of the Lua library, pprof's tables and
 * the flame graph's tree are all built on it.
 */
#ifndef LUAPROF_HMAP_H
#define LUAPROF_HMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lp_hmap;

/* A 64-bit hash of n bytes (not cryptographic; the same on every run). */
uint64_t lp_hash(const void *p, size_t n);

/* An empty map; NULL and errno on failure. */
struct lp_hmap *lp_hmap_new(void);

/* Frees m and every key.  Accepts NULL. */
void lp_hmap_free(struct lp_hmap *m);

/* The entry of key (n bytes, hash h = lp_hash(key, n)): its number, or -1
 * when absent and !create.  With create, an absent key is added with value
 * 0 and *added (when not NULL) set; -ENOMEM when that fails. */
int64_t lp_hmap_find(struct lp_hmap *m, const void *key, size_t n, uint64_t h, bool create,
		     bool *added);

/* The value slot of entry i (0 <= i < lp_hmap_count), valid until the map
 * grows (the next lp_hmap_find with create) or is cleared. */
uint64_t *lp_hmap_value(struct lp_hmap *m, size_t i);

/* The key of entry i and its length; the bytes stay put until
 * lp_hmap_clear()/lp_hmap_free(). */
const void *lp_hmap_key(const struct lp_hmap *m, size_t i, size_t *n);

size_t lp_hmap_count(const struct lp_hmap *m);

/* Bytes held (tables and keys), for reports. */
size_t lp_hmap_bytes(const struct lp_hmap *m);

/* Removes every entry, keeping the memory for reuse. */
void lp_hmap_clear(struct lp_hmap *m);

#endif
