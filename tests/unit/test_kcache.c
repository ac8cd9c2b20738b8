/*
 * test_kcache.c - the cache of parsed kallsyms tables (kcache.c): a table
 * read back from the cache is the parsed one, entry for entry and lookup
 * for lookup (a synthetic file with modules, aliases and data, and a copy
 * of this machine's /proc/kallsyms); a changed kallsyms file is parsed
 * and cached again; a damaged cache file (cut anywhere, a record pointing
 * forward, past the names or at a missing module, a changed byte) is
 * passed over for the parse; and the cache is neither read nor written
 * through a link, in another user's directory, or in a home it would be
 * made in that is not this user's.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>

#include "test.h"
#include "luaprof/luaprof.h"
#include "luaprof/sym.h"
#include "sym/sym_int.h"

#define HDR 72          /* the header's size: magic, sizes, key, counts */
#define REC_NAME 16     /* offsets inside an lp_symtab_rec */
#define REC_UP 20
#define REC_TAG 24

/* Points XDG_CACHE_HOME at a fresh directory in the test's; the cache
 * directory into dir. */
static void cache_here(char *dir, size_t n)
{
	const char *base = test_tmp("cache");
	TEST_TRUE(mkdir(base, 0700) == 0);
	setenv("XDG_CACHE_HOME", base, 1);
	TEST_TRUE(lp_kcache_dir(dir, n));
}

/* A kallsyms file of more than LP_KCACHE_MIN bytes: kernel text in
 * address order with aliases and data among it, then modules. */
static const char *synthetic(void)
{
	const char *path = test_tmp("kallsyms");
	FILE *f = fopen(path, "w");
	TEST_TRUE(f != NULL);
	fputs("ffffffff81000000 T _text\nffffffff81000000 t a_local_alias\n", f);
	for (int i = 1; i < 30000; i++) {
		unsigned long long a = 0xffffffff81000000ull + (unsigned long long)i * 0x40;
		fprintf(f, "%016llx %c kernel_function_%d\n", a, "tTwW"[i & 3], i);
		if (i % 97 == 0)
			fprintf(f, "%016llx D some_data_%d\n", a + 0x10, i);
		if (i % 89 == 0)
			fprintf(f, "%016llx t alias_of_%d\n", a, i);
	}
	for (int i = 0; i < 3000; i++)
		fprintf(f, "%016llx t mod_fn_%d\t[mod_%d]\n",
			0xffffffffc0000000ull + (unsigned long long)i * 0x100, i, i / 700);
	fclose(f);
	return path;
}

/* The two tables hold the same entries and answer lookups alike. */
static void same_tables(const struct lp_kernel *a, const struct lp_kernel *b)
{
	const struct lp_symtab *ta = lp_kernel_symtab(a), *tb = lp_kernel_symtab(b);
	size_t n = lp_symtab_count(ta), bad = 0;

	TEST_EQ(lp_symtab_count(tb), n);
	TEST_TRUE(n > 1000);
	for (size_t i = 0; i < n && i < lp_symtab_count(tb) && bad < 5; i++) {
		const struct lp_sym *x = lp_symtab_at(ta, i), *y = lp_symtab_at(tb, i);
		const char *dx = NULL, *dy = NULL;
		const struct lp_sym *fx = lp_kernel_find(a, x->start + 1, &dx);
		const struct lp_sym *fy = lp_kernel_find(b, x->start + 1, &dy);
		if (x->start != y->start || x->end != y->end || strcmp(x->name, y->name) ||
		    !fx != !fy || (fx && (strcmp(fx->name, fy->name) || strcmp(dx, dy)))) {
			TEST_FAIL_("entry %zu: %s %#llx-%#llx against %s %#llx-%#llx", i, x->name,
				   (unsigned long long)x->start, (unsigned long long)x->end, y->name,
				   (unsigned long long)y->start, (unsigned long long)y->end);
			bad++;
		}
	}
}

