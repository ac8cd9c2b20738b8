/* test_proc.c - the process model driven by synthetic records: maps that
 * overlap, fork copying maps, exec dropping them, threads sharing them. */
#include <errno.h>

#include "luaprof/proc.h"
#include "luaprof/record.h"
#include "test.h"

static struct lp_record mmap_rec(uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
				 const char *path)
{
	struct lp_record r = { .type = PERF_RECORD_MMAP2 };
	r.u.mmap = (struct lp_mmap){ .pid = pid, .tid = pid, .start = start, .len = len,
				     .pgoff = pgoff, .filename = path };
	return r;
}

static struct lp_record task_rec(uint32_t type, uint32_t pid, uint32_t ppid, uint32_t tid,
				 uint32_t ptid)
{
	struct lp_record r = { .type = type };
	r.u.task = (struct lp_task){ .pid = pid, .ppid = ppid, .tid = tid, .ptid = ptid };
	return r;
}

static struct lp_record comm_rec(uint32_t pid, uint32_t tid, const char *comm, bool exec)
{
	struct lp_record r = { .type = PERF_RECORD_COMM };
	r.u.comm = (struct lp_comm){ .pid = pid, .tid = tid, .comm = comm, .exec = exec };
	return r;
}

static void apply(struct lp_procs *ps, struct lp_record r)
{
	TEST_EQ(lp_procs_apply(ps, &r), 0);
}

static void maps_lookup_and_overlap(void)
{
	struct lp_procs *ps = lp_procs_new();
	apply(ps, mmap_rec(10, 0x1000, 0x3000, 0, "/a"));
	apply(ps, mmap_rec(10, 0x8000, 0x1000, 0, "/c"));
	apply(ps, mmap_rec(10, 0x2000, 0x1000, 0x500, "/b"));     /* splits /a */
	struct lp_proc *p = lp_procs_thread(ps, 10, 10)->proc;
	TEST_EQ(p->nr_maps, 4);
	TEST_STREQ(lp_proc_find_map(p, 0x1fff)->path, "/a");
	TEST_STREQ(lp_proc_find_map(p, 0x2000)->path, "/b");
	const struct lp_map *tail = lp_proc_find_map(p, 0x3000);
	TEST_STREQ(tail->path, "/a");
	TEST_EQ_U64(tail->pgoff, 0x2000);       /* the split keeps file offsets right */
	TEST_TRUE(lp_proc_find_map(p, 0x4000) == NULL);
	TEST_TRUE(lp_proc_find_map(p, 0xfff) == NULL);
	apply(ps, mmap_rec(10, 0x0, 0x10000, 0, "/all"));        /* covers everything */
	TEST_EQ(p->nr_maps, 1);
	TEST_STREQ(lp_proc_find_map(p, 0x8000)->path, "/all");
	lp_procs_free(ps);
}

static void fork_thread_and_exec(void)
{
	struct lp_procs *ps = lp_procs_new();
	apply(ps, comm_rec(20, 20, "parent", true));
	apply(ps, mmap_rec(20, 0x1000, 0x1000, 0, "/bin/parent"));
	apply(ps, task_rec(PERF_RECORD_FORK, 20, 20, 21, 20));      /* a thread */
	apply(ps, task_rec(PERF_RECORD_FORK, 30, 20, 30, 20));      /* a child process */
	struct lp_thread *t = lp_procs_find(ps, 21), *c = lp_procs_find(ps, 30);
	TEST_TRUE(t && c);
	TEST_TRUE(t->proc == lp_procs_find(ps, 20)->proc);
	TEST_TRUE(c->proc != t->proc);
	TEST_STREQ(c->comm, "parent");
	TEST_STREQ(lp_proc_find_map(c->proc, 0x1000)->path, "/bin/parent");
	apply(ps, comm_rec(30, 30, "child", true));                  /* exec */
	apply(ps, mmap_rec(30, 0x5000, 0x1000, 0, "/bin/child"));
	TEST_STREQ(c->comm, "child");
	TEST_TRUE(lp_proc_find_map(c->proc, 0x1000) == NULL);
	TEST_STREQ(lp_proc_find_map(c->proc, 0x5000)->path, "/bin/child");
	TEST_STREQ(lp_proc_find_map(t->proc, 0x1000)->path, "/bin/parent");
	apply(ps, task_rec(PERF_RECORD_EXIT, 30, 20, 30, 20));
	TEST_TRUE(c->exited);
	TEST_STREQ(lp_proc_find_map(c->proc, 0x5000)->path, "/bin/child");  /* kept */
	lp_procs_free(ps);
}

static void unknown_threads_and_many(void)
{
	struct lp_procs *ps = lp_procs_new();
	struct lp_thread *t = lp_procs_thread(ps, 7, 8);
	TEST_STREQ(t->comm, ":8");
	for (uint32_t i = 1000; i < 6000; i++)
		TEST_TRUE(lp_procs_thread(ps, i, i) != NULL);
	for (uint32_t i = 1000; i < 6000; i += 499)
		TEST_EQ(lp_procs_find(ps, i)->tid, i);
	TEST_TRUE(lp_procs_find(ps, 8) == t);
	TEST_TRUE(lp_procs_find(ps, 999) == NULL);
	lp_procs_free(ps);
}

static void synthesize_self(void)
{
	struct lp_procs *ps = lp_procs_new();
	TEST_EQ(lp_procs_synthesize(ps, getpid(), true), 0);
	struct lp_thread *t = lp_procs_find(ps, (uint32_t)getpid());
	TEST_TRUE(t != NULL);
	TEST_STREQ(t->comm, "test_proc");
	const struct lp_map *m = lp_proc_find_map(t->proc, (uint64_t)(uintptr_t)&synthesize_self);
	TEST_TRUE(m && strstr(m->path, "test_proc"));
	TEST_EQ(lp_procs_synthesize(ps, 0x3fffff, true), -ESRCH);
	lp_procs_free(ps);
}

TEST_MAIN("proc", TEST_CASE(maps_lookup_and_overlap), TEST_CASE(fork_thread_and_exec),
	  TEST_CASE(unknown_threads_and_many), TEST_CASE(synthesize_self))
