/*
 * test_buildid.c - recorded build-ids: comparison and hex, the running
 * kernel's from /sys/kernel/notes (against perf buildid-list -k), the
 * table by path, perf's build-id cache layout (filled by perf buildid-cache
 * itself), and lp_dsos / lp_resolver choosing files by build-id: a program
 * rebuilt in place goes unnamed with one warning, the cached copy names it,
 * the vDSO and the kernel are checked too.
 */
#include <errno.h>
#include <sys/stat.h>

#include "test.h"
#include "luaprof/luaprof.h"
#include "luaprof/proc.h"
#include "luaprof/sym.h"
#include "sym/sym_int.h"

static const char prog_src[] =
	"__attribute__((noinline)) int lp_marker(int x)\n"
	"{ volatile int v = x; for (int i = 0; i < 10; i++) v += i * x; return v; }\n"
	"int main(void) { return lp_marker(1) & 0; }\n";

/* Warnings the core logs, counted; the last one kept. */
static int nr_warn;
static char last_warn[512];

static void on_log(enum lp_log_level level, const char *msg, void *ctx)
{
	(void)ctx;
	if (level != LP_WARN)
		return;
	nr_warn++;
	snprintf(last_warn, sizeof last_warn, "%s", msg);
}

/* Compiles prog_src into path with extra linker flags. */
static void build(const char *path, const char *flags)
{
	const char *src = test_tmp("prog.c");
	FILE *f = fopen(src, "w");

	TEST_TRUE(f != NULL);
	if (!f)
		return;
	fputs(prog_src, f);
	fclose(f);
	TEST_EQ(sh("cc -O1 -g %s -o %s %s", flags, path, src), 0);
}

/* The build-id of the object at path, in bytes; its count. */
static size_t file_build_id(const char *path, uint8_t *id)
{
	struct lp_dso *d = lp_dso_open(path);
	const uint8_t *p;
	size_t n = d ? lp_dso_build_id(d, &p) : 0;

	if (n)
		memcpy(id, p, n);
	lp_dso_free(d);
	return n;
}

static bool has_sym(struct lp_dso *d, const char *name)
{
	const struct lp_symtab *t = lp_dso_symtab(d);

	for (size_t i = 0; i < lp_symtab_count(t); i++)
		if (!strcmp(lp_symtab_at(t, i)->name, name))
			return true;
	return false;
}

static struct lp_map file_map(const char *path)
{
	struct stat st;
	struct lp_map m = { .start = 0x1000, .end = 0x2000, .path = path };

	if (!stat(path, &st))
		m.ino = st.st_ino;
	return m;
}

static void test_equal_and_hex(void)
{
	uint8_t a[20] = { 0xab, 0x01, 0xff }, b[20] = { 0xab, 0x01, 0xff }, c[20] = { 0xab, 0x01 };
	char hex[41];

	TEST_TRUE(lp_build_id_equal(a, 20, b, 20));
	TEST_TRUE(lp_build_id_equal(a, 16, b, 16));
	TEST_TRUE(!lp_build_id_equal(a, 20, c, 20));
	/* an md5 (16-byte) id recorded without the size flag: padded to 20 */
	TEST_TRUE(lp_build_id_equal(a, 20, b, 16));
	a[18] = 1;
	TEST_TRUE(!lp_build_id_equal(a, 20, b, 16));
	TEST_TRUE(!lp_build_id_equal(a, 16, b, 20));
	TEST_TRUE(!lp_build_id_equal(a, 0, b, 0));
	TEST_TRUE(!lp_build_id_equal(a, 19, b, 16));    /* padding is only ever to 20 */
	TEST_STREQ(lp_build_id_hex(b, 3, hex), "ab01ff");
	TEST_EQ(strlen(lp_build_id_hex(b, 64, hex)), 40);
	TEST_STREQ(lp_build_id_hex(b, 0, hex), "");
}

