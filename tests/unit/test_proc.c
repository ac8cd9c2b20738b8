/* test_proc.c - the process model driven by synthetic records: maps that
 * overlap, fork copying maps, exec dropping them, threads sharing them; and
 * the records a /proc scan makes of a live process (this one). */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/prctl.h>

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

static struct lp_record ksymbol_rec(uint64_t addr, uint32_t len, bool unregister, const char *name)
{
	struct lp_record r = { .type = PERF_RECORD_KSYMBOL };
	r.u.ksymbol = (struct lp_ksymbol){
		.addr = addr, .len = len, .type = PERF_RECORD_KSYMBOL_TYPE_BPF,
		.flags = unregister ? PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER : 0, .name = name };
	return r;
}

/* KSYMBOL records add kernel maps named after their symbol and remove
 * them again; the kernel text stays whatever is unregistered in it.
 * Every change of the kernel's maps changes every process's gen. */
static void ksymbol_maps(void)
{
	struct lp_procs *ps = lp_procs_new();
	struct lp_proc *k = lp_procs_kernel(ps);
	apply(ps, mmap_rec(UINT32_MAX, 0xffffffff81000000ull, 0x1000000, 0xffffffff81000000ull,
			   "[kernel.kallsyms]_text"));
	struct lp_proc *p = lp_procs_thread(ps, 10, 10)->proc;
	uint32_t gen = p->gen, kgen = k->gen;
	apply(ps, ksymbol_rec(0xffffffffc0025c2cull, 203, false, "bpf_prog_dc34_sched_wakeup"));
	TEST_TRUE(p->gen != gen && k->gen != kgen);
	const struct lp_map *m = lp_proc_find_map(k, 0xffffffffc0025c2cull + 202);
	TEST_TRUE(m && m->ksymbol);
	TEST_STREQ(m->path, "bpf_prog_dc34_sched_wakeup");
	TEST_EQ_U64(m->start, 0xffffffffc0025c2cull);
	TEST_TRUE(lp_proc_find_map(k, 0xffffffffc0025c2cull + 203) == NULL);
	TEST_TRUE(!lp_proc_find_map(k, 0xffffffff81000100ull)->ksymbol);

	/* a second program where the first was: it replaces what it covers */
	apply(ps, ksymbol_rec(0xffffffffc0025c00ull, 0x40, false, "bpf_prog_ab_other"));
	TEST_STREQ(lp_proc_find_map(k, 0xffffffffc0025c2cull)->path, "bpf_prog_ab_other");
	m = lp_proc_find_map(k, 0xffffffffc0025c40ull);
	TEST_TRUE(m != NULL);
	if (m)
		TEST_STREQ(m->path, "bpf_prog_dc34_sched_wakeup");
	TEST_EQ(k->nr_maps, 3);

	gen = p->gen;
	apply(ps, ksymbol_rec(0xffffffffc0025c00ull, 0x40, true, "bpf_prog_ab_other"));
	TEST_TRUE(lp_proc_find_map(k, 0xffffffffc0025c2cull) == NULL);
	TEST_TRUE(p->gen != gen);
	apply(ps, ksymbol_rec(0xffffffff81000100ull, 0x10, true, "no_such_prog"));
	TEST_TRUE(lp_proc_find_map(k, 0xffffffff81000100ull) != NULL);  /* the text stays */
	apply(ps, ksymbol_rec(0xffffffffc0030000ull, 0, false, "empty"));
	apply(ps, ksymbol_rec(UINT64_MAX - 4, 16, false, "wraps"));
	TEST_EQ(k->nr_maps, 2);         /* the text and what is left of the first */

	/* a kernel MMAP changes the processes' gens too */
	gen = p->gen;
	apply(ps, mmap_rec(UINT32_MAX, 0xffffffffa0000000ull, 0x2000, 0, "[mymod]"));
	TEST_TRUE(p->gen != gen);
	lp_procs_free(ps);
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
	/* kept, as perf keeps it: a sample still in execve after the COMM has
	 * the old image's addresses */
	TEST_STREQ(lp_proc_find_map(c->proc, 0x1000)->path, "/bin/parent");
	TEST_STREQ(lp_proc_find_map(c->proc, 0x5000)->path, "/bin/child");
	TEST_STREQ(lp_proc_find_map(t->proc, 0x1000)->path, "/bin/parent");
	apply(ps, task_rec(PERF_RECORD_EXIT, 30, 20, 30, 20));
	TEST_TRUE(c->exited);
	TEST_STREQ(lp_proc_find_map(c->proc, 0x5000)->path, "/bin/child");  /* kept */
	lp_procs_free(ps);
}