/* Whether a cache file in dir stands for path and its records pass
 * lp_symtab_import's checks. */
static bool cache_valid(const char *path, const char *dir)
{
	struct stat st;
	struct lp_kcache c;
	TEST_TRUE(stat(path, &st) == 0);
	if (lp_kcache_open(dir, path, &st, &c))
		return false;
	struct lp_symtab *t = lp_symtab_import(c.recs, c.nr_recs, c.names, c.names_len, c.nr_mods,
						 NULL);
	lp_symtab_free(t);
	lp_kcache_close(&c);
	return t != NULL;
}

/* Loads path through the cache in dir; checks the table against the
 * parsed one.  Returns whether a valid cache file stands for path now. */
static bool load_and_compare(const char *path, const char *dir)
{
	bool hidden = true;
	struct lp_kernel *parsed = lp_kernel_load(path, &hidden);
	struct lp_kernel *k = lp_kernel_load_cached(path, dir, &hidden);
	TEST_TRUE(parsed && k);
	TEST_TRUE(!hidden);
	if (parsed && k) {
		same_tables(parsed, k);
		TEST_TRUE(lp_kernel_flaw(parsed) == lp_kernel_flaw(k));  /* kept in the cache */
	}
	lp_kernel_free(parsed);
	lp_kernel_free(k);
	return cache_valid(path, dir);
}

static void test_round_trip(void)
{
	char dir[512];
	cache_here(dir, sizeof dir);
	const char *path = synthetic();

	TEST_TRUE(load_and_compare(path, dir));         /* parsed, then written */
	TEST_TRUE(load_and_compare(path, dir));         /* read from the cache */
	/* the table read from the cache is the cache's */
	bool hidden;
	struct lp_kernel *k = lp_kernel_load_cached(path, dir, &hidden);
	TEST_STREQ(lp_kernel_find(k, 0xffffffff81000010ull, NULL)->name, "a_local_alias");
	const char *dso = NULL;
	TEST_STREQ(lp_kernel_find(k, 0xffffffffc0000000ull + 1500 * 0x100 + 4, &dso)->name,
		   "mod_fn_1500");
	TEST_STREQ(dso, "[mod_2]");
	lp_kernel_free(k);
	/* the directories and the file are this user's alone */
	struct stat st;
	char file[600];
	TEST_TRUE(stat(dir, &st) == 0 && (st.st_mode & 0777) == 0700);
	snprintf(file, sizeof file, "test -z \"$(find %s -type f ! -perm 0600)\"", dir);
	TEST_EQ(sh("%s", file), 0);
	test_tmp_cleanup();
}

static void test_real_kallsyms(void)
{
	char dir[512];
	cache_here(dir, sizeof dir);
	const char *path = test_tmp("proc-kallsyms");
	if (!kallsyms_addr("_text") && !kallsyms_addr("_stext"))
		TEST_SKIP("/proc/kallsyms shows no addresses (kernel.kptr_restrict)");
	TEST_EQ(sh("cat /proc/kallsyms > %s", path), 0);
	struct stat st;
	TEST_TRUE(stat(path, &st) == 0);
	if ((uint64_t)st.st_size < LP_KCACHE_MIN)
		TEST_SKIP("/proc/kallsyms has %lld bytes, fewer than are cached", (long long)st.st_size);
	TEST_TRUE(load_and_compare(path, dir));
	TEST_TRUE(load_and_compare(path, dir));
	test_tmp_cleanup();
}