static void test_kernel_notes(void)
{
	uint8_t id[20];
	char hex[41], want[64] = "";
	size_t n = lp_kernel_build_id("/sys/kernel/notes", id, sizeof id);
	FILE *p = popen("perf buildid-list -k 2>/dev/null", "r");

	if (p && !fgets(want, sizeof want, p))
		want[0] = '\0';
	if (p)
		pclose(p);
	want[strcspn(want, "\n")] = '\0';
	if (!want[0]) {
		fprintf(stderr, "  info: perf buildid-list -k gave nothing; notes not compared\n");
	} else {
		TEST_STREQ(lp_build_id_hex(id, n, hex), want);
	}
	/* A notes file of two notes, the build-id second, names padded. */
	static const unsigned char notes[] = {
		6, 0, 0, 0, 4, 0, 0, 0, 1, 1, 0, 0, 'L', 'i', 'n', 'u', 'x', 0, 0, 0, 9, 9, 9, 9,
		4, 0, 0, 0, 3, 0, 0, 0, 3, 0, 0, 0, 'G', 'N', 'U', 0, 0xde, 0xad, 0xbe, 0,
	};
	FILE *f = fopen(test_tmp("notes"), "w");
	TEST_TRUE(f && fwrite(notes, sizeof notes, 1, f) == 1);
	if (f)
		fclose(f);
	TEST_EQ(lp_kernel_build_id(test_tmp("notes"), id, sizeof id), 3);
	TEST_STREQ(lp_build_id_hex(id, 3, hex), "deadbe");
	/* cut inside the second note: nothing */
	TEST_EQ(truncate(test_tmp("notes"), sizeof notes - 2), 0);
	TEST_EQ(lp_kernel_build_id(test_tmp("notes"), id, sizeof id), 0);
	TEST_EQ(lp_kernel_build_id("/nonexistent/notes", id, sizeof id), 0);
	test_tmp_cleanup();
}

static void test_bidtab(void)
{
	struct lp_bidtab *t = lp_bidtab_new();
	uint8_t one[20] = { 1 }, two[20] = { 2 };
	char p[64];

	for (int i = 0; i < 100; i++) {
		snprintf(p, sizeof p, "/lib/lib%03d.so", 99 - i);
		one[1] = (uint8_t)i;
		TEST_EQ(lp_bidtab_add(t, p, one, 20), 0);
	}
	TEST_EQ(lp_bidtab_add(t, "/lib/lib042.so", two, 16), 0);     /* the last one wins */
	TEST_EQ(lp_bidtab_count(t), 100);
	struct lp_bid_want *w = lp_bidtab_find(t, "/lib/lib042.so");
	TEST_TRUE(w && w->size == 16 && w->id[0] == 2);
	w = lp_bidtab_find(t, "/lib/lib000.so");
	TEST_TRUE(w && w->size == 20 && w->id[1] == 99);
	TEST_TRUE(lp_bidtab_find(t, "/lib/lib100.so") == NULL);
	TEST_TRUE(lp_bidtab_find(t, "") == NULL);
	TEST_EQ(lp_bidtab_add(t, "/x", one, 0), -EINVAL);
	TEST_EQ(lp_bidtab_add(t, "/x", one, 21), -EINVAL);
	TEST_EQ(lp_bidtab_add(t, NULL, one, 20), -EINVAL);
	TEST_EQ(lp_bidtab_count(t), 100);
	lp_bidtab_free(t);
	lp_bidtab_free(NULL);
}

