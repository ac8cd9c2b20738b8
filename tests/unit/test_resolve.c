/*
 * test_resolve.c - lp_resolver end to end: a process model fed with MMAP2
 * records (this process's own /proc/self/maps, and a program compiled at
 * test time), then user, vDSO, libc and kernel addresses resolved; cache
 * invalidation on map changes; throughput with and without the frame cache.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>

#include "test.h"
#include "luaprof/proc.h"
#include "luaprof/record.h"
#include "luaprof/sym.h"
#include "sym/sym_int.h"

#define PID 4242u

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void mmap2(struct lp_procs *ps, uint32_t pid, uint64_t start, uint64_t end,
		  uint64_t pgoff, uint32_t maj, uint32_t min, uint64_t ino, const char *path)
{
	struct lp_record r = { .type = PERF_RECORD_MMAP2 };

	r.u.mmap = (struct lp_mmap){ .pid = pid, .tid = pid, .start = start,
				     .len = end - start, .pgoff = pgoff, .maj = maj,
				     .min = min, .ino = ino, .prot = 5, .filename = path };
	TEST_EQ(lp_procs_apply(ps, &r), 0);
}

/* Feeds this process's maps to ps as process pid, each shift bytes
 * higher. */
static void load_maps_as(struct lp_procs *ps, uint32_t pid, uint64_t shift)
{
	char line[512], path[256];
	uint64_t start, end, off, ino;
	unsigned maj, min;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof line, f)) {
		path[0] = '\0';
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64 " %x:%x %" SCNu64 " %255[^\n]",
			   &start, &end, &off, &maj, &min, &ino, path) < 6)
			continue;
		mmap2(ps, pid, start + shift, end + shift, off, maj, min, ino,
		      path[0] ? path : "//anon");
	}
	if (f)
		fclose(f);
}

/* Feeds this process's maps to ps as process PID. */
static void load_self_maps(struct lp_procs *ps)
{
	load_maps_as(ps, PID, 0);
}

static __attribute__((noinline)) int local_marker(int x)
{
	volatile int v = x;
	for (int i = 0; i < 8; i++)
		v += i;
	return v;
}

static void test_self(void)
{
	struct lp_procs *ps = lp_procs_new();
	struct lp_resolver *r = lp_resolver_new(ps, NULL);
	struct lp_frame fr;

	load_self_maps(ps);
	struct lp_proc *p = lp_procs_thread(ps, PID, PID)->proc;
	uint64_t ip = (uintptr_t)local_marker;

	/* a static function of this executable (.symtab) */
	TEST_EQ(lp_resolver_frame(r, p, ip + 2, false, &fr), 0);
	TEST_STREQ(fr.sym, "local_marker");
	TEST_EQ_U64(fr.symoff, 2);
	TEST_EQ_U64(fr.ip, ip + 2);
	TEST_TRUE(fr.dso && strstr(fr.dso, "test_resolve"));
	TEST_TRUE(!fr.kernel);

	/* libc through .dynsym */
	void *gp = dlsym(RTLD_DEFAULT, "getpid");
	TEST_EQ(lp_resolver_frame(r, p, (uintptr_t)gp, false, &fr), 0);
	TEST_TRUE(fr.sym && strstr(fr.sym, "getpid"));
	TEST_EQ_U64(fr.symoff, 0);
	TEST_TRUE(fr.dso && strstr(fr.dso, "libc"));

	/* the vDSO, named as the map is */
	void *h = dlopen("linux-vdso.so.1", RTLD_NOLOAD | RTLD_LAZY);
	void *cg = h ? dlvsym(h, "__vdso_clock_gettime", "LINUX_2.6") : NULL;
	TEST_TRUE(cg != NULL);
	TEST_EQ(lp_resolver_frame(r, p, (uintptr_t)cg + 4, false, &fr), 0);
	TEST_STREQ(fr.sym, "__vdso_clock_gettime");
	TEST_EQ_U64(fr.symoff, 4);
	TEST_STREQ(fr.dso, "[vdso]");

	/* an anonymous map: named as perf names it, after the JIT perf map
	 * that would name its code, no symbol; no map at all: nothing */
	int *heap = malloc(64);
	mmap2(ps, PID, 0x10000, 0x20000, 0, 0, 0, 0, "//anon");
	TEST_EQ(lp_resolver_frame(r, p, 0x10010, false, &fr), 0);
	TEST_TRUE(fr.sym == NULL);
	TEST_STREQ(fr.dso, "/tmp/perf-4242.map");
	TEST_EQ(lp_resolver_frame(r, p, 0x8, false, &fr), 0);
	TEST_TRUE(fr.sym == NULL && fr.dso == NULL);
	TEST_EQ(lp_resolver_frame(r, NULL, ip, false, &fr), 0);
	TEST_TRUE(fr.sym == NULL && fr.dso == NULL && fr.ip == ip);
	free(heap);
	lp_resolver_free(r);
	lp_procs_free(ps);
}