static void test_changed_file(void)
{
	char dir[512];
	cache_here(dir, sizeof dir);
	const char *path = synthetic();
	struct stat st;
	struct lp_kcache c;

	TEST_TRUE(load_and_compare(path, dir));
	/* a new modification time: the cache no longer stands for it */
	struct timespec ts[2] = { { 0, UTIME_OMIT }, { 1000000000, 0 } };
	TEST_TRUE(utimensat(AT_FDCWD, path, ts, 0) == 0);
	TEST_TRUE(stat(path, &st) == 0);
	TEST_EQ(lp_kcache_open(dir, path, &st, &c), -ESTALE);
	/* the load parses it and caches it again */
	TEST_TRUE(load_and_compare(path, dir));
	/* a file too small is never cached */
	const char *small = test_tmp("small");
	TEST_EQ(sh("head -c 4096 %s > %s", path, small), 0);
	bool hidden;
	lp_kernel_free(lp_kernel_load_cached(small, dir, &hidden));
	TEST_TRUE(stat(small, &st) == 0);
	TEST_EQ(lp_kcache_open(dir, small, &st, &c), -ENOENT);
	test_tmp_cleanup();
}

/* The cache file of path in dir, into out. */
static void cache_file_of(const char *dir, char *out, size_t n)
{
	TEST_EQ(sh("test $(ls %s/kallsyms | wc -l) = 1", dir), 0);
	char cmd[700];
	snprintf(cmd, sizeof cmd, "ls -d %s/kallsyms/*", dir);
	FILE *f = popen(cmd, "r");
	TEST_TRUE(f && fgets(out, (int)n, f));
	out[strcspn(out, "\n")] = '\0';
	pclose(f);
}

/* Writes v (n bytes) at off of file. */
static void poke(const char *file, long off, const void *v, size_t n)
{
	int fd = open(file, O_WRONLY);
	TEST_TRUE(fd >= 0 && pwrite(fd, v, n, off) == (ssize_t)n);
	close(fd);
}

/* The synthetic kallsyms file, loaded once so that its cache file (named
 * into file) is written in the cache directory (into dir). */
static const char *cached_synthetic(char *dir, size_t dn, char *file, size_t fn)
{
	cache_here(dir, dn);
	const char *path = synthetic();
	TEST_TRUE(load_and_compare(path, dir));
	cache_file_of(dir, file, fn);
	return path;
}

/* An import from the cache file checks the records with pread, not
 * through the file's mapping: the mapping holds few of them after (the
 * pages the open's checks touched), where checking them in place brought
 * every page of them in. */
static void test_import_leaves_records_out(void)
{
	char dir[512], file[700];
	const char *path = cached_synthetic(dir, sizeof dir, file, sizeof file);
	struct stat st;
	struct lp_kcache c;
	struct lp_symsrc src;

	TEST_TRUE(stat(path, &st) == 0);
	TEST_EQ(lp_kcache_open(dir, path, &st, &c), 0);
	lp_kcache_source(&c, &src);
	long recs_kib = (long)(c.nr_recs * sizeof(struct lp_symtab_rec) / 1024);
	struct lp_symtab *t = lp_symtab_import(c.recs, c.nr_recs, c.names, c.names_len, c.nr_mods,
					       &src);
	TEST_TRUE(t != NULL);
	long rss = test_mapping_rss_kib(c.map);
	if (rss < 0)
		TEST_SKIP("no /proc/self/smaps entry for the cache file's mapping");
	TEST_TRUE(recs_kib >= 1000);
	if (rss > 256)
		TEST_FAIL_("%ld KiB of the mapping resident after the import (records: %ld KiB)", rss,
			   recs_kib);
	lp_symtab_free(t);
	lp_kcache_close(&c);
	test_tmp_cleanup();
}

