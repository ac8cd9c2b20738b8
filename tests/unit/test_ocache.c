/*
 * test_ocache.c - object files' symbol tables in the cache (kcache.c's
 * objects, dso.c): an object opened through the cache names every address
 * as one read without it does, PLT stubs and the holes among them
 * included (a program built here with 1,500 functions calling libc
 * through its PLT, with .symtab and stripped, and libstdc++), whether the table was just
 * written or read back; a changed object, one rewritten in place with
 * its old status but another build-id, and a damaged cache file are each
 * read from the object again; small objects are not cached; a table from
 * a separate debug file is cached under that file's name.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "test.h"
#include "luaprof/sym.h"
#include "sym/sym_int.h"

#define FUNCS 1500

/* Points XDG_CACHE_HOME at a fresh directory in the test's; the objects'
 * cache directory into dir. */
static void cache_here(char *dir, size_t n)
{
	const char *base = test_tmp("cache");
	TEST_TRUE(mkdir(base, 0700) == 0);
	setenv("XDG_CACHE_HOME", base, 1);
	TEST_TRUE(lp_kcache_dir(dir, n));
	strncat(dir, "/objects", n - strlen(dir) - 1);
}

/* Opens path with no cache at all (no XDG_CACHE_HOME, no HOME). */
static struct lp_dso *open_uncached(const char *path)
{
	char *xdg = getenv("XDG_CACHE_HOME") ? strdup(getenv("XDG_CACHE_HOME")) : NULL;
	char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	unsetenv("XDG_CACHE_HOME");
	unsetenv("HOME");
	struct lp_dso *d = lp_dso_open(path);
	if (xdg)
		setenv("XDG_CACHE_HOME", xdg, 1);
	if (home)
		setenv("HOME", home, 1);
	free(xdg);
	free(home);
	return d;
}

/* Builds a program of FUNCS functions whose calls go through the PLT (to
 * puts, strlen, memcpy and abs), named NAME_N, with build-id id ("": the
 * linker's); -s strips it to .dynsym (-rdynamic keeps the names there). */
static const char *build(const char *bin, const char *name, const char *id, const char *flags)
{
	const char *src = test_tmp("many.c");
	FILE *f = fopen(src, "w");
	TEST_TRUE(f != NULL);
	fputs("#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n", f);
	for (int i = 0; i < FUNCS; i++)
		fprintf(f, "__attribute__((noinline)) int %s_%04d(const char *s)\n"
			"{ char b[8]; memcpy(b, s, 4); return (int)strlen(s) + abs(%d) + b[0]; }\n",
			name, i, i);
	fputs("int main(int c, char **v) { (void)v; puts(\"x\"); return c > 5; }\n", f);
	fclose(f);
	char idflag[80] = "";
	if (*id)
		snprintf(idflag, sizeof idflag, "-Wl,--build-id=0x%s", id);
	TEST_EQ(sh("cc -O0 -fno-builtin -rdynamic %s %s -o %s %s", flags, idflag, bin, src), 0);
	return bin;
}

static int cmp_lookup(const struct lp_sym *a, const struct lp_sym *b)
{
	if (!a || !b)
		return !a != !b;
	return a->start != b->start || a->end != b->end || strcmp(a->name, b->name);
}

/* The two dsos name alike every symbol's start and middle, and every
 * other byte of the lowest 256 KiB of the table (.init, .plt, .plt.sec,
 * .plt.got and the start of .text, where PLT stubs and holes are). */