static char tmpdir[64];


static const char prog_src[] =
	"#include <stdio.h>\n#include <stdint.h>\n"
	"__attribute__((noinline)) int lp_one(int x)\n"
	"{ volatile int v = x; for (int i = 0; i < 10; i++) v += i * x; return v; }\n"
	"__attribute__((noinline)) int lp_two(int x)\n"
	"{ volatile int v = x; for (int i = 0; i < 20; i++) v ^= i + x; return v; }\n"
	"static void show(const char *name, uintptr_t a)\n"
	"{\n"
	"  FILE *f = fopen(\"/proc/self/maps\", \"r\"); char line[512];\n"
	"  unsigned long s, e, off;\n"
	"  while (fgets(line, sizeof line, f))\n"
	"    if (sscanf(line, \"%lx-%lx %*s %lx\", &s, &e, &off) == 3 && a >= s && a < e) break;\n"
	"  fclose(f);\n"
	"  printf(\"%s %lx %lx %lx %lx\\n\", name, (unsigned long)a, s, e, off);\n"
	"}\n"
	"int main(void)\n"
	"{\n"
	"  show(\"lp_one\", (uintptr_t)lp_one);\n"
	"  show(\"lp_two\", (uintptr_t)lp_two);\n"
	"  return (lp_one(1) + lp_two(2)) & 0;\n"
	"}\n";

struct pos { char name[32]; uint64_t addr, start, end, off; };

/* Compiles and runs the program (flags: PIE or not); fills pos[2]. */
static const char *build_and_run(const char *flags, struct pos *pos)
{
	static char bin[128];
	char src[128];

	if (!tmpdir[0]) {
		strcpy(tmpdir, "/tmp/lp_symtest_XXXXXX");
		TEST_TRUE(mkdtemp(tmpdir) != NULL);
	}
	snprintf(src, sizeof src, "%s/prog.c", tmpdir);
	snprintf(bin, sizeof bin, "%s/prog", tmpdir);
	FILE *f = fopen(src, "w");
	fputs(prog_src, f);
	fclose(f);
	TEST_EQ(sh("cc -O1 -g %s -o %s %s", flags, bin, src), 0);
	FILE *p = popen(bin, "r");
	for (int i = 0; i < 2; i++)
		TEST_EQ(fscanf(p, "%31s %" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64, pos[i].name,
			       &pos[i].addr, &pos[i].start, &pos[i].end, &pos[i].off), 5);
	TEST_EQ(pclose(p), 0);
	return bin;
}

