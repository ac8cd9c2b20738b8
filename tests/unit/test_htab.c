/* test_htab.c - the generic hash table: insert, lookup, delete, growth
 * across many doublings, keys made equal by the callbacks, collisions from
 * a deliberately bad hash, and a random sequence of adds and deletes
 * checked against a plain array. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "test.h"
#include "util/htab.h"

static uint64_t bad_hash(uint64_t key, void *ctx)
{
	(void)key;
	(void)ctx;
	return 7;               /* every key in one run */
}

static uint64_t mod_hash(uint64_t key, void *ctx)
{
	return key % *(uint64_t *)ctx;
}

static bool mod_equal(uint64_t k1, uint64_t k2, void *ctx)
{
	return k1 % *(uint64_t *)ctx == k2 % *(uint64_t *)ctx;
}

static void insert_lookup_delete(void)
{
	struct lp_htab *t = lp_htab_new(NULL, NULL, NULL);
	bool added = false;
	TEST_TRUE(t != NULL);
	TEST_TRUE(lp_htab_find(t, 42) == NULL);
	struct lp_htab_ent *e = lp_htab_add(t, 42, &added);
	TEST_TRUE(e && added);
	TEST_EQ(e->key, 42);
	TEST_EQ(e->val, 0);
	e->val = 99;
	e = lp_htab_add(t, 42, &added);
	TEST_TRUE(e && !added);
	TEST_EQ(e->val, 99);
	e = lp_htab_find(t, 42);
	TEST_TRUE(e && e->val == 99);
	TEST_EQ(lp_htab_count(t), 1);
	struct lp_htab_ent old = { 0, 0 };
	TEST_EQ(lp_htab_delete(t, 42, &old), 0);
	TEST_EQ(old.key, 42);
	TEST_EQ(old.val, 99);
	TEST_EQ(lp_htab_delete(t, 42, NULL), -ENOENT);
	TEST_TRUE(lp_htab_find(t, 42) == NULL);
	TEST_EQ(lp_htab_count(t), 0);
	lp_htab_free(t);
	lp_htab_free(NULL);
}

/* 200k keys: the table doubles from 16 slots about 15 times. */
static void grows(void)
{
	struct lp_htab *t = lp_htab_new(NULL, NULL, NULL);
	size_t bytes = lp_htab_bytes(t);
	for (uint64_t k = 0; k < 200000; k++)
		lp_htab_add(t, k * 3, NULL)->val = k;
	TEST_EQ(lp_htab_count(t), 200000);
	TEST_TRUE(lp_htab_bytes(t) > bytes);
	int bad = 0;
	for (uint64_t k = 0; k < 200000; k++) {
		const struct lp_htab_ent *e = lp_htab_find(t, k * 3);
		bad += !e || e->val != k || lp_htab_find(t, k * 3 + 1);
		bad += lp_htab_find_int(t, k * 3) != e || lp_htab_find_int(t, k * 3 + 1);
	}
	TEST_EQ(bad, 0);
	size_t n = 0, it = 0;
	uint64_t sum = 0;
	for (const struct lp_htab_ent *e; (e = lp_htab_next(t, &it)); n++)
		sum += e->val;
	TEST_EQ(n, 200000);
	TEST_EQ_U64(sum, 199999ull * 200000 / 2);
	lp_htab_clear(t);
	TEST_EQ(lp_htab_count(t), 0);
	TEST_TRUE(lp_htab_find(t, 3) == NULL);
	TEST_TRUE(lp_htab_add(t, 3, NULL) != NULL);
	TEST_EQ(lp_htab_count(t), 1);
	lp_htab_free(t);
}

/* The callbacks decide what a key is: keys equal mod 10 are one key. */
static void callbacks_define_keys(void)
{
	uint64_t mod = 10;
	bool added;
	struct lp_htab *t = lp_htab_new(mod_hash, mod_equal, &mod);
	lp_htab_add(t, 3, &added)->val = 1;
	TEST_TRUE(added);
	struct lp_htab_ent *e = lp_htab_add(t, 13, &added);
	TEST_TRUE(!added);
	TEST_EQ(e->key, 3);
	e->key = 23;            /* an equal key may replace the stored one */
	e = lp_htab_find(t, 33);
	TEST_TRUE(e && e->key == 23);
	TEST_EQ(lp_htab_count(t), 1);
	TEST_EQ(lp_htab_delete(t, 43, NULL), 0);
	TEST_EQ(lp_htab_count(t), 0);
	lp_htab_free(t);
}

/* Every key hashes the same: one long run, deletes from its middle. */
static void collisions(void)
{
	struct lp_htab *t = lp_htab_new(bad_hash, NULL, NULL);
	for (uint64_t k = 1; k <= 500; k++)
		lp_htab_add(t, k, NULL)->val = k * 2;
	for (uint64_t k = 2; k <= 500; k += 2)
		TEST_EQ(lp_htab_delete(t, k, NULL), 0);
	TEST_EQ(lp_htab_count(t), 250);
	int bad = 0;
	for (uint64_t k = 1; k <= 500; k++) {
		const struct lp_htab_ent *e = lp_htab_find(t, k);
		bad += k % 2 ? !e || e->val != k * 2 : e != NULL;
	}
	TEST_EQ(bad, 0);
	lp_htab_free(t);
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Random adds, overwrites and deletes of keys from a small range (so many
 * hit and many collide mod the table size), under both a good and a poor
 * hash, checked after every step against a plain array of values. */
static void against_model(lp_htab_hash_fn *hash)
{
	enum { RANGE = 3000, STEPS = 60000 };
	static uint64_t model[RANGE];   /* 0: absent, else value */
	struct lp_htab *t = lp_htab_new(hash, NULL, NULL);
	uint64_t s = 88172645463325252ull;
	size_t nr = 0;
	int bad = 0;
	memset(model, 0, sizeof model);
	for (int i = 0; i < STEPS; i++) {
		uint64_t k = rnd(&s) % RANGE, op = rnd(&s) % 3;
		if (op < 2) {
			bool added;
			struct lp_htab_ent *e = lp_htab_add(t, k, &added);
			bad += added != !model[k];
			nr += added;
			e->val = model[k] = (uint64_t)i + 1;
		} else {
			bad += (lp_htab_delete(t, k, NULL) == 0) != !!model[k];
			nr -= !!model[k];
			model[k] = 0;
		}
		const struct lp_htab_ent *e = lp_htab_find(t, rnd(&s) % RANGE);
		bad += e && model[e->key] != e->val;
	}
	for (uint64_t k = 0; k < RANGE; k++) {
		const struct lp_htab_ent *e = lp_htab_find(t, k);
		bad += model[k] ? !e || e->val != model[k] : e != NULL;
	}
	TEST_EQ(bad, 0);
	TEST_EQ(lp_htab_count(t), nr);
	lp_htab_free(t);
}

static uint64_t low_bits_hash(uint64_t key, void *ctx)
{
	(void)ctx;
	return key & 0x1f;      /* 32 hashes for 3000 keys */
}

static void model_default_hash(void) { against_model(NULL); }
static void model_poor_hash(void) { against_model(low_bits_hash); }

TEST_MAIN("htab", TEST_CASE(insert_lookup_delete), TEST_CASE(grows),
	  TEST_CASE(callbacks_define_keys), TEST_CASE(collisions), TEST_CASE(model_default_hash),
	  TEST_CASE(model_poor_hash))