/* A fork from a process that has no maps yet (a damaged recording: the
 * fuzzer's armv7 file) copies nothing: it once passed a NULL array to
 * memcpy, which UBSan reports. */
static void fork_from_mapless_parent(void)
{
	struct lp_procs *ps = lp_procs_new();
	apply(ps, comm_rec(40, 40, "bare", false));
	apply(ps, task_rec(PERF_RECORD_FORK, 41, 40, 41, 40));
	struct lp_thread *c = lp_procs_find(ps, 41);
	TEST_TRUE(c && c->proc && c->proc->nr_maps == 0);
	TEST_TRUE(lp_proc_find_map(c->proc, 0x1000) == NULL);
	lp_procs_free(ps);
}

/* perf's synthesized forks (FORK_EXEC) do not copy the parent's maps: the
 * child's own MMAPs follow. */
static void fork_exec_keeps_maps_apart(void)
{
	struct lp_procs *ps = lp_procs_new();
	apply(ps, mmap_rec(20, 0x1000, 0x1000, 0, "/bin/parent"));
	struct lp_record f = task_rec(PERF_RECORD_FORK, 30, 20, 30, 20);
	f.misc = PERF_RECORD_MISC_FORK_EXEC;
	apply(ps, f);
	struct lp_thread *c = lp_procs_find(ps, 30);
	TEST_TRUE(c && c->proc != lp_procs_find(ps, 20)->proc);
	TEST_EQ(c->proc->nr_maps, 0);
	lp_procs_free(ps);
}

static void unknown_threads_and_many(void)
{
	struct lp_procs *ps = lp_procs_new();
	struct lp_thread *t = lp_procs_thread(ps, 7, 8);
	TEST_STREQ(t->comm, ":8");
	TEST_STREQ(lp_procs_thread(ps, 0, 0)->comm, "swapper");     /* the idle task, as perf */
	/* an exiting task's samples carry pid/tid -1: perf names it ":-1" */
	TEST_STREQ(lp_procs_thread(ps, UINT32_MAX, UINT32_MAX)->comm, ":-1");
	for (uint32_t i = 1000; i < 6000; i++)
		TEST_TRUE(lp_procs_thread(ps, i, i) != NULL);
	for (uint32_t i = 1000; i < 6000; i += 499)
		TEST_EQ(lp_procs_find(ps, i)->tid, i);
	TEST_TRUE(lp_procs_find(ps, 8) == t);
	TEST_TRUE(lp_procs_find(ps, 999) == NULL);
	lp_procs_free(ps);
}

static struct lp_record sample_rec(uint16_t cpumode, uint32_t pid, uint32_t tid, uint64_t ip)
{
	struct lp_record r = { .type = PERF_RECORD_SAMPLE, .misc = cpumode };
	r.u.sample.pid = pid;
	r.u.sample.tid = tid;
	r.u.sample.ip = ip;
	return r;
}

/* lp_procs_hit: the first sample in a map returns it, later ones NULL; the
 * flag survives splits and fork copies; unknown threads of a known process
 * use its maps; kernel samples use the kernel's maps; guest samples none. */