static void check_program(const char *flags)
{
	struct pos pos[2];
	const char *bin = build_and_run(flags, pos);
	struct stat st;
	struct lp_procs *ps = lp_procs_new();
	struct lp_resolver *r = lp_resolver_new(ps, NULL);
	struct lp_frame fr;

	TEST_EQ(stat(bin, &st), 0);
	for (int i = 0; i < 2; i++)
		mmap2(ps, PID, pos[i].start, pos[i].end, pos[i].off, major(st.st_dev),
		      minor(st.st_dev), st.st_ino, bin);
	struct lp_proc *p = lp_procs_thread(ps, PID, PID)->proc;
	for (int i = 0; i < 2; i++) {
		TEST_EQ(lp_resolver_frame(r, p, pos[i].addr, false, &fr), 0);
		TEST_STREQ(fr.sym, pos[i].name);
		TEST_EQ_U64(fr.symoff, 0);
		TEST_STREQ(fr.dso, bin);
		TEST_EQ(lp_resolver_frame(r, p, pos[i].addr + 5, false, &fr), 0);
		TEST_STREQ(fr.sym, pos[i].name);
		TEST_EQ_U64(fr.symoff, 5);
	}
	lp_resolver_free(r);
	lp_procs_free(ps);
	sh("rm -rf %s", tmpdir);
}

static void test_program_pie(void)
{
	check_program("-fPIE -pie");
}

static void test_program_nopie(void)
{
	check_program("-fno-PIE -no-pie");
}

/* A new map at the same address (maps generation bumped) is seen at once
 * even though the old result is cached. */
static void test_cache_invalidation(void)
{
	struct lp_procs *ps = lp_procs_new();
	struct lp_resolver *r = lp_resolver_new(ps, NULL);
	struct lp_frame fr;

	load_self_maps(ps);
	struct lp_proc *p = lp_procs_thread(ps, PID, PID)->proc;
	uint64_t ip = (uintptr_t)local_marker;
	TEST_EQ(lp_resolver_frame(r, p, ip, false, &fr), 0);
	TEST_EQ(lp_resolver_frame(r, p, ip, false, &fr), 0);
	TEST_STREQ(fr.sym, "local_marker");
	uint64_t hits, misses;
	lp_resolver_cache_stats(r, &hits, &misses);
	TEST_EQ(hits, 1);
	TEST_EQ(misses, 1);
	mmap2(ps, PID, ip & ~0xfffull, (ip & ~0xfffull) + 0x1000, 0, 0, 0, 0, "//anon");
	TEST_EQ(lp_resolver_frame(r, p, ip, false, &fr), 0);
	TEST_TRUE(fr.sym == NULL);
	TEST_STREQ(fr.dso, "/tmp/perf-4242.map");
	lp_resolver_free(r);
	lp_procs_free(ps);
}

/* lp_resolver_frame_uncached names a frame as lp_resolver_frame does,
 * and neither counts in the caches' stats nor fills them: the next
 * cached lookup of the same address is a miss. */
static void test_uncached(void)
{
	struct lp_procs *ps = lp_procs_new();
	struct lp_resolver *r = lp_resolver_new(ps, NULL);
	struct lp_frame a, b;
	uint64_t hits, misses;

	load_self_maps(ps);
	struct lp_proc *p = lp_procs_thread(ps, PID, PID)->proc;
	uint64_t ip = (uintptr_t)local_marker + 4, lib = (uintptr_t)strlen;
	TEST_EQ(lp_resolver_frame_uncached(r, p, ip, false, &a), 0);
	TEST_EQ(lp_resolver_frame_uncached(r, p, ip, false, &a), 0);
	lp_resolver_cache_stats(r, &hits, &misses);
	TEST_EQ(hits + misses, 0);
	TEST_EQ(lp_resolver_frame(r, p, ip, false, &b), 0);
	lp_resolver_cache_stats(r, &hits, &misses);
	TEST_EQ(hits, 0);
	TEST_EQ(misses, 1);
	TEST_STREQ(a.sym, "local_marker");
	TEST_TRUE(a.sym == b.sym && a.dso == b.dso && a.symoff == b.symoff && a.obj == b.obj &&
		  a.vaddr == b.vaddr && a.fileoff == b.fileoff && a.ip == b.ip);
	TEST_EQ(lp_resolver_frame_uncached(r, p, lib, false, &a), 0);
	TEST_EQ(lp_resolver_frame(r, p, lib, false, &b), 0);
	TEST_TRUE(a.sym && a.sym == b.sym && a.dso == b.dso && a.symoff == b.symoff);
	lp_resolver_free(r);
	lp_procs_free(ps);
}