static void same_lookups(struct lp_dso *a, struct lp_dso *b)
{
	const struct lp_symtab *t = lp_dso_symtab(a);
	size_t n = lp_symtab_count(t), bad = 0;
	TEST_TRUE(n >= LP_OCACHE_MIN_SYMS);
	uint64_t lo = n ? lp_symtab_at(t, 0)->start : 0;
	for (size_t i = 0; i < n + (256u << 10) / 2 && bad < 5; i++) {
		uint64_t addr;
		if (i < n) {
			const struct lp_sym *s = lp_symtab_at(lp_dso_symtab(a), i);
			addr = s->start + (s->end - s->start) / 2;
		} else {
			addr = (lo & ~(uint64_t)0xfff) + 2 * (i - n);
		}
		const struct lp_sym *x = lp_dso_find(a, addr), *y = lp_dso_find(b, addr);
		if (cmp_lookup(x, y)) {
			TEST_FAIL_("at %#llx: %s against %s", (unsigned long long)addr,
				   x ? x->name : "(none)", y ? y->name : "(none)");
			bad++;
		}
	}
	TEST_EQ(lp_dso_has_symtab(a), lp_dso_has_symtab(b));
}

/* The number of files in the objects' cache directory dir. */
static int files_in(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;
	for (struct dirent *e; d && (e = readdir(d));)
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

/* The one cache file in dir, into buf. */
static const char *the_file(const char *dir, char *buf, size_t n)
{
	DIR *d = opendir(dir);
	buf[0] = '\0';
	for (struct dirent *e; d && (e = readdir(d));)
		if (e->d_name[0] != '.')
			snprintf(buf, n, "%s/%s", dir, e->d_name);
	if (d)
		closedir(d);
	TEST_TRUE(buf[0] != '\0');
	return buf;
}

/* Writes n bytes of p at off in path, in place. */
static void poke(const char *path, long off, const void *p, size_t n)
{
	int fd = open(path, O_WRONLY);
	TEST_TRUE(fd >= 0 && pwrite(fd, p, n, off) == (ssize_t)n);
	close(fd);
}

/* Opens path without the cache, then through it twice (written, then
 * read back): all three alike; one cache file more. */
static void through_cache(const char *path, const char *dir)
{
	int before = files_in(dir);
	struct lp_dso *plain = open_uncached(path), *written = lp_dso_open(path);
	TEST_TRUE(plain && written);
	TEST_EQ(files_in(dir), before + 1);
	struct lp_dso *read = lp_dso_open(path);
	TEST_TRUE(read != NULL);
	same_lookups(plain, written);
	same_lookups(plain, read);
	lp_dso_free(plain);
	lp_dso_free(written);
	lp_dso_free(read);
}

static void test_program(void)
{
	char dir[512];
	cache_here(dir, sizeof dir);
	through_cache(build(test_tmp("full"), "lp_full", "", ""), dir);
	through_cache(build(test_tmp("dyn"), "lp_dyn", "", "-s"), dir);
	test_tmp_cleanup();
}

/* A real library with a large PLT (libstdc++: a thousand stubs, its
 * .plt.got, some 4,600 functions in .dynsym). */
static void test_library(void)
{
	char dir[512], lib[512] = "", dbg[600];
	cache_here(dir, sizeof dir);
	FILE *p = popen("readlink -f \"$(g++ -print-file-name=libstdc++.so 2>/dev/null)\"", "r");
	if (p && fgets(lib, sizeof lib, p))
		lib[strcspn(lib, "\n")] = '\0';
	if (p)
		pclose(p);
	if (!*lib || access(lib, R_OK))
		TEST_SKIP("no libstdc++ (g++ is not installed)");
	struct lp_dso *d = open_uncached(lib);
	TEST_TRUE(d != NULL);
	const uint8_t *id;
	char hex[64];
	size_t n = lp_dso_build_id(d, &id);
	lp_build_id_hex(id, n, hex);
	snprintf(dbg, sizeof dbg, "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
	lp_dso_free(d);
	if (n > 1 && !access(dbg, F_OK))
		TEST_SKIP("%s has a separate debug file installed, whose symbols are not cached", lib);
	through_cache(lib, dir);
	test_tmp_cleanup();
}

/* A changed object is read again, and its new table cached. */
static void test_changed(void)
{
	char dir[512];
	cache_here(dir, sizeof dir);
	const char *path = build(test_tmp("prog"), "lp_first", "", "");
	struct lp_dso *d = lp_dso_open(path);
	lp_dso_free(d);
	TEST_EQ(files_in(dir), 1);
	/* another program over it, in place (the same inode) */
	TEST_EQ(sh("cat %s > %s", build(test_tmp("other"), "lp_second", "", ""), path), 0);
	d = lp_dso_open(path);
	TEST_TRUE(d != NULL);
	size_t seconds = 0;
	for (size_t i = 0; i < lp_symtab_count(lp_dso_symtab(d)); i++)
		seconds += !strncmp(lp_symtab_at(lp_dso_symtab(d), i)->name, "lp_second_", 10);
	TEST_EQ(seconds, FUNCS);
	lp_dso_free(d);
	test_tmp_cleanup();
}

/* Rewritten in place with the same size and its old modification time
 * (as a copy within one tick of the clock keeps them), but another
 * build-id: read again, not taken from the cache. */
static void test_same_status(void)
{
	char dir[512];
	struct stat a, b;
	cache_here(dir, sizeof dir);
	const char *path = build(test_tmp("prog"), "lp_aaaaa", "1111111111111111111111111111111111111111", "");
	const char *other = build(test_tmp("other"), "lp_bbbbb", "2222222222222222222222222222222222222222", "");
	TEST_TRUE(stat(path, &a) == 0 && stat(other, &b) == 0);
	if (a.st_size != b.st_size)
		TEST_SKIP("the two builds differ in size (%lld, %lld)", (long long)a.st_size,
			  (long long)b.st_size);
	lp_dso_free(lp_dso_open(path));
	TEST_EQ(files_in(dir), 1);
	TEST_EQ(sh("cat %s > %s", other, path), 0);
	struct timespec times[2] = { a.st_atim, a.st_mtim };
	TEST_TRUE(utimensat(AT_FDCWD, path, times, 0) == 0);
	TEST_TRUE(stat(path, &b) == 0 && b.st_ino == a.st_ino && b.st_size == a.st_size &&
		  b.st_mtim.tv_nsec == a.st_mtim.tv_nsec && b.st_mtim.tv_sec == a.st_mtim.tv_sec);
	struct lp_dso *d = lp_dso_open(path);
	TEST_TRUE(d != NULL);
	size_t bs = 0;
	for (size_t i = 0; i < lp_symtab_count(lp_dso_symtab(d)); i++)
		bs += !strncmp(lp_symtab_at(lp_dso_symtab(d), i)->name, "lp_bbbbb_", 9);
	TEST_EQ(bs, FUNCS);
	lp_dso_free(d);
	test_tmp_cleanup();
}

/* A cache file cut short or with a record changed is passed over: the
 * object is read again, names alike, and the file written anew. */
static void test_damaged(void)
{
	char dir[512];
	cache_here(dir, sizeof dir);
	const char *path = build(test_tmp("prog"), "lp_dmg", "", "");
	struct lp_dso *plain = open_uncached(path);
	lp_dso_free(lp_dso_open(path));
	TEST_EQ(files_in(dir), 1);
	char file[700];
	struct stat st;
	TEST_TRUE(stat(the_file(dir, file, sizeof file), &st) == 0);
	uint32_t big = 0x7fffffff;
	for (int i = 0; i < 4; i++) {
		the_file(dir, file, sizeof file);
		switch (i) {
		case 0: TEST_TRUE(truncate(file, 100) == 0); break;             /* in the records */
		case 1: TEST_TRUE(truncate(file, st.st_size - 7) == 0); break;  /* in the names */
		/* record 0's name offset (the header's 72 bytes, one module's
		 * offset padded to 8, then 16 into the record) past the names */
		case 2: poke(file, 96, &big, sizeof big); break;
		case 3: poke(file, 0, "LPKSYM2\n", 8); break;                  /* kallsyms' magic */
		}
		struct lp_dso *d = lp_dso_open(path);
		TEST_TRUE(d != NULL);
		same_lookups(plain, d);
		lp_dso_free(d);
		struct lp_dso *again = lp_dso_open(path);       /* from the file written anew */
		same_lookups(plain, again);
		lp_dso_free(again);
		TEST_TRUE(stat(the_file(dir, file, sizeof file), &st) == 0);
	}
	lp_dso_free(plain);
	test_tmp_cleanup();
}

/* A stripped program whose symbols are in a separate debug file (found
 * by its .gnu_debuglink, beside it): its table is cached under the debug
 * file's name, stubs and all, and read back from there, naming every
 * address as without the cache; the debug file opened as an object has
 * its own; a debug file changed since is read again, and the table
 * cached anew. */
static void test_debug_file(void)
{
	char dir[512], dbg[512];
	cache_here(dir, sizeof dir);
	const char *bin = build(test_tmp("dbgprog"), "dbg", "", "-g");
	snprintf(dbg, sizeof dbg, "%s.debug", bin);
	TEST_EQ(sh("objcopy --only-keep-debug %s %s && strip --strip-all %s && "
		   "cd $(dirname %s) && objcopy --add-gnu-debuglink=$(basename %s) %s",
		   bin, dbg, bin, dbg, dbg, bin), 0);
	struct lp_dso *plain = open_uncached(bin), *written = lp_dso_open(bin);
	TEST_TRUE(plain && written);
	if (!plain || !written)
		return;
	TEST_TRUE(lp_dso_has_symtab(plain));            /* the debug file's */
	TEST_TRUE(!lp_dso_from_cache(written));
	TEST_EQ(files_in(dir), 1);
	struct lp_dso *read = lp_dso_open(bin);
	TEST_TRUE(read && lp_dso_from_cache(read));
	TEST_EQ(files_in(dir), 1);
	same_lookups(plain, written);
	same_lookups(plain, read);
	/* the debug file opened as an object of its own: its own table (no
	 * stubs of the program's), not the one cached for the program */
	struct lp_dso *own = lp_dso_open(dbg), *own_plain = open_uncached(dbg);
	TEST_TRUE(own && own_plain && !lp_dso_from_cache(own));
	if (own && own_plain)
		same_lookups(own_plain, own);
	lp_dso_free(own);
	lp_dso_free(own_plain);
	TEST_EQ(files_in(dir), 2);
	/* the debug file replaced by a copy: another inode and time */
	TEST_EQ(sh("cp %s %s.new && mv %s.new %s", dbg, dbg, dbg, dbg), 0);
	struct lp_dso *again = lp_dso_open(bin), *then = lp_dso_open(bin);
	TEST_TRUE(again && !lp_dso_from_cache(again));
	TEST_TRUE(then && lp_dso_from_cache(then));
	same_lookups(plain, again);
	same_lookups(plain, then);
	lp_dso_free(plain);
	lp_dso_free(written);
	lp_dso_free(read);
	lp_dso_free(again);
	lp_dso_free(then);
	test_tmp_cleanup();
}

static void test_small(void)
{
	char dir[512];
	cache_here(dir, sizeof dir);
	const char *src = test_tmp("small.c"), *bin = test_tmp("small");
	TEST_EQ(sh("printf 'int f(void){return 1;}\\nint main(void){return f();}\\n' > %s && "
		   "cc -O0 -o %s %s", src, bin, src), 0);
	struct lp_dso *d = lp_dso_open(bin);
	TEST_TRUE(d != NULL && lp_symtab_count(lp_dso_symtab(d)) < LP_OCACHE_MIN_SYMS);
	lp_dso_free(d);
	TEST_EQ(files_in(dir), 0);
	test_tmp_cleanup();
}

TEST_MAIN("ocache",
	TEST_CASE(test_program),
	TEST_CASE(test_library),
	TEST_CASE(test_changed),
	TEST_CASE(test_same_status),
	TEST_CASE(test_damaged),
	TEST_CASE(test_debug_file),
	TEST_CASE(test_small))
