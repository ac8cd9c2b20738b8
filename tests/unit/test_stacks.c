/* test_stacks.c - the engine's tree of call stacks (core/agg/stacks.c):
 * names interned once, one node per path, counts where stacks end, the
 * folded text, and the sorted walk in the order of the texts, whatever
 * the names (prefixes of one another, empty, high bytes). */
#include <errno.h>

#include "luaprof/stacks.h"
#include "test.h"

static int64_t path(struct lp_stacks *s, const char *text)
{
	return lp_stacks_path(s, LP_STACKS_ROOT, text, strlen(text));
}

static void tree(void)
{
	struct lp_stacks *s = lp_stacks_new();
	TEST_TRUE(s != NULL);
	int64_t a = lp_stacks_name(s, "a", 1), b = lp_stacks_name(s, "b", 1);
	TEST_EQ(a, 0);
	TEST_EQ(b, 1);
	TEST_EQ(lp_stacks_name(s, "a", 1), 0);
	int64_t na = lp_stacks_child(s, LP_STACKS_ROOT, (uint32_t)a);
	int64_t nab = lp_stacks_child(s, (uint32_t)na, (uint32_t)b);
	TEST_EQ(na, 1);
	TEST_EQ(nab, 2);
	TEST_EQ(lp_stacks_child(s, (uint32_t)na, (uint32_t)b), nab);
	TEST_EQ(lp_stacks_child(s, 99, (uint32_t)b), -EINVAL);
	TEST_EQ(lp_stacks_child(s, 0, 99), -EINVAL);
	TEST_EQ(path(s, "a;b"), nab);
	TEST_EQ(lp_stacks_add(s, (uint32_t)nab, 3), 0);
	TEST_EQ(lp_stacks_add(s, (uint32_t)na, 0), 0);  /* a stack of count 0 */
	TEST_EQ(lp_stacks_add(s, LP_STACKS_ROOT, 1), -EINVAL);
	TEST_EQ(lp_stacks_stacks(s), 2);
	TEST_EQ(lp_stacks_sum(s), 3);
	struct lp_stacks_node n = lp_stacks_node(s, (uint32_t)nab);
	TEST_EQ(n.parent, na);
	TEST_EQ(n.depth, 2);
	TEST_TRUE(n.stack);
	TEST_EQ(n.count, 3);
	struct lp_buf t = { 0 };
	lp_stacks_text(s, (uint32_t)nab, &t);
	TEST_STREQ(t.p, "a;b");
	lp_buf_free(&t);
	size_t k;
	uint64_t sum;
	lp_stacks_below(s, (uint32_t)na, &k, &sum);
	TEST_EQ(k, 1);          /* a;b, not a itself */
	TEST_EQ(sum, 3);
	lp_stacks_clear(s);
	TEST_EQ(lp_stacks_nodes(s), 1);
	TEST_EQ(lp_stacks_stacks(s), 0);
	TEST_EQ(path(s, "x"), 1);
	lp_stacks_free(s);
}

struct seen {
	char text[4096];
	size_t len;
	int n;
};

static int gather(void *ctx, uint32_t node, const char *text, size_t len, uint64_t count)
{
	struct seen *x = ctx;
	(void)node;
	x->len += (size_t)snprintf(x->text + x->len, sizeof x->text - x->len, "%.*s=%d|", (int)len,
				   text, (int)count);
	x->n++;
	return 0;
}

/* The sorted walk gives the texts as strcmp orders them, names that are
 * prefixes of one another and empty names included. */
static void sorted(void)
{
	static const char *const stacks[] = {
		"a;ab:c", "ab", "a", "a;", ";", "", "a:b", "ab;c", "a;ab;x", "a;ab", "\xff;x", "a b",
	};
	struct lp_stacks *s = lp_stacks_new();
	for (size_t i = 0; i < sizeof stacks / sizeof *stacks; i++)
		TEST_EQ(lp_stacks_add(s, (uint32_t)path(s, stacks[i]), i + 1), 0);
	struct seen x = { .len = 0 };
	struct lp_buf text = { 0 };
	TEST_EQ(lp_stacks_sorted(s, LP_STACKS_ROOT, gather, &x, &text), 0);
	TEST_EQ(x.n, 12);
	TEST_STREQ(x.text, "=6|;=5|a=3|a b=12|a:b=7|a;=4|a;ab=10|a;ab:c=1|a;ab;x=9|ab=2|ab;c=8|"
			   "\xff;x=11|");
	lp_buf_free(&text);
	/* below a node: the texts without its names */
	struct seen y = { .len = 0 };
	TEST_EQ(lp_stacks_sorted(s, (uint32_t)path(s, "a"), gather, &y, &text), 0);
	TEST_STREQ(y.text, "=4|ab=10|ab:c=1|ab;x=9|");
	lp_buf_free(&text);
	lp_stacks_free(s);
}

TEST_MAIN("stacks", TEST_CASE(tree), TEST_CASE(sorted))