static void hits_mark_maps(void)
{
	struct lp_procs *ps = lp_procs_new();
	apply(ps, mmap_rec(40, 0x1000, 0x4000, 0, "/bin/prog"));
	apply(ps, mmap_rec(40, 0x9000, 0x1000, 0, "/lib/libidle.so"));
	struct lp_record r = sample_rec(PERF_RECORD_MISC_USER, 40, 40, 0x1800);
	const struct lp_map *m = lp_procs_hit(ps, &r);
	TEST_STREQ(m ? m->path : NULL, "/bin/prog");
	TEST_TRUE(m && m->hit);
	TEST_TRUE(lp_procs_hit(ps, &r) == NULL);
	r.u.sample.ip = 0x4fff;                                   /* same map */
	TEST_TRUE(lp_procs_hit(ps, &r) == NULL);
	r.u.sample.ip = 0x8000;                                   /* no map */
	TEST_TRUE(lp_procs_hit(ps, &r) == NULL);
	struct lp_proc *p = lp_procs_find(ps, 40)->proc;
	TEST_TRUE(!lp_proc_find_map(p, 0x9000)->hit);
	apply(ps, mmap_rec(40, 0x2000, 0x1000, 0, "/anon"));      /* splits /bin/prog */
	TEST_TRUE(lp_proc_find_map(p, 0x1000)->hit && lp_proc_find_map(p, 0x3000)->hit);
	TEST_TRUE(!lp_proc_find_map(p, 0x2000)->hit);
	apply(ps, task_rec(PERF_RECORD_FORK, 41, 40, 41, 40));     /* copies the flags */
	r = sample_rec(PERF_RECORD_MISC_USER, 41, 41, 0x1000);
	TEST_TRUE(lp_procs_hit(ps, &r) == NULL);
	r = sample_rec(PERF_RECORD_MISC_USER, 40, 47, 0x9010);    /* unknown thread of 40 */
	m = lp_procs_hit(ps, &r);
	TEST_STREQ(m ? m->path : NULL, "/lib/libidle.so");
	TEST_TRUE(lp_procs_find(ps, 47) == NULL);                 /* nothing created */
	r = sample_rec(PERF_RECORD_MISC_USER, 50, 50, 0x1000);    /* unknown process */
	TEST_TRUE(lp_procs_hit(ps, &r) == NULL);
	struct lp_record k = mmap_rec(UINT32_MAX, 0xffffffff81000000ull, 0x1000000, 0,
				      "[kernel.kallsyms]_text");
	apply(ps, k);
	r = sample_rec(PERF_RECORD_MISC_KERNEL, 40, 40, 0x1000);  /* a user address */
	TEST_TRUE(lp_procs_hit(ps, &r) == NULL);
	r = sample_rec(PERF_RECORD_MISC_GUEST_KERNEL, 0, 0, 0xffffffff81000100ull);
	TEST_TRUE(lp_procs_hit(ps, &r) == NULL);
	r = sample_rec(PERF_RECORD_MISC_KERNEL, 0, 0, 0xffffffff81000100ull);
	m = lp_procs_hit(ps, &r);
	TEST_STREQ(m ? m->path : NULL, "[kernel.kallsyms]_text");
	TEST_TRUE(lp_procs_hit(ps, &r) == NULL);
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

/* Records of this process, with a second thread named "scanned". */
struct scanned {
	struct lp_record r[512];
	char comm[512][16];
	char path[512][PATH_MAX];
	int n;
};

static int keep(const struct lp_record *r, void *arg)
{
	struct scanned *s = arg;
	if (s->n == 512)
		return -E2BIG;
	s->r[s->n] = *r;
	if (r->type == PERF_RECORD_COMM) {
		snprintf(s->comm[s->n], sizeof s->comm[0], "%s", r->u.comm.comm);
		s->r[s->n].u.comm.comm = s->comm[s->n];
	} else if (r->type == PERF_RECORD_MMAP2) {
		snprintf(s->path[s->n], sizeof s->path[0], "%s", r->u.mmap.filename);
		s->r[s->n].u.mmap.filename = s->path[s->n];
	}
	s->n++;
	return 0;
}

static pthread_barrier_t named, done;

static void *named_thread(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "scanned");
	pthread_barrier_wait(&named);
	pthread_barrier_wait(&done);
	return NULL;
}

/* The main thread's FORK (from our parent) and COMM, its executable maps,
 * then the other thread's FORK (from the main thread) and COMM. */
static void check_scan(const struct scanned *s, uint32_t pid)
{
	TEST_TRUE(s->n >= 6);
	TEST_EQ(s->r[0].type, PERF_RECORD_FORK);
	TEST_EQ(s->r[0].misc, PERF_RECORD_MISC_FORK_EXEC);
	TEST_EQ(s->r[0].u.task.pid, pid);
	TEST_EQ(s->r[0].u.task.tid, pid);
	TEST_EQ(s->r[0].u.task.ppid, getppid());
	TEST_EQ(s->r[1].type, PERF_RECORD_COMM);
	TEST_STREQ(s->r[1].u.comm.comm, "test_proc");
	int i = 2, self = 0;
	for (; i < s->n && s->r[i].type == PERF_RECORD_MMAP2; i++) {
		const struct lp_mmap *m = &s->r[i].u.mmap;
		TEST_TRUE(m->pid == pid && m->tid == pid && (m->prot & PROT_EXEC));
		TEST_EQ(s->r[i].misc, PERF_RECORD_MISC_USER);
		if (strstr(m->filename, "test_proc") && m->flags == MAP_PRIVATE && m->ino)
			self++;
	}
	TEST_EQ(self, 1);
	TEST_EQ(s->n, i + 2);
	TEST_EQ(s->r[i].type, PERF_RECORD_FORK);
	TEST_EQ(s->r[i].u.task.ppid, pid);
	TEST_EQ(s->r[i].u.task.ptid, pid);
	TEST_EQ(s->r[i + 1].type, PERF_RECORD_COMM);
	TEST_STREQ(s->r[i + 1].u.comm.comm, "scanned");
	TEST_EQ(s->r[i + 1].u.comm.tid, s->r[i].u.task.tid);
}