static void test_cache_layout(void)
{
	const char *prog = test_tmp("cached_prog");
	uint8_t id[64];
	char path[4096], want[4096], hex[41];

	build(prog, "");
	size_t n = file_build_id(prog, id);
	TEST_EQ(n, 20);
	lp_build_id_hex(id, n, hex);
	setenv("HOME", test_tmp("home"), 1);
	unsetenv("PERF_BUILDID_DIR");
	TEST_EQ(sh("mkdir -p %s && perf buildid-cache -a %s", test_tmp("home"), prog), 0);
	TEST_TRUE(lp_build_id_cache_file(id, n, "elf", 0, path, sizeof path));
	snprintf(want, sizeof want, "%s/.debug/.build-id/%.2s/%s/elf", test_tmp("home"), hex, hex + 2);
	TEST_STREQ(path, want);
	struct stat st;
	TEST_TRUE(stat(path, &st) == 0 && S_ISREG(st.st_mode));
	TEST_TRUE(!lp_build_id_cache_file(id, n, "elf", 1, path, sizeof path));
	/* $PERF_BUILDID_DIR first, then ~/.debug; the old layout: a link to the file */
	setenv("PERF_BUILDID_DIR", test_tmp("bd"), 1);
	TEST_EQ(sh("mkdir -p %s/.build-id/%.2s && ln -s %s %s/.build-id/%.2s/%s",
		   test_tmp("bd"), hex, prog, test_tmp("bd"), hex, hex + 2), 0);
	TEST_TRUE(lp_build_id_cache_file(id, n, "elf", 0, path, sizeof path));
	snprintf(want, sizeof want, "%s/.build-id/%.2s/%s", test_tmp("bd"), hex, hex + 2);
	TEST_STREQ(path, want);
	TEST_TRUE(lp_build_id_cache_file(id, n, "elf", 1, path, sizeof path));
	TEST_TRUE(strstr(path, "/home/.debug/.build-id/") != NULL);
	TEST_TRUE(!lp_build_id_cache_file(id, n, "elf", 2, path, sizeof path));
	/* the same directory twice is tried once */
	snprintf(want, sizeof want, "%s/.debug", test_tmp("home"));
	setenv("PERF_BUILDID_DIR", want, 1);
	TEST_TRUE(!lp_build_id_cache_file(id, n, "elf", 1, path, sizeof path));
	unsetenv("PERF_BUILDID_DIR");
	unsetenv("HOME");
	TEST_TRUE(!lp_build_id_cache_file(id, n, "elf", 0, path, sizeof path));
	test_tmp_cleanup();
}

/* A program rebuilt in place: the recorded build-id is no longer on disk. */
static void test_rebuilt_unnamed(void)
{
	const char *prog = test_tmp("prog");
	uint8_t old[64], now[64];

	setenv("HOME", test_tmp("emptyhome"), 1);
	unsetenv("PERF_BUILDID_DIR");
	lp_log_set_hook(on_log, NULL);
	build(prog, "");
	size_t on = file_build_id(prog, old);
	build(prog, "-Wl,--build-id=0x1234567890abcdef1234567890abcdef12345678");
	size_t nn = file_build_id(prog, now);
	TEST_EQ(on, 20);
	TEST_EQ(nn, 20);
	TEST_TRUE(memcmp(old, now, 20) != 0);

	struct lp_dsos *c = lp_dsos_new();
	TEST_EQ(lp_dsos_expect_build_id(c, prog, old, on), 0);
	struct lp_map m = file_map(prog), m2 = file_map(prog);
	m2.ino++;               /* another key for the same path */
	const char *name = NULL;
	struct lp_dso *d = (struct lp_dso *)1;
	TEST_EQ(lp_dsos_lookup(c, &m, &d, &name), 0);
	TEST_TRUE(d == NULL);
	TEST_STREQ(name, prog);         /* still named by its path */
	TEST_TRUE(lp_dsos_get(c, &m2) == NULL);
	TEST_EQ(nr_warn, 1);            /* once per object, not per lookup */
	char oh[41], nh[41];
	lp_build_id_hex(old, on, oh);
	lp_build_id_hex(now, nn, nh);
	TEST_TRUE(strstr(last_warn, prog) == last_warn);
	TEST_TRUE(strstr(last_warn, oh) && strstr(last_warn, nh));
	TEST_TRUE(strstr(last_warn, "left unnamed") != NULL);
	lp_dsos_free(c);

	/* The build-id on disk recorded: opened by path as ever. */
	c = lp_dsos_new();
	TEST_EQ(lp_dsos_expect_build_id(c, prog, now, nn), 0);
	d = lp_dsos_get(c, &m);
	TEST_TRUE(d && has_sym(d, "lp_marker"));
	TEST_STREQ(d ? lp_dso_path(d) : NULL, prog);
	/* An id of zeros is perf's "none": the path is read as it is. */
	struct lp_dsos *z = lp_dsos_new();
	uint8_t zeros[20] = { 0 };
	TEST_EQ(lp_dsos_expect_build_id(z, prog, zeros, 20), 0);
	TEST_TRUE(lp_dsos_get(z, &m) != NULL);
	TEST_EQ(nr_warn, 1);
	lp_dsos_free(z);
	/* A missing file with a recorded build-id: unnamed, one warning. */
	struct lp_map gone = file_map(test_tmp("gone"));
	TEST_EQ(lp_dsos_expect_build_id(c, gone.path, now, nn), 0);
	TEST_TRUE(lp_dsos_get(c, &gone) == NULL);
	TEST_EQ(nr_warn, 2);
	TEST_TRUE(strstr(last_warn, "no file with it") != NULL);
	lp_dsos_free(c);
	test_tmp_cleanup();
}