static const char *write_kallsyms(const char *text)
{
	static char path[64];

	strcpy(path, "/tmp/lp_kallsyms_XXXXXX");
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

static void test_kernel_frames(void)
{
	const char *ks = write_kallsyms("ffffffff81000000 T _stext\n"
					"ffffffff81000100 T do_work\n"
					"ffffffffc0001000 t mod_fn\t[mymod]\n");
	struct lp_resolver *r = lp_resolver_new(NULL, ks);
	struct lp_frame fr;

	TEST_EQ(lp_resolver_frame(r, NULL, 0xffffffff81000123ull, true, &fr), 0);
	TEST_STREQ(fr.sym, "do_work");
	TEST_EQ_U64(fr.symoff, 0x23);
	TEST_STREQ(fr.dso, "[kernel.kallsyms]");
	TEST_TRUE(fr.kernel);
	TEST_EQ(lp_resolver_frame(r, NULL, 0xffffffffc0001008ull, true, &fr), 0);
	TEST_STREQ(fr.sym, "mod_fn");
	TEST_STREQ(fr.dso, "[mymod]");
	TEST_EQ(lp_resolver_frame(r, NULL, 0xffffffffa0000000ull, true, &fr), 0);
	TEST_TRUE(fr.sym == NULL);
	TEST_STREQ(fr.dso, "[kernel.kallsyms]");
	/* a user address in kernel mode: in none of perf's kernel maps */
	TEST_EQ(lp_resolver_frame(r, NULL, 0x564527cebe00ull, true, &fr), 0);
	TEST_TRUE(fr.sym == NULL);
	TEST_TRUE(fr.dso == NULL);
	TEST_TRUE(!lp_resolver_kernel_hidden(r));
	lp_resolver_free(r);
	unlink(ks);

	ks = write_kallsyms("0000000000000000 T _stext\n0000000000000000 T do_work\n");
	r = lp_resolver_new(NULL, ks);
	TEST_TRUE(!lp_resolver_kernel_hidden(r));       /* not asked yet */
	TEST_EQ(lp_resolver_frame(r, NULL, 0xffffffff81000123ull, true, &fr), 0);
	TEST_TRUE(fr.sym == NULL);
	TEST_STREQ(fr.dso, "[kernel.kallsyms]");
	TEST_TRUE(lp_resolver_kernel_hidden(r));
	lp_resolver_free(r);
	unlink(ks);

	r = lp_resolver_new(NULL, "/nonexistent/kallsyms");
	TEST_EQ(lp_resolver_frame(r, NULL, 0xffffffff81000123ull, true, &fr), 0);
	TEST_TRUE(fr.sym == NULL);
	TEST_STREQ(fr.dso, "[kernel.kallsyms]");
	lp_resolver_free(r);
}

/* Whether every address of f's span (sampled: both ends, and 256 between)
 * resolves as f does, in p: the same symbol, object, dso, kind; the
 * offsets moving with the address.  And whether the span holds f.ip. */
static bool span_named_alike(struct lp_resolver *r, const struct lp_proc *p, bool kernel,
			     const struct lp_frame *f)
{
	if (!(f->same_lo <= f->ip && f->ip < f->same_hi))
		return false;
	uint64_t len = f->same_hi - f->same_lo, step = len / 256 ? len / 256 : 1;
	for (uint64_t d = 0; d < len; d = d + step < d ? len : d + step) {
		for (int end = 0; end < 2; end++) {
			uint64_t at = end ? f->same_hi - 1 - d : f->same_lo + d;
			struct lp_frame g;
			if (lp_resolver_frame_uncached(r, p, at, kernel, &g) || g.sym != f->sym ||
			    g.mangled != f->mangled || g.dso != f->dso || g.obj != f->obj ||
			    g.object != f->object || (f->sym && g.symoff - f->symoff != at - f->ip) ||
			    (f->obj && g.vaddr - f->vaddr != at - f->ip) ||
			    (f->fileoff && g.fileoff - f->fileoff != at - f->ip))
				return false;
		}
	}
	return true;
}

/* lp_resolver_frame_uncached tells the addresses around a frame named
 * alike (lp_frame.same_lo, same_hi): a function of this program, one of
 * libc, a data object, a kernel symbol, and an address of the kernel's
 * with no symbol.  Every address of each span is named as the frame. */
static int data_object = 7;
static void test_same_span(void)
{
	struct lp_procs *ps = lp_procs_new();
	struct lp_resolver *r = lp_resolver_new(ps, NULL);
	struct lp_frame f;

	load_self_maps(ps);
	struct lp_proc *p = lp_procs_thread(ps, PID, PID)->proc;
	const uint64_t ips[] = { (uintptr_t)local_marker + 4, (uintptr_t)strlen + 1,
				 (uintptr_t)&data_object };
	for (size_t i = 0; i < sizeof ips / sizeof *ips; i++) {
		TEST_EQ(lp_resolver_frame_uncached(r, p, ips[i], false, &f), 0);
		TEST_TRUE(f.sym != NULL);
		TEST_TRUE(span_named_alike(r, p, false, &f));
	}
	TEST_TRUE(f.object);            /* the data object's */
	TEST_STREQ(f.sym, "data_object");
	TEST_TRUE(f.same_hi - f.same_lo <= sizeof data_object);
	TEST_EQ(lp_resolver_frame_uncached(r, p, (uintptr_t)local_marker, false, &f), 0);
	TEST_TRUE(f.same_lo == (uintptr_t)local_marker);        /* starts with it */
	/* a cached frame's span is not known */
	TEST_EQ(lp_resolver_frame(r, p, ips[0], false, &f), 0);
	TEST_EQ(lp_resolver_frame(r, p, ips[0], false, &f), 0);
	TEST_TRUE(f.same_lo == f.same_hi);
	lp_resolver_free(r);
	lp_procs_free(ps);

	const char *ks = write_kallsyms("ffffffff81000000 T _stext\n"
					"ffffffff81000100 T do_work\n"
					"ffffffff81000400 T more\n");
	r = lp_resolver_new(NULL, ks);
	TEST_EQ(lp_resolver_frame_uncached(r, NULL, 0xffffffff81000123ull, true, &f), 0);
	TEST_STREQ(f.sym, "do_work");
	TEST_EQ_U64(f.same_lo, 0xffffffff81000100ull);
	TEST_EQ_U64(f.same_hi, 0xffffffff81000400ull);
	TEST_TRUE(span_named_alike(r, NULL, true, &f));
	TEST_EQ(lp_resolver_frame_uncached(r, NULL, 0xffffffff80000000ull, true, &f), 0);
	TEST_TRUE(f.sym == NULL);       /* before the first symbol: none */
	TEST_EQ_U64(f.same_hi, 0xffffffff81000000ull);
	TEST_TRUE(span_named_alike(r, NULL, true, &f));
	lp_resolver_free(r);
	unlink(ks);
}

/* A data object's frame found by file and offset (the resolver's second
 * cache: another process mapping the same file elsewhere) is a data
 * object's as when it was resolved (named NAME+0xOFF by reports). */
static void test_object_by_file(void)
{
	struct lp_procs *ps = lp_procs_new();
	struct lp_resolver *r = lp_resolver_new(ps, NULL);
	struct lp_frame f;

	load_self_maps(ps);
	struct lp_proc *p = lp_procs_thread(ps, PID, PID)->proc;
	load_maps_as(ps, PID + 1, 0x100000000ull);      /* another process of it */
	struct lp_proc *q = lp_procs_thread(ps, PID + 1, PID + 1)->proc;
	TEST_EQ(lp_resolver_frame(r, p, (uintptr_t)&data_object, false, &f), 0);
	TEST_EQ(lp_resolver_frame(r, q, (uintptr_t)&data_object + 0x100000000ull, false, &f), 0);
	TEST_STREQ(f.sym, "data_object");
	TEST_TRUE(f.object);
	lp_resolver_free(r);
	lp_procs_free(ps);
}

/* A replay's kernel addresses: in [kernel.kallsyms] when the recording's
 * kernel maps (pid -1) hold them, named or not; outside them, named only
 * by a symbol of the kernel's own (perf's kernel map reaches to its last
 * symbol: the init text after _etext), and else in no object, as perf
 * finds no map for them (a BPF program's, recorded without its KSYMBOL
 * records) and drops the symbols of modules it has no map of.  Without
 * kernel maps (a live run) every kernel address is the kernel's. */
static void test_kernel_outside_maps(void)
{
	const char *ks = write_kallsyms("ffffffff81000000 T _stext\n"
					"ffffffff81000100 T do_work\n"
					"ffffffff81fff000 T _etext\n"
					"ffffffff83000000 T start_kernel\n"
					"ffffffffc0001000 t mod_fn\t[mymod]\n"
					"ffffffffc0025c00 t bpf_prog_6deef7357e7b4530_sys_enter\t[bpf]\n");
	struct lp_procs *ps = lp_procs_new();
	struct lp_resolver *r = lp_resolver_new(ps, ks);
	struct lp_frame f;

	mmap2(ps, UINT32_MAX, 0xffffffff80fff000ull, 0xffffffff81fff000ull, 0xffffffff80fff000ull,
	      0, 0, 0, "[kernel.kallsyms]_text");
	TEST_EQ(lp_resolver_frame(r, NULL, 0xffffffff81000123ull, true, &f), 0);
	TEST_STREQ(f.sym, "do_work");
	TEST_STREQ(f.dso, "[kernel.kallsyms]");
	TEST_EQ(lp_resolver_frame_uncached(r, NULL, 0xffffffffc0025dc6ull, true, &f), 0);
	TEST_TRUE(f.sym == NULL && f.dso == NULL && f.same_lo == f.same_hi);
	TEST_EQ(lp_resolver_frame_uncached(r, NULL, 0xffffffffc0025c10ull, true, &f), 0);
	TEST_TRUE(f.sym == NULL && f.dso == NULL);      /* [bpf]: no map */
	TEST_EQ(lp_resolver_frame_uncached(r, NULL, 0xffffffff80fff800ull, true, &f), 0);
	TEST_TRUE(f.sym == NULL);
	TEST_STREQ(f.dso, "[kernel.kallsyms]");
	TEST_EQ_U64(f.same_lo, 0xffffffff80fff000ull);  /* within the map */
	TEST_EQ_U64(f.same_hi, 0xffffffff81000000ull);
	TEST_EQ(lp_resolver_frame(r, NULL, 0xffffffff83000010ull, true, &f), 0);
	TEST_STREQ(f.sym, "start_kernel");              /* init text, past the map */
	TEST_STREQ(f.dso, "[kernel.kallsyms]");
	TEST_EQ(lp_resolver_frame(r, NULL, 0xffffffffc0001008ull, true, &f), 0);
	TEST_TRUE(f.sym == NULL && f.dso == NULL);      /* a module with no map */
	mmap2(ps, UINT32_MAX, 0xffffffffc0001000ull, 0xffffffffc0002000ull, 0, 0, 0, 0, "[mymod]");
	TEST_EQ(lp_resolver_frame(r, NULL, 0xffffffffc0001008ull, true, &f), 0);
	TEST_STREQ(f.sym, "mod_fn");                    /* the map came: the cache knows */
	TEST_STREQ(f.dso, "[mymod]");
	lp_resolver_free(r);
	lp_procs_free(ps);

	r = lp_resolver_new(NULL, ks);
	TEST_EQ(lp_resolver_frame(r, NULL, 0xffffffffc0035dc6ull, true, &f), 0);
	TEST_TRUE(f.sym == NULL);
	TEST_STREQ(f.dso, "[kernel.kallsyms]");
	TEST_EQ(lp_resolver_frame(r, NULL, 0xffffffffc0025c10ull, true, &f), 0);
	TEST_STREQ(f.sym, "bpf_prog_6deef7357e7b4530_sys_enter");
	lp_resolver_free(r);
	unlink(ks);
}

static void ksymbol(struct lp_procs *ps, uint64_t addr, uint32_t len, bool unregister,
		    const char *name)
{
	struct lp_record r = { .type = PERF_RECORD_KSYMBOL };
	r.u.ksymbol = (struct lp_ksymbol){
		.addr = addr, .len = len, .type = PERF_RECORD_KSYMBOL_TYPE_BPF,
		.flags = unregister ? PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER : 0, .name = name };
	TEST_EQ(lp_procs_apply(ps, &r), 0);
}

/* A BPF program's code, registered by a KSYMBOL record: named after it,
 * symbol and object, as perf does, whatever kallsyms says there; gone
 * when unregistered, and another program loaded at its address later is
 * named anew (the cached frames of the first are not reused), in a
 * process's frames as in the resolver's own cache. */
static void test_ksymbol_frames(void)
{
	const char *ks = write_kallsyms("ffffffff81000000 T _stext\n"
					"ffffffff81000100 T do_work\n"
					"ffffffffc0025c00 t bpf_prog_00_stale\t[bpf]\n");
	struct lp_procs *ps = lp_procs_new();
	struct lp_resolver *r = lp_resolver_new(ps, ks);
	struct lp_frame f;
	const uint64_t at = 0xffffffffc0025c2cull;

	mmap2(ps, UINT32_MAX, 0xffffffff81000000ull, 0xffffffff82000000ull, 0xffffffff81000000ull,
	      0, 0, 0, "[kernel.kallsyms]_text");
	ksymbol(ps, at, 203, false, "bpf_prog_dc34e3a3c38e9c25_sched_wakeup");
	TEST_EQ(lp_resolver_frame(r, NULL, at + 0x46, true, &f), 0);
	TEST_STREQ(f.sym, "bpf_prog_dc34e3a3c38e9c25_sched_wakeup");
	TEST_STREQ(f.dso, "bpf_prog_dc34e3a3c38e9c25_sched_wakeup");
	TEST_EQ_U64(f.symoff, 0x46);
	TEST_EQ_U64(f.same_lo, at);
	TEST_EQ_U64(f.same_hi, at + 203);
	TEST_EQ(lp_resolver_frame(r, NULL, at + 203, true, &f), 0);
	TEST_TRUE(f.sym == NULL && f.dso == NULL);

	ksymbol(ps, at, 203, true, "bpf_prog_dc34e3a3c38e9c25_sched_wakeup");
	TEST_EQ(lp_resolver_frame(r, NULL, at + 0x46, true, &f), 0);
	TEST_TRUE(f.sym == NULL && f.dso == NULL);
	ksymbol(ps, at, 64, false, "bpf_prog_59f4a931744dcdc6_ksys_read");
	TEST_EQ(lp_resolver_frame(r, NULL, at + 0x10, true, &f), 0);
	TEST_STREQ(f.sym, "bpf_prog_59f4a931744dcdc6_ksys_read");
	TEST_EQ_U64(f.symoff, 0x10);
	lp_resolver_free(r);
	lp_procs_free(ps);
	unlink(ks);
}

static void test_real_kallsyms(void)
{
	uint64_t sched = kallsyms_addr("schedule");
	struct lp_resolver *r = lp_resolver_new(NULL, NULL);
	struct lp_frame fr;
	TEST_EQ(lp_resolver_frame(r, NULL, sched + 1, true, &fr), 0);
	if (lp_resolver_kernel_hidden(r) || !sched) {
		fprintf(stderr, "  info: kallsyms hidden; skipped\n");
	} else {
		TEST_STREQ(fr.sym, "schedule");
		TEST_EQ_U64(fr.symoff, 1);
		TEST_STREQ(fr.dso, "[kernel.kallsyms]");
	}
	lp_resolver_free(r);
}

/* Lookups per second over a sequence of ips, and how many resolved. */
static double bench(struct lp_resolver *r, const struct lp_proc *p, const uint32_t *seq,
		    size_t n, const uint64_t *ips, size_t *resolved)
{
	struct lp_frame fr;
	double t0 = now();

	*resolved = 0;
	for (size_t i = 0; i < n; i++) {
		lp_resolver_frame(r, p, ips[seq[i]], false, &fr);
		*resolved += fr.sym != NULL;
	}
	return (double)n / (now() - t0);
}

/* Runs seq with the cache off then on; both must agree. */
static void bench_pair(struct lp_resolver *r, const struct lp_proc *p, const char *what,
		       const uint32_t *seq, size_t n, const uint64_t *ips)
{
	size_t res_off, res_on;
	uint64_t h0, m0, h1, m1;

	lp_resolver_set_cache(r, false);
	double off = bench(r, p, seq, n, ips, &res_off);
	lp_resolver_set_cache(r, true);
	lp_resolver_cache_stats(r, &h0, &m0);
	double on = bench(r, p, seq, n, ips, &res_on);
	lp_resolver_cache_stats(r, &h1, &m1);
	TEST_EQ(res_on, res_off);
	TEST_TRUE(res_on > 0);
	fprintf(stderr, "  info: %s: %.1f M lookups/s uncached, %.1f M/s cached "
		"(%.0f%% hits, %.0f%% with a symbol)\n", what, off / 1e6, on / 1e6,
		100.0 * (double)(h1 - h0) / (double)n, 100.0 * (double)res_on / (double)n);
}

static void test_throughput(void)
{
	struct lp_procs *ps = lp_procs_new();
	struct lp_resolver *r = lp_resolver_new(ps, NULL);
	enum { NIPS = 20000, N = 2000000 };
	static uint64_t ips[NIPS];
	static uint32_t seq[N];
	unsigned seed = 1;
	size_t dummy;

	load_self_maps(ps);
	struct lp_proc *p = lp_procs_thread(ps, PID, PID)->proc;
	const struct lp_map *m = lp_proc_find_map(p, (uintptr_t)dlsym(RTLD_DEFAULT, "getpid"));
	TEST_TRUE(m != NULL);
	if (!m)
		return;
	for (size_t i = 0; i < NIPS; i++)       /* spread over libc's text */
		ips[i] = m->start + (m->end - m->start) * i / NIPS + (i % 13);
	for (size_t i = 0; i < NIPS; i++)
		seq[i] = (uint32_t)i;
	bench(r, p, seq, NIPS, ips, &dummy);    /* warm: opens the objects */

	for (size_t i = 0; i < N; i++)          /* uniform over 2000 ips */
		seq[i] = (uint32_t)(rand_r(&seed) % 2000);
	bench_pair(r, p, "uniform over 2000 libc ips", seq, N, ips);
	for (size_t i = 0; i < N; i++)          /* 90% on 256 hot ips, 10% over 20000 */
		seq[i] = (uint32_t)(rand_r(&seed) % 10 ? rand_r(&seed) % 256 * 64
						       : rand_r(&seed) % NIPS);
	bench_pair(r, p, "90% on 256 hot ips", seq, N, ips);
	lp_resolver_free(r);
	lp_procs_free(ps);
}

TEST_MAIN("resolve",
	TEST_CASE(test_uncached),
	TEST_CASE(test_self),
	TEST_CASE(test_program_pie),
	TEST_CASE(test_program_nopie),
	TEST_CASE(test_cache_invalidation),
	TEST_CASE(test_kernel_frames),
	TEST_CASE(test_same_span),
	TEST_CASE(test_object_by_file),
	TEST_CASE(test_kernel_outside_maps),
	TEST_CASE(test_ksymbol_frames),
	TEST_CASE(test_real_kallsyms),
	TEST_CASE(test_throughput))