static void test_damaged(void)
{
	char dir[512], file[700], keep[720];
	const char *path = cached_synthetic(dir, sizeof dir, file, sizeof file);
	snprintf(keep, sizeof keep, "%s.good", file);
	TEST_EQ(sh("cp %s %s", file, keep), 0);
	struct stat st;
	TEST_TRUE(stat(keep, &st) == 0);
	long size = (long)st.st_size, nr_mods = 6;
	long rec0 = HDR + ((nr_mods * 4 + 7) & ~7L);
	uint32_t big = 0x7fffffff;
	int32_t fwd = 5;
	uint16_t tag = 7;
	/* each damage in turn: the load parses, compares equal, and leaves a
	 * valid cache file behind */
	for (int d = 0; d < 8; d++) {
		TEST_EQ(sh("cp %s %s", keep, file), 0);
		switch (d) {
		case 0: TEST_TRUE(truncate(file, size - 1) == 0); break;
		case 1: TEST_TRUE(truncate(file, HDR - 1) == 0); break;
		case 2: TEST_TRUE(truncate(file, rec0 + 40) == 0); break;
		case 3: poke(file, rec0 + 32 * 3 + REC_UP, &fwd, sizeof fwd); break;
		case 4: poke(file, rec0 + 32 * 9 + REC_NAME, &big, sizeof big); break;
		case 5: poke(file, rec0 + 32 * 11 + REC_TAG, &tag, sizeof tag); break;
		case 6: poke(file, 0, "LPKSYM9\n", 8); break;
		case 7: poke(file, size - 1, "x", 1); break;    /* the last name's NUL */
		}
		if (cache_valid(path, dir))
			TEST_FAIL_("damage %d not seen", d);
		TEST_TRUE(load_and_compare(path, dir));
	}
	test_tmp_cleanup();
}

static int nr_warn;

static void on_log(enum lp_log_level level, const char *msg, void *ctx)
{
	(void)ctx;
	nr_warn += level == LP_WARN && strstr(msg, "symbol cache file") != NULL;
}

/* The cache file changed in place under a table read from it (luaprof
 * never does that: a new file is renamed over the old): lookups read
 * records and names from the file as they need them, and check what they
 * read again, so a lookup in a damaged block finds nothing, a lookup in a
 * block read before the damage still finds its symbol, and none loops or
 * reads past what it was given; one warning says so. */
static void test_changed_under_table(void)
{
	char dir[512], file[700];
	const char *path = cached_synthetic(dir, sizeof dir, file, sizeof file);
	bool hidden;
	struct lp_kernel *parsed = lp_kernel_load(path, &hidden);
	struct lp_kernel *k = lp_kernel_load_cached(path, dir, &hidden);
	TEST_TRUE(parsed && k);
	if (!parsed || !k)
		return;
	const struct lp_symtab *p = lp_kernel_symtab(parsed);
	size_t n = lp_symtab_count(p);
	TEST_TRUE(n > 1000);
	uint64_t early = lp_symtab_at(p, 40)->start, late = lp_symtab_at(p, n - 40)->start;
	TEST_STREQ(lp_kernel_find(k, early, NULL)->name, lp_symtab_at(p, 40)->name);
	nr_warn = 0;
	lp_log_set_hook(on_log, NULL);
	long rec0 = HDR + ((6 * 4 + 7) & ~7L);
	int32_t fwd = 5;
	poke(file, rec0 + 32 * 3 + REC_UP, &fwd, sizeof fwd);   /* block 0: an up forward */
	int32_t past = (int32_t)(n - 39);
	poke(file, rec0 + 32 * (long)(n - 40) + REC_UP, &past, sizeof past);
	TEST_TRUE(lp_kernel_find(k, lp_symtab_at(p, 3)->start, NULL) == NULL ||
		  !strcmp(lp_kernel_find(k, lp_symtab_at(p, 3)->start, NULL)->name,
			  lp_symtab_at(p, 3)->name));   /* block 0 was read before */
	TEST_TRUE(lp_kernel_find(k, late, NULL) == NULL);       /* its block is read now */
	TEST_TRUE(truncate(file, HDR) == 0);
	TEST_TRUE(lp_kernel_find(k, lp_symtab_at(p, n / 2)->start, NULL) == NULL);
	TEST_STREQ(lp_kernel_find(k, early, NULL)->name, lp_symtab_at(p, 40)->name);
	lp_log_set_hook(NULL, NULL);
	TEST_EQ(nr_warn, 1);            /* once, for two damaged reads */
	lp_kernel_free(parsed);
	lp_kernel_free(k);
	test_tmp_cleanup();
}