/* perf's build-id cache has the recorded copy: it is read instead. */
static void test_cache_names(void)
{
	const char *prog = test_tmp("prog"), *home = test_tmp("home");
	uint8_t old[64];

	setenv("HOME", home, 1);
	unsetenv("PERF_BUILDID_DIR");
	lp_log_set_hook(on_log, NULL);
	build(prog, "");
	size_t on = file_build_id(prog, old);
	TEST_EQ(sh("mkdir -p %s && perf buildid-cache -a %s", home, prog), 0);
	build(prog, "-Wl,--build-id=0x1234567890abcdef1234567890abcdef12345678");

	struct lp_dsos *c = lp_dsos_new();
	TEST_EQ(lp_dsos_expect_build_id(c, prog, old, on), 0);
	struct lp_map m = file_map(prog);
	struct lp_dso *d = lp_dsos_get(c, &m);
	TEST_TRUE(d != NULL);
	TEST_TRUE(d && strstr(lp_dso_path(d), "/.debug/.build-id/") != NULL);
	TEST_TRUE(d && has_sym(d, "lp_marker"));
	TEST_EQ(nr_warn, 0);
	lp_dsos_free(c);

	/* A stripped object cached with its debug file beside it: .symtab
	 * from the cache's "debug". */
	const char *full = test_tmp("full"), *stripped = test_tmp("stripped");
	uint8_t sid[64];
	char hex[41];
	build(full, "-Wl,--build-id=0x00112233445566778899aabbccddeeff00112233");
	TEST_EQ(sh("strip -o %s %s", stripped, full), 0);
	size_t sn = file_build_id(stripped, sid);
	lp_build_id_hex(sid, sn, hex);
	TEST_EQ(sh("perf buildid-cache -a %s && objcopy --only-keep-debug %s "
		   "%s/.debug/.build-id/%.2s/%s/debug", stripped, full, home, hex, hex + 2), 0);
	TEST_EQ(sh("rm %s", stripped), 0);
	c = lp_dsos_new();
	TEST_EQ(lp_dsos_expect_build_id(c, stripped, sid, sn), 0);
	struct lp_map ms = file_map(stripped);
	d = lp_dsos_get(c, &ms);
	TEST_TRUE(d && has_sym(d, "lp_marker"));
	TEST_TRUE(d && lp_dso_has_symtab(d));
	TEST_EQ(nr_warn, 0);
	lp_dsos_free(c);
	test_tmp_cleanup();
}

