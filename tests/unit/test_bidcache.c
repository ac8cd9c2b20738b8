/*
 * test_bidcache.c - filling perf's build-id cache (lp_bidcache_add) in
 * perf 6.1's layout: the object hard-linked (copied across file systems),
 * its debug file, [vdso], the kernel's kallsyms, the relative .build-id
 * link; what is cached is skipped (a kallsyms copy older than this boot
 * is renewed), a file that is not the recorded one is
 * not cached, an unwritable cache says so.  Also the reference-symbol
 * lookup in kallsyms files (lp_kallsyms_lookup) and the choice of the
 * cached kallsyms on replay (lp_kallsyms_recorded).
 */
#include <errno.h>
#include <limits.h>
#include <sys/auxv.h>
#include <sys/stat.h>

#include "test.h"
#include "luaprof/luaprof.h"
#include "luaprof/proc.h"
#include "luaprof/sym.h"
#include "sym/sym_int.h"

/* A small program at path; its build-id into id, the count returned. */
static size_t build(const char *path, uint8_t *id)
{
	TEST_EQ(sh("echo 'int main(void) { return 0; }' | cc -x c -o %s -", path), 0);
	return lp_elf_build_id(path, id, 20);
}

/* The cache is dir (PERF_BUILDID_DIR), HOME elsewhere. */
static void use_cache(const char *dir)
{
	setenv("PERF_BUILDID_DIR", dir, 1);
	setenv("HOME", test_tmp("home"), 1);
}

/* DIR/.build-id/NN/REST for id, and the object file under it. */
static void cache_paths(const char *dir, const uint8_t *id, size_t n, const char *base,
			char *link, char *file)
{
	char hex[41];

	lp_build_id_hex(id, n, hex);
	snprintf(link, PATH_MAX, "%s/.build-id/%.2s/%s", dir, hex, hex + 2);
	if (snprintf(file, PATH_MAX, "%s/%s", link, base) >= PATH_MAX)
		abort();
}

static void test_elf_linked(void)
{
	const char *prog = test_tmp("prog"), *dir = test_tmp("cache");
	char link[PATH_MAX], file[PATH_MAX], target[PATH_MAX], want[PATH_MAX], hex[41];
	uint8_t id[20];
	size_t n = build(prog, id);
	struct stat st, sp;

	use_cache(dir);
	TEST_EQ(n, 20);
	TEST_EQ(lp_bidcache_add(prog, id, n), 1);
	cache_paths(dir, id, n, "elf", link, file);
	TEST_TRUE(stat(file, &st) == 0 && stat(prog, &sp) == 0);
	TEST_EQ(st.st_ino, sp.st_ino);                 /* a hard link */
	ssize_t len = readlink(link, target, sizeof target - 1);
	TEST_TRUE(len > 0);
	target[len > 0 ? len : 0] = '\0';
	snprintf(want, sizeof want, "../..%s/%s", prog, lp_build_id_hex(id, n, hex));
	TEST_STREQ(target, want);
	snprintf(want, sizeof want, "%s%s/%s/elf", dir, prog, hex);
	TEST_TRUE(stat(want, &st) == 0 && st.st_ino == sp.st_ino);
	mode_t mask = umask(022);
	umask(mask);
	TEST_TRUE(stat(dir, &st) == 0 && (st.st_mode & 0777) == (0755 & ~mask));
	/* cached: skipped; and the reader finds it */
	TEST_EQ(lp_bidcache_add(prog, id, n), 0);
	TEST_TRUE(lp_build_id_cache_file(id, n, "elf", 0, want, sizeof want));
	TEST_STREQ(want, file);
	test_tmp_cleanup();
}

