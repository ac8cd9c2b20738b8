/* test_hmap.c - the byte-keyed hash map: entries numbered in insertion
 * order, found again by content, through growth, with keys holding NULs;
 * clear keeps it usable. */
#include "luaprof/hmap.h"
#include "test.h"

static int64_t put(struct lp_hmap *m, const void *k, size_t n)
{
	bool added = false;
	int64_t i = lp_hmap_find(m, k, n, lp_hash(k, n), true, &added);
	if (i >= 0)
		(*lp_hmap_value(m, (size_t)i))++;
	return added ? i : -2 - i;
}

static void numbered_in_order(void)
{
	struct lp_hmap *m = lp_hmap_new();
	char key[32];
	for (int i = 0; i < 100000; i++) {
		int n = snprintf(key, sizeof key, "k%d", i);
		TEST_EQ(put(m, key, (size_t)n), i);
	}
	TEST_EQ(lp_hmap_count(m), 100000);
	for (int i = 0; i < 100000; i += 997) {
		int n = snprintf(key, sizeof key, "k%d", i);
		TEST_EQ(lp_hmap_find(m, key, (size_t)n, lp_hash(key, (size_t)n), false, NULL), i);
		size_t len;
		const char *k = lp_hmap_key(m, (size_t)i, &len);
		TEST_EQ(len, n);
		TEST_TRUE(!memcmp(k, key, len));
	}
	TEST_EQ(lp_hmap_find(m, "nope", 4, lp_hash("nope", 4), false, NULL), -1);
	lp_hmap_free(m);
}

static void binary_keys_and_clear(void)
{
	struct lp_hmap *m = lp_hmap_new();
	TEST_EQ(put(m, "a\0b", 3), 0);
	TEST_EQ(put(m, "a\0c", 3), 1);
	TEST_EQ(put(m, "a", 1), 2);
	TEST_EQ(put(m, "", 0), 3);
	TEST_EQ(put(m, "a\0b", 3), -2);         /* found again: entry 0 */
	TEST_EQ(*lp_hmap_value(m, 0), 2);
	lp_hmap_clear(m);
	TEST_EQ(lp_hmap_count(m), 0);
	TEST_EQ(lp_hmap_find(m, "a", 1, lp_hash("a", 1), false, NULL), -1);
	TEST_EQ(put(m, "z", 1), 0);
	lp_hmap_free(m);
	lp_hmap_free(NULL);
}

static void hash_differs(void)
{
	TEST_TRUE(lp_hash("abcdefgh1", 9) != lp_hash("abcdefgh2", 9));
	TEST_TRUE(lp_hash("", 0) != lp_hash("\0", 1));
	TEST_EQ_U64(lp_hash("same", 4), lp_hash("same", 4));
}

TEST_MAIN("hmap", TEST_CASE(numbered_in_order), TEST_CASE(binary_keys_and_clear), TEST_CASE(hash_differs))