static void test_vdso(void)
{
	struct lp_dsos *c = lp_dsos_new();
	struct lp_map m = { .start = 0x1000, .end = 0x3000, .path = "[vdso]" };
	struct lp_dso *mine = lp_dsos_get(c, &m);
	const uint8_t *id;
	size_t n = mine ? lp_dso_build_id(mine, &id) : 0;
	uint8_t mine_id[20] = { 0 }, other[20] = { 0x55 };

	setenv("HOME", test_tmp("emptyhome"), 1);
	unsetenv("PERF_BUILDID_DIR");
	lp_log_set_hook(on_log, NULL);
	TEST_TRUE(n > 0 && n <= 20);
	if (!n) {
		lp_dsos_free(c);
		return;
	}
	memcpy(mine_id, id, n);
	lp_dsos_free(c);
	c = lp_dsos_new();
	TEST_EQ(lp_dsos_expect_build_id(c, "[vdso]", mine_id, n), 0);
	TEST_TRUE(lp_dsos_get(c, &m) != NULL);
	lp_dsos_free(c);
	c = lp_dsos_new();
	TEST_EQ(lp_dsos_expect_build_id(c, "[vdso]", other, 20), 0);
	TEST_TRUE(lp_dsos_get(c, &m) == NULL);
	TEST_EQ(nr_warn, 1);
	TEST_TRUE(strstr(last_warn, "[vdso]: build-id 55") == last_warn);
	TEST_TRUE(strstr(last_warn, "vDSO") != NULL);
	lp_dsos_free(c);
	test_tmp_cleanup();
}

/* The kernel's recorded build-id: checked against the running kernel, the
 * cached kallsyms used on a mismatch. */
static void test_kernel(void)
{
	uint64_t sched = kallsyms_addr("schedule");
	uint8_t run[20], other[20] = { 0x42 };
	size_t rn = lp_kernel_build_id("/sys/kernel/notes", run, sizeof run);
	struct lp_frame fr;
	char hex[41];

	if (!sched || !rn) {
		TEST_SKIP("no kernel build-id, or /proc/kallsyms hides addresses (kptr_restrict)");
	}
	setenv("HOME", test_tmp("home"), 1);
	unsetenv("PERF_BUILDID_DIR");
	lp_log_set_hook(on_log, NULL);
	struct lp_resolver *r = lp_resolver_new(NULL, NULL);
	TEST_EQ(lp_resolver_expect_build_id(r, "[kernel.kallsyms]", run, rn), 0);
	TEST_EQ(lp_resolver_frame(r, NULL, sched + 1, true, &fr), 0);
	TEST_STREQ(fr.sym, "schedule");
	lp_resolver_free(r);
	TEST_EQ(nr_warn, 0);

	r = lp_resolver_new(NULL, NULL);
	TEST_EQ(lp_resolver_expect_build_id(r, "[kernel.kallsyms]", other, 20), 0);
	TEST_EQ(lp_resolver_frame(r, NULL, sched + 1, true, &fr), 0);
	TEST_TRUE(fr.sym == NULL);
	TEST_STREQ(fr.dso, "[kernel.kallsyms]");
	TEST_EQ(lp_resolver_frame(r, NULL, sched + 2, true, &fr), 0);
	TEST_EQ(nr_warn, 1);
	TEST_TRUE(strstr(last_warn, "[kernel.kallsyms]: build-id 42") == last_warn);
	TEST_TRUE(strstr(last_warn, lp_build_id_hex(run, rn, hex)) != NULL);
	lp_resolver_free(r);

	/* The other kernel's kallsyms in the cache, as perf record keeps it. */
	lp_build_id_hex(other, 20, hex);
	TEST_EQ(sh("mkdir -p %s/.debug/.build-id/%.2s/%s && cp /proc/kallsyms "
		   "%s/.debug/.build-id/%.2s/%s/kallsyms", test_tmp("home"), hex, hex + 2,
		   test_tmp("home"), hex, hex + 2), 0);
	r = lp_resolver_new(NULL, NULL);
	TEST_EQ(lp_resolver_expect_build_id(r, "[kernel.kallsyms]", other, 20), 0);
	TEST_EQ(lp_resolver_frame(r, NULL, sched + 1, true, &fr), 0);
	TEST_STREQ(fr.sym, "schedule");
	TEST_EQ(nr_warn, 1);
	lp_resolver_free(r);
	test_tmp_cleanup();
}

TEST_MAIN("buildid",
	TEST_CASE(test_equal_and_hex),
	TEST_CASE(test_kernel_notes),
	TEST_CASE(test_bidtab),
	TEST_CASE(test_cache_layout),
	TEST_CASE(test_rebuilt_unnamed),
	TEST_CASE(test_cache_names),
	TEST_CASE(test_vdso),
	TEST_CASE(test_kernel))