static void test_not_the_recorded(void)
{
	const char *prog = test_tmp("prog"), *dir = test_tmp("cache");
	uint8_t id[20], other[20];
	size_t n = build(prog, id);
	char link[PATH_MAX], file[PATH_MAX];
	struct stat st;

	use_cache(dir);
	memcpy(other, id, sizeof other);
	other[0] ^= 0xff;
	TEST_EQ(lp_bidcache_add(prog, other, n), -ESTALE);
	cache_paths(dir, other, n, "elf", link, file);
	TEST_TRUE(lstat(link, &st) != 0);
	TEST_EQ(sh("test -z \"$(find %s -type f)\"", dir), 0);        /* nothing kept */
	TEST_EQ(lp_bidcache_add(test_tmp("gone"), id, n), -ESTALE);
	TEST_EQ(lp_bidcache_add(prog, id, 0), -EINVAL);
	TEST_EQ(lp_bidcache_add(prog, id, 21), -EINVAL);
	test_tmp_cleanup();
}

/* Across file systems (a cache on /dev/shm): a copy, mode 0755, renamed in. */
static void test_elf_copied(void)
{
	char dir[] = "/dev/shm/lp_bidcache_XXXXXX", link[PATH_MAX], file[PATH_MAX];
	const char *prog = test_tmp("prog");
	uint8_t id[20];
	size_t n = build(prog, id);
	struct stat st, sp;

	if (!mkdtemp(dir) || stat(dir, &st) || stat(prog, &sp) || st.st_dev == sp.st_dev) {
		if (dir[strlen(dir) - 1] != 'X')
			rmdir(dir);
		test_tmp_cleanup();
		TEST_SKIP("no second file system at /dev/shm: the copy across file systems is not checked");
	}
	use_cache(dir);
	TEST_EQ(lp_bidcache_add(prog, id, n), 1);
	cache_paths(dir, id, n, "elf", link, file);
	TEST_TRUE(stat(file, &st) == 0);
	TEST_EQ(st.st_nlink, 1);
	TEST_EQ(st.st_mode & 07777, 0755);
	TEST_EQ(sh("cmp -s %s %s", prog, file), 0);
	TEST_EQ(sh("test -z \"$(find %s -name 'elf.*')\"", dir), 0);  /* no temporary left */
	TEST_EQ(sh("rm -rf %s", dir), 0);
	test_tmp_cleanup();
}

/* The separate debug file, when the distribution installed one (libc6-dbg). */
static void test_debug_file(void)
{
	const char *libc = "/usr/lib/x86_64-linux-gnu/libc.so.6", *dir = test_tmp("cache");
	char dbg[PATH_MAX], link[PATH_MAX], file[PATH_MAX];
	uint8_t id[20];
	size_t n = lp_elf_build_id(libc, id, sizeof id);
	struct stat st, sd;

	use_cache(dir);                 /* empty: the debug file is the system's */
	if (!n || !lp_debug_file_find(NULL, NULL, id, n, dbg, sizeof dbg) || stat(dbg, &sd)) {
		test_tmp_cleanup();
		TEST_SKIP("no debug file for %s (install libc6-dbg)", libc);
	}
	TEST_EQ(lp_bidcache_add(libc, id, n), 1);
	cache_paths(dir, id, n, "debug", link, file);
	TEST_TRUE(stat(file, &st) == 0 && st.st_ino == sd.st_ino);
	test_tmp_cleanup();
}

static void test_vdso(void)
{
	struct lp_map m = { .start = 0x1000, .end = 0x3000, .path = "[vdso]" };
	uint8_t id[20], got[20];
	size_t n = lp_map_build_id(&m, id, sizeof id);
	char link[PATH_MAX], file[PATH_MAX];
	struct stat st;

	TEST_TRUE(n > 0 && n <= 20);
	use_cache(test_tmp("cache"));
	TEST_EQ(lp_bidcache_add("[vdso]", id, n), 1);
	cache_paths(test_tmp("cache"), id, n, "vdso", link, file);
	TEST_TRUE(stat(file, &st) == 0);
	TEST_EQ(st.st_mode & 07777, 0600);
	TEST_EQ(st.st_size, lp_dso_mem_size((const void *)getauxval(AT_SYSINFO_EHDR)));
	TEST_EQ(lp_elf_build_id(file, got, sizeof got), n);
	TEST_TRUE(!memcmp(got, id, n));
	TEST_EQ(lp_bidcache_add("[vdso]", id, n), 0);
	id[0] ^= 1;
	TEST_EQ(lp_bidcache_add("[vdso]", id, n), -ESTALE);
	test_tmp_cleanup();
}