static void scan_self(void)
{
	static struct scanned s, quiet;
	pthread_t th;
	pthread_barrier_init(&named, NULL, 2);
	pthread_barrier_init(&done, NULL, 2);
	pthread_create(&th, NULL, named_thread, NULL);
	pthread_barrier_wait(&named);
	TEST_EQ(lp_procfs_scan(getpid(), LP_SCAN_MAPS | LP_SCAN_FORK, keep, &s), 0);
	TEST_EQ(lp_procfs_scan(getpid(), 0, keep, &quiet), 0);
	pthread_barrier_wait(&done);
	pthread_join(th, NULL);
	check_scan(&s, (uint32_t)getpid());
	TEST_EQ(quiet.n, 2);                    /* the two COMMs only */
	TEST_EQ(quiet.r[0].type + quiet.r[1].type, 2 * PERF_RECORD_COMM);
	s.n = 0;
	TEST_EQ(lp_procfs_scan(getpid(), 0, keep, &s), 0);
	TEST_EQ(s.n, 1);                        /* the thread has exited */
	TEST_EQ(lp_procfs_scan(0x3fffff, 0, keep, &s), -ESRCH);
}

/* Exited threads are kept LP_PROCS_EXIT_KEEP_NS on the records' clock,
 * then freed at a later EXIT with their process; a tid made live again by
 * a FORK is kept, and a thread that exits twice is aged from its last
 * EXIT.  Times are in tenths of the keep (10: LP_PROCS_EXIT_KEEP_NS). */
static struct lp_record exit_at(uint32_t pid, uint32_t tid, uint64_t tenths)
{
	struct lp_record r = task_rec(PERF_RECORD_EXIT, pid, pid, tid, tid);
	r.u.task.time = tenths * (LP_PROCS_EXIT_KEEP_NS / 10);
	return r;
}

static void exited_threads_freed(void)
{
	struct lp_procs *ps = lp_procs_new();
	apply(ps, task_rec(PERF_RECORD_FORK, 100, 1, 100, 1));
	apply(ps, mmap_rec(100, 0x1000, 0x1000, 0, "/bin/a"));
	apply(ps, task_rec(PERF_RECORD_FORK, 100, 100, 101, 100));
	apply(ps, task_rec(PERF_RECORD_FORK, 300, 1, 300, 1));
	apply(ps, task_rec(PERF_RECORD_FORK, 400, 1, 400, 1));
	apply(ps, exit_at(100, 101, 1));
	apply(ps, exit_at(300, 300, 1));
	apply(ps, exit_at(400, 400, 1));
	apply(ps, exit_at(100, 100, 2));
	apply(ps, task_rec(PERF_RECORD_FORK, 300, 1, 300, 1));    /* tid 300 again */
	apply(ps, task_rec(PERF_RECORD_FORK, 400, 1, 400, 1));
	apply(ps, exit_at(400, 400, 11));                          /* 400 exits again */
	apply(ps, exit_at(900, 900, 11));                          /* unknown: nothing */
	/* at 11: 101, 300, 400 (1) are a keep old: 101 goes, 100 (2) stays */
	TEST_TRUE(!lp_procs_find(ps, 101));
	struct lp_thread *t = lp_procs_find(ps, 100);
	TEST_TRUE(t && t->exited && t->proc && lp_proc_find_map(t->proc, 0x1800));
	TEST_TRUE(lp_procs_find(ps, 300) && !lp_procs_find(ps, 300)->exited);
	TEST_TRUE(lp_procs_find(ps, 400) && lp_procs_find(ps, 400)->exited);
	struct lp_thread *u = lp_procs_thread(ps, 500, 500);
	TEST_TRUE(u);
	apply(ps, exit_at(500, 500, 20));
	TEST_TRUE(!lp_procs_find(ps, 100));                       /* 2 + 10 <= 20 */
	TEST_TRUE(lp_procs_find(ps, 400));                        /* 11 + 10 > 20 */
	TEST_TRUE(lp_procs_find(ps, 300));
	apply(ps, exit_at(600, 600, 21));
	TEST_TRUE(!lp_procs_find(ps, 400));
	TEST_TRUE(lp_procs_find(ps, 500));
	/* a sample of a freed thread finds a new one, without the old maps */
	t = lp_procs_thread(ps, 100, 100);
	TEST_TRUE(t && !t->exited && t->proc && !lp_proc_find_map(t->proc, 0x1800));
	lp_procs_free(ps);
}

TEST_MAIN("proc", TEST_CASE(exited_threads_freed), TEST_CASE(maps_lookup_and_overlap), TEST_CASE(fork_thread_and_exec),
	  TEST_CASE(fork_exec_keeps_maps_apart), TEST_CASE(fork_from_mapless_parent), TEST_CASE(unknown_threads_and_many),
	  TEST_CASE(hits_mark_maps), TEST_CASE(synthesize_self), TEST_CASE(scan_self),
	  TEST_CASE(ksymbol_maps))