static void test_not_through_links(void)
{
	char dir[512], file[700], target[700];
	const char *path = cached_synthetic(dir, sizeof dir, file, sizeof file);
	/* the cache file replaced by a link to a valid one: not read */
	snprintf(target, sizeof target, "%s", test_tmp("elsewhere"));
	TEST_EQ(sh("mv %s %s && ln -s %s %s", file, target, target, file), 0);
	struct stat st;
	struct lp_kcache c;
	TEST_TRUE(stat(path, &st) == 0);
	TEST_EQ(lp_kcache_open(dir, path, &st, &c), -ELOOP);
	TEST_TRUE(load_and_compare(path, dir));         /* written again, as a file */
	TEST_EQ(sh("test -f %s && ! test -L %s", file, file), 0);
	/* the kallsyms directory a link elsewhere: neither read nor written */
	const char *away = test_tmp("away");
	TEST_EQ(sh("mv %s/kallsyms %s && ln -s %s %s/kallsyms && rm -f %s/*", dir, away, away,
		   dir, away), 0);
	TEST_TRUE(!load_and_compare(path, dir));
	TEST_EQ(sh("test -z \"$(ls %s)\"", away), 0);
	test_tmp_cleanup();
}

static void test_other_users(void)
{
	char dir[512];
	if (geteuid() != 0)
		TEST_SKIP("not root: cannot give a directory to another user");
	cache_here(dir, sizeof dir);
	const char *path = synthetic();
	/* the luaprof directory another user's: not used */
	TEST_TRUE(mkdir(dir, 0700) == 0 && chown(dir, 65534, 65534) == 0);
	TEST_TRUE(!load_and_compare(path, dir));
	TEST_EQ(sh("test -z \"$(ls -A %s)\"", dir), 0);
	/* HOME another user's with no ~/.cache yet: nothing made there */
	const char *home = test_tmp("home");
	TEST_TRUE(mkdir(home, 0755) == 0 && chown(home, 65534, 65534) == 0);
	unsetenv("XDG_CACHE_HOME");
	setenv("HOME", home, 1);
	TEST_TRUE(lp_kcache_dir(dir, sizeof dir));
	TEST_TRUE(!load_and_compare(path, dir));
	TEST_EQ(sh("test -z \"$(ls -A %s)\"", home), 0);
	/* the same HOME this user's: ~/.cache made (0700) and used */
	TEST_TRUE(chown(home, 0, 0) == 0);
	TEST_TRUE(load_and_compare(path, dir));
	TEST_TRUE(load_and_compare(path, dir));
	test_tmp_cleanup();
}

static void test_dir(void)
{
	char dir[512];
	setenv("XDG_CACHE_HOME", "/x/cache", 1);
	TEST_TRUE(lp_kcache_dir(dir, sizeof dir));
	TEST_STREQ(dir, "/x/cache/luaprof");
	setenv("XDG_CACHE_HOME", "relative", 1);        /* ignored, as the spec says */
	setenv("HOME", "/home/u", 1);
	TEST_TRUE(lp_kcache_dir(dir, sizeof dir));
	TEST_STREQ(dir, "/home/u/.cache/luaprof");
	unsetenv("XDG_CACHE_HOME");
	unsetenv("HOME");
	TEST_TRUE(!lp_kcache_dir(dir, sizeof dir));
}

TEST_MAIN("kcache",
	TEST_CASE(test_round_trip),
	TEST_CASE(test_real_kallsyms),
	TEST_CASE(test_changed_file),
	TEST_CASE(test_damaged),
	TEST_CASE(test_changed_under_table),
	TEST_CASE(test_import_leaves_records_out),
	TEST_CASE(test_not_through_links),
	TEST_CASE(test_other_users),
	TEST_CASE(test_dir))