static void test_kallsyms(void)
{
	static const char *const text[] = { "_text" };
	uint8_t run[20];
	size_t n = lp_kernel_build_id(NULL, run, sizeof run);
	uint64_t live, copy;
	char link[PATH_MAX], file[PATH_MAX];
	struct stat st;

	if (!n || lp_kallsyms_lookup("/proc/kallsyms", text, &live, 1) != 1) {
		TEST_SKIP("no kernel build-id, or /proc/kallsyms hides addresses (kptr_restrict)");
	}
	use_cache(test_tmp("cache"));
	TEST_EQ(lp_bidcache_add("[kernel.kallsyms]", run, n), 1);
	cache_paths(test_tmp("cache"), run, n, "kallsyms", link, file);
	TEST_TRUE(stat(file, &st) == 0 && st.st_size > 100000);
	TEST_EQ(st.st_mode & 07777, 0600);     /* the kernel's addresses: root's (perf: 0755) */
	TEST_TRUE(stat(link, &st) == 0 && (st.st_mode & 07777) == 0700);
	TEST_EQ(lp_kallsyms_lookup(file, text, &copy, 1), 1);
	TEST_EQ_U64(copy, live);
	TEST_EQ(lp_bidcache_add("[kernel.kallsyms]", run, n), 0);
	/* a copy from before this boot is written again (its addresses may be
	 * another boot's) */
	TEST_EQ(sh("touch -d 2000-01-01 %s", file), 0);
	TEST_EQ(lp_bidcache_add("[kernel.kallsyms]", run, n), 1);
	TEST_TRUE(stat(file, &st) == 0 && lp_since_boot(&st));
	run[0] ^= 1;            /* not the running kernel's: nothing to copy */
	TEST_EQ(lp_bidcache_add("[kernel.kallsyms]", run, n), -ESTALE);
	test_tmp_cleanup();
}

static void test_unwritable(void)
{
	const char *prog = test_tmp("prog");
	char dir[PATH_MAX];
	uint8_t id[20];
	size_t n = build(prog, id);

	TEST_EQ(sh("touch %s", test_tmp("file")), 0);
	snprintf(dir, sizeof dir, "%s/.debug", test_tmp("file"));
	use_cache(dir);
	TEST_EQ(lp_bidcache_add(prog, id, n), -ENOTDIR);
	unsetenv("PERF_BUILDID_DIR");
	unsetenv("HOME");
	TEST_TRUE(!lp_bidcache_dir(dir, sizeof dir));
	TEST_EQ(lp_bidcache_add(prog, id, n), -ENOENT);
	/* HOME alone: HOME/.debug */
	setenv("HOME", test_tmp("h"), 1);
	TEST_TRUE(lp_bidcache_dir(dir, sizeof dir));
	TEST_TRUE(strstr(dir, "/h/.debug") != NULL);
	TEST_EQ(lp_bidcache_add(prog, id, n), 1);
	test_tmp_cleanup();
}

/* A dangling .build-id link (its object deleted) is replaced. */
static void test_dangling_link(void)
{
	const char *prog = test_tmp("prog"), *dir = test_tmp("cache");
	char link[PATH_MAX], file[PATH_MAX];
	uint8_t id[20];
	size_t n = build(prog, id);
	struct stat st;

	use_cache(dir);
	TEST_EQ(lp_bidcache_add(prog, id, n), 1);
	cache_paths(dir, id, n, "elf", link, file);
	TEST_EQ(unlink(file), 0);
	TEST_EQ(lp_bidcache_add(prog, id, n), 1);
	TEST_TRUE(stat(file, &st) == 0);
	test_tmp_cleanup();
}

