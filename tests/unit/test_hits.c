/* test_hits.c - the set of objects samples landed in: one entry per object
 * (path, device, inode) however many processes and maps hit it, in
 * first-hit order, through many objects (the table grows). */
#include "luaprof/hits.h"
#include "luaprof/record.h"
#include "test.h"

static void mmap2(struct lp_procs *ps, uint32_t pid, uint64_t start, const char *path,
		  uint64_t ino)
{
	struct lp_record r = { .type = PERF_RECORD_MMAP2 };
	r.u.mmap = (struct lp_mmap){ .pid = pid, .tid = pid, .start = start, .len = 0x1000,
				     .maj = 8, .min = 1, .ino = ino, .filename = path };
	TEST_EQ(lp_procs_apply(ps, &r), 0);
}

static int sample(struct lp_hits *h, struct lp_procs *ps, uint32_t pid, uint64_t ip)
{
	struct lp_record r = { .type = PERF_RECORD_SAMPLE, .misc = PERF_RECORD_MISC_USER };
	r.u.sample.pid = r.u.sample.tid = pid;
	r.u.sample.ip = ip;
	return lp_hits_sample(h, ps, &r);
}

static void one_entry_per_object(void)
{
	struct lp_procs *ps = lp_procs_new();
	struct lp_hits *h = lp_hits_new();
	for (uint32_t pid = 10; pid < 13; pid++) {      /* three processes, same libc */
		mmap2(ps, pid, 0x1000, "/bin/a", 1);
		mmap2(ps, pid, 0x5000, "/lib/libc.so", 2);
		mmap2(ps, pid, 0x7000, "/lib/libc.so", 2);  /* a second map of it */
		mmap2(ps, pid, 0x9000, "/lib/idle.so", 3);
	}
	TEST_EQ(sample(h, ps, 10, 0x5010), 0);
	TEST_EQ(sample(h, ps, 11, 0x1010), 0);
	TEST_EQ(sample(h, ps, 11, 0x7010), 0);
	TEST_EQ(sample(h, ps, 12, 0x5010), 0);
	TEST_EQ(sample(h, ps, 12, 0x3000), 0);          /* unmapped */
	TEST_EQ(lp_hits_count(h), 2);
	TEST_STREQ(lp_hits_get(h, 0)->path, "/lib/libc.so");
	TEST_STREQ(lp_hits_get(h, 1)->path, "/bin/a");
	TEST_TRUE(lp_hits_get(h, 2) == NULL);
	mmap2(ps, 10, 0xb000, "/bin/a", 4);             /* the file replaced: new inode */
	TEST_EQ(sample(h, ps, 10, 0xb000), 0);
	TEST_EQ(lp_hits_count(h), 3);
	TEST_EQ_U64(lp_hits_get(h, 2)->ino, 4);
	lp_hits_free(h);
	lp_procs_free(ps);
}

static void many_objects(void)
{
	struct lp_procs *ps = lp_procs_new();
	struct lp_hits *h = lp_hits_new();
	char path[32];
	for (uint64_t i = 0; i < 1000; i++) {
		snprintf(path, sizeof path, "/lib/l%u.so", (unsigned)i);
		mmap2(ps, 20, 0x100000 + i * 0x1000, path, i);
	}
	for (int round = 0; round < 2; round++)
		for (uint64_t i = 0; i < 1000; i++)
			TEST_EQ(sample(h, ps, 20, 0x100000 + i * 0x1000 + 8), 0);
	TEST_EQ(lp_hits_count(h), 1000);
	for (uint64_t i = 0; i < 1000; i += 111) {
		snprintf(path, sizeof path, "/lib/l%u.so", (unsigned)i);
		TEST_STREQ(lp_hits_get(h, i)->path, path);
	}
	/* adding again what the set has changes nothing */
	TEST_EQ(lp_hits_add(h, lp_hits_get(h, 5)), 0);
	TEST_EQ(lp_hits_count(h), 1000);
	lp_hits_free(h);
	lp_hits_free(NULL);
	lp_procs_free(ps);
}

TEST_MAIN("hits", TEST_CASE(one_entry_per_object), TEST_CASE(many_objects))