static void test_lookup(void)
{
	static const char *const names[] = { "_text", "_stext", "zero", "_etext", "absent" };
	uint64_t a[5];
	FILE *f = fopen(test_tmp("ks"), "w");
	char longname[3000];

	TEST_TRUE(f != NULL);
	if (!f)
		return;
	memset(longname, 'x', sizeof longname - 1);
	longname[sizeof longname - 1] = '\0';
	fprintf(f, "0000000000000000 A fixed_percpu_data\n"
		   "ffffffffc0001000 t _text\t[mod]\n"          /* a module's: not it */
		   "ffffffff81000000 T %s\n"                     /* too long: skipped whole */
		   "ffffffff81000000 T _text\n"
		   "ffffffff81000000 T _stext\n"
		   "ffffffff81000010 T _text\n"                  /* the first one counts */
		   "0000000000000000 T zero\n"
		   "zzzz T _etext\n"
		   "ffffffff82000000 T _etext", longname);       /* no newline: not read */
	fclose(f);
	TEST_EQ(lp_kallsyms_lookup(test_tmp("ks"), names, a, 5), 2);
	TEST_EQ_U64(a[0], 0xffffffff81000000);
	TEST_EQ_U64(a[1], 0xffffffff81000000);
	TEST_EQ_U64(a[2], 0);
	TEST_EQ_U64(a[3], 0);
	TEST_EQ_U64(a[4], 0);
	TEST_EQ(lp_kallsyms_lookup(test_tmp("none"), names, a, 1), -ENOENT);
	test_tmp_cleanup();
}

/* On replay, the cached kallsyms stands for /proc/kallsyms when it places
 * the kernel where the recording does; else /proc/kallsyms. */
static void test_kallsyms_choice(void)
{
	static const char *const text[] = { "_text" };
	uint8_t run[20];
	size_t n = lp_kernel_build_id(NULL, run, sizeof run);
	uint64_t addr;
	char buf[PATH_MAX], link[PATH_MAX], file[PATH_MAX];

	if (!n || lp_kallsyms_lookup("/proc/kallsyms", text, &addr, 1) != 1) {
		TEST_SKIP("no kernel build-id, or /proc/kallsyms hides addresses (kptr_restrict)");
	}
	use_cache(test_tmp("cache"));
	struct lp_bid_want w = { .size = (uint8_t)n };
	memcpy(w.id, run, n);
	struct lp_kref here = { "_text", addr }, moved = { "_text", addr + 0x200000 };
	TEST_STREQ(lp_kallsyms_recorded(&w, &here, "/proc/kallsyms", buf, sizeof buf),
		   "/proc/kallsyms");                   /* nothing cached */
	TEST_EQ(lp_bidcache_add("[kernel.kallsyms]", run, n), 1);
	cache_paths(test_tmp("cache"), run, n, "kallsyms", link, file);
	TEST_STREQ(lp_kallsyms_recorded(&w, &here, "/proc/kallsyms", buf, sizeof buf), file);
	TEST_STREQ(lp_kallsyms_recorded(&w, &moved, "/proc/kallsyms", buf, sizeof buf),
		   "/proc/kallsyms");
	TEST_STREQ(lp_kallsyms_recorded(&w, NULL, "/proc/kallsyms", buf, sizeof buf),
		   "/proc/kallsyms");
	/* a copy older than this boot stands in only for another boot's recording */
	TEST_EQ(sh("touch -d 2000-01-01 %s", file), 0);
	TEST_STREQ(lp_kallsyms_recorded(&w, &here, "/proc/kallsyms", buf, sizeof buf),
		   "/proc/kallsyms");
	TEST_STREQ(lp_kallsyms_recorded(&w, &here, test_tmp("absent"), buf, sizeof buf), file);
	test_tmp_cleanup();
}

TEST_MAIN("bidcache",
	TEST_CASE(test_elf_linked),
	TEST_CASE(test_not_the_recorded),
	TEST_CASE(test_elf_copied),
	TEST_CASE(test_debug_file),
	TEST_CASE(test_vdso),
	TEST_CASE(test_kallsyms),
	TEST_CASE(test_unwritable),
	TEST_CASE(test_dangling_link),
	TEST_CASE(test_lookup),
	TEST_CASE(test_kallsyms_choice))
