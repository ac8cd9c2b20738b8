/*
 * test_dso.c - lp_dso and lp_dsos on real objects: a program compiled at
 * test time (PIE, non-PIE, stripped, -rdynamic) that reports where its own
 * functions are (vaddr = address - load bias, file offset through
 * /proc/self/maps), libc as mapped by this process, the vDSO, and non-ELF
 * files.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdarg.h>
#include <sys/stat.h>

#include "test.h"
#include "luaprof/proc.h"
#include "luaprof/sym.h"
#include "sym/sym_int.h"

static const char prog_src[] =
	"#define _GNU_SOURCE\n"
	"#include <link.h>\n#include <stdio.h>\n#include <stdint.h>\n"
	"__attribute__((noinline)) int lp_alpha(int x)\n"
	"{ volatile int v = x; for (int i = 0; i < 10; i++) v += i * x; return v; }\n"
	"__attribute__((noinline)) int lp_beta(int x)\n"
	"{ volatile int v = x; for (int i = 0; i < 20; i++) v ^= i + x; return v; }\n"
	"static __attribute__((noinline)) int lp_gamma_local(int x)\n"
	"{ volatile int v = x; for (int i = 0; i < 30; i++) v -= i; return v; }\n"
	"static uintptr_t bias;\n"
	"static int cb(struct dl_phdr_info *i, size_t s, void *d)\n"
	"{ (void)s; (void)d; bias = i->dlpi_addr; return 1; }\n"
	"static void show(const char *name, uintptr_t a)\n"
	"{\n"
	"  FILE *f = fopen(\"/proc/self/maps\", \"r\"); char line[512];\n"
	"  unsigned long s, e, off;\n"
	"  while (fgets(line, sizeof line, f))\n"
	"    if (sscanf(line, \"%lx-%lx %*s %lx\", &s, &e, &off) == 3 && a >= s && a < e) break;\n"
	"  fclose(f);\n"
	"  printf(\"%s %lx %lx\\n\", name, (unsigned long)(a - bias), a - s + off);\n"
	"}\n"
	"int main(void)\n"
	"{\n"
	"  dl_iterate_phdr(cb, 0);\n"
	"  show(\"lp_alpha\", (uintptr_t)lp_alpha);\n"
	"  show(\"lp_beta\", (uintptr_t)lp_beta);\n"
	"  show(\"lp_gamma_local\", (uintptr_t)lp_gamma_local);\n"
	"  return (lp_alpha(1) + lp_beta(2) + lp_gamma_local(3)) & 0;\n"
	"}\n";

struct fn_pos { char name[32]; uint64_t vaddr, off; };

/* Compiles prog_src with flags into tmp/name; returns its path. */
static const char *build_prog(const char *name, const char *flags)
{
	const char *src = test_tmp("prog.c"), *bin = test_tmp(name);
	FILE *f = fopen(src, "w");

	TEST_TRUE(f != NULL);
	fputs(prog_src, f);
	fclose(f);
	TEST_EQ(sh("cc -O1 -g -fno-omit-frame-pointer %s -o %s %s", flags, bin, src), 0);
	return bin;
}

/* Runs bin and reads back its functions' vaddrs and file offsets. */
static int run_prog(const char *bin, struct fn_pos *pos, int max)
{
	char cmd[256];
	int n = 0;

	snprintf(cmd, sizeof cmd, "%s", bin);
	FILE *p = popen(cmd, "r");
	TEST_TRUE(p != NULL);
	while (n < max && fscanf(p, "%31s %" SCNx64 " %" SCNx64, pos[n].name,
				 &pos[n].vaddr, &pos[n].off) == 3)
		n++;
	TEST_EQ(pclose(p), 0);
	return n;
}

static void check_prog(const char *bin)
{
	struct fn_pos pos[3];
	int n = run_prog(bin, pos, 3);
	struct lp_dso *d = lp_dso_open(bin);

	TEST_EQ(n, 3);
	TEST_TRUE(d != NULL);
	if (!d)
		return;
	TEST_STREQ(lp_dso_path(d), bin);
	for (int i = 0; i < n; i++) {
		uint64_t va = 0;
		const struct lp_sym *s = lp_dso_find(d, pos[i].vaddr);
		TEST_TRUE(s != NULL);
		if (!s)
			continue;
		TEST_STREQ(s->name, pos[i].name);
		TEST_EQ_U64(s->start, pos[i].vaddr);
		TEST_TRUE(s->end > s->start + 4);
		TEST_TRUE(lp_dso_find(d, pos[i].vaddr + 1) == s);
		TEST_TRUE(lp_dso_find(d, s->end - 1) == s);
		TEST_EQ(lp_dso_file_to_vaddr(d, pos[i].off, &va), 0);
		TEST_EQ_U64(va, pos[i].vaddr);
		TEST_EQ(lp_dso_file_to_vaddr(d, pos[i].off + 3, &va), 0);
		TEST_EQ_U64(va, pos[i].vaddr + 3);
	}
	TEST_EQ(lp_dso_file_to_vaddr(d, 1ull << 40, &(uint64_t){0}), -ENOENT);
	lp_dso_free(d);
}

static void test_pie(void)
{
	check_prog(build_prog("pie", "-fPIE -pie"));
	test_tmp_cleanup();
}

static void test_nopie(void)
{
	const char *bin = build_prog("nopie", "-fno-PIE -no-pie");
	struct fn_pos pos[3];

	TEST_EQ(run_prog(bin, pos, 3), 3);
	TEST_TRUE(pos[0].vaddr >= 0x400000);     /* really ET_EXEC */
	check_prog(bin);
	test_tmp_cleanup();
}

/* The build-id as `readelf -n` prints it ("" when none). */
static void readelf_build_id(const char *path, char *hex, size_t size)
{
	char cmd[256], line[512];

	hex[0] = '\0';
	snprintf(cmd, sizeof cmd, "readelf -n %s 2>/dev/null", path);
	FILE *p = popen(cmd, "r");
	while (p && fgets(line, sizeof line, p)) {
		char *b = strstr(line, "Build ID: ");
		if (b && !hex[0] && sscanf(b + 10, "%127s", hex) != 1)
			hex[0] = '\0';
	}
	if (p)
		pclose(p);
	(void)size;
}

static void dso_build_id_hex(const struct lp_dso *d, char *hex)
{
	const uint8_t *id;
	size_t n = lp_dso_build_id(d, &id);

	hex[0] = '\0';
	for (size_t i = 0; i < n; i++)
		sprintf(hex + 2 * i, "%02x", id[i]);
}

static void hex_of(const uint8_t *id, size_t n, char *hex)
{
	hex[0] = '\0';
	for (size_t i = 0; i < n; i++)
		sprintf(hex + 2 * i, "%02x", id[i]);
}

/* lp_dso_open's build-id, lp_elf_build_id's (notes alone) and readelf's
 * agree. */
static void check_build_id(const char *path)
{
	char want[128], got[160];
	uint8_t id[64];
	struct lp_dso *d = lp_dso_open(path);

	TEST_TRUE(d != NULL);
	if (!d)
		return;
	readelf_build_id(path, want, sizeof want);
	dso_build_id_hex(d, got);
	TEST_TRUE(want[0] != '\0');
	TEST_STREQ(got, want);
	hex_of(id, lp_elf_build_id(path, id, sizeof id), got);
	TEST_STREQ(got, want);
	TEST_EQ(lp_elf_build_id(path, id, 4), 4);      /* truncated to max */
	lp_dso_free(d);
}

static void test_build_id(void)
{
	char bin[128];

	snprintf(bin, sizeof bin, "%s", build_prog("bid", "-Wl,--build-id=sha1"));
	check_build_id(bin);
	check_build_id(build_prog("bidmd5", "-Wl,--build-id=md5"));
	TEST_EQ(sh("cp %s %s && strip --strip-all %s", bin, test_tmp("bid.s"),
		   test_tmp("bid.s")), 0);
	check_build_id(test_tmp("bid.s"));
	const char *noid = build_prog("noid", "-Wl,--build-id=none");
	struct lp_dso *d = lp_dso_open(noid);
	const uint8_t *id;
	uint8_t buf[20];
	TEST_TRUE(d != NULL);
	TEST_EQ(lp_dso_build_id(d, &id), 0);
	TEST_EQ(lp_elf_build_id(noid, buf, sizeof buf), 0);
	TEST_EQ(lp_elf_build_id(test_tmp("missing"), buf, sizeof buf), 0);
	TEST_EQ(lp_elf_build_id("/etc/passwd", buf, sizeof buf), 0);
	TEST_EQ(lp_elf_build_id("/tmp", buf, sizeof buf), 0);
	lp_dso_free(d);
	test_tmp_cleanup();
}

static void test_stripped(void)
{
	const char *bin = build_prog("plain", "");
	struct fn_pos pos[3];

	TEST_EQ(run_prog(bin, pos, 3), 3);
	TEST_EQ(sh("cp %s %s && strip --strip-all %s", bin, test_tmp("plain.s"),
		   test_tmp("plain.s")), 0);
	struct lp_dso *d = lp_dso_open(test_tmp("plain.s"));
	TEST_TRUE(d != NULL);
	TEST_EQ(lp_symtab_count(lp_dso_symtab(d)), 0);  /* .dynsym: imports only */
	TEST_TRUE(lp_dso_find(d, pos[0].vaddr) == NULL);
	uint64_t va;
	TEST_EQ(lp_dso_file_to_vaddr(d, pos[0].off, &va), 0);
	lp_dso_free(d);

	/* Exported with -rdynamic: .dynsym has the globals, not the static. */
	bin = build_prog("rdyn", "-rdynamic");
	TEST_EQ(run_prog(bin, pos, 3), 3);
	TEST_EQ(sh("strip --strip-all %s", bin), 0);
	d = lp_dso_open(bin);
	TEST_TRUE(d != NULL);
	TEST_STREQ(lp_dso_find(d, pos[0].vaddr)->name, "lp_alpha");
	TEST_STREQ(lp_dso_find(d, pos[1].vaddr + 2)->name, "lp_beta");
	const struct lp_sym *g = lp_dso_find(d, pos[2].vaddr);
	TEST_TRUE(g == NULL || strcmp(g->name, "lp_gamma_local") != 0);
	lp_dso_free(d);
	test_tmp_cleanup();
}

struct maps_line { uint64_t start, end, off; char path[256]; };

/* The line of /proc/self/maps containing addr. */
static int self_map(uint64_t addr, struct maps_line *m)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	int found = 0;

	while (f && !found && fgets(line, sizeof line, f)) {
		m->path[0] = '\0';
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64 " %*s %*s %255s",
			   &m->start, &m->end, &m->off, m->path) >= 3)
			found = addr >= m->start && addr < m->end;
	}
	if (f)
		fclose(f);
	return found;
}

static void test_libc_file_to_vaddr(void)
{
	void *fn = dlsym(RTLD_DEFAULT, "getpid");
	Dl_info info;
	struct link_map *lm = NULL;
	struct maps_line m;

	TEST_TRUE(fn != NULL);
	TEST_TRUE(dladdr1(fn, &info, (void **)&lm, RTLD_DL_LINKMAP) != 0 && lm);
	TEST_TRUE(self_map((uintptr_t)fn, &m));
	TEST_TRUE(strstr(m.path, "libc") != NULL);
	struct lp_dso *d = lp_dso_open(m.path);
	TEST_TRUE(d != NULL);
	if (!d)
		return;
	uint64_t off = (uintptr_t)fn - m.start + m.off, va = 0;
	uint64_t want = (uintptr_t)fn - lm->l_addr;
	TEST_TRUE(m.off != 0);          /* text is not at offset 0: a real conversion */
	TEST_EQ(lp_dso_file_to_vaddr(d, off, &va), 0);
	TEST_EQ_U64(va, want);
	/* the offsets converted alike: text's segment, holding off, and each
	 * of them converted by the same difference */
	uint64_t lo, hi, va2 = 0;
	TEST_EQ(lp_dso_file_span(d, off, &va2, &lo, &hi), 0);
	TEST_EQ_U64(va2, want);
	TEST_TRUE(lo <= off && off < hi && hi - lo >= 4096);
	for (uint64_t at = lo; at < hi; at += (hi - lo) / 64 + 1)
		TEST_TRUE(!lp_dso_file_to_vaddr(d, at, &va2) && va2 - want == at - off);
	TEST_TRUE(!lp_dso_file_to_vaddr(d, hi - 1, &va2) && va2 - want == hi - 1 - off);
	TEST_EQ(lp_dso_file_span(d, 1ull << 40, &va2, &lo, &hi), -ENOENT);
	TEST_TRUE(lo == hi);
	const struct lp_sym *s = lp_dso_find(d, va);
	TEST_TRUE(s != NULL);
	if (s) {
		TEST_EQ_U64(s->start, want);
		TEST_TRUE(strstr(s->name, "getpid") != NULL);
	}
	TEST_TRUE(lp_symtab_count(lp_dso_symtab(d)) > 1000);
	lp_dso_free(d);
}

/* Whether two tables hold the same symbols in the same order. */
static bool same_table(const struct lp_symtab *a, const struct lp_symtab *b)
{
	if (lp_symtab_count(a) != lp_symtab_count(b))
		return false;
	for (size_t i = 0; i < lp_symtab_count(a); i++) {
		const struct lp_sym *x = lp_symtab_at(a, i), *y = lp_symtab_at(b, i);
		if (x->start != y->start || x->end != y->end || strcmp(x->name, y->name))
			return false;
	}
	return true;
}

/* libc has only .dynsym; with libc6-dbg its symbols come from the debug
 * file of its build-id: the table the debug file itself gives, plus libc's
 * PLT stubs ("NAME@plt") and holes (""), which the debug file (whose
 * .rela.plt holds no data) lacks.  Reading the debug file up front gives
 * exactly what replacing the symbols afterwards does
 * (lp_dso_load_debug_file, which reads the stubs from the object's path). */
static void test_libc_debug_file(void)
{
	void *fn = dlsym(RTLD_DEFAULT, "getpid");
	struct maps_line m;
	char dbg[256];

	TEST_TRUE(fn != NULL && self_map((uintptr_t)fn, &m));
	struct lp_dso *d = lp_dso_open(m.path);
	const uint8_t *id;
	size_t n = d ? lp_dso_build_id(d, &id) : 0;
	TEST_TRUE(n > 1);
	if (n < 2) {
		lp_dso_free(d);
		return;
	}
	int off = snprintf(dbg, sizeof dbg, "/usr/lib/debug/.build-id/%02x/", id[0]);
	for (size_t i = 1; i < n; i++)
		off += snprintf(dbg + off, sizeof dbg - (size_t)off, "%02x", id[i]);
	snprintf(dbg + off, sizeof dbg - (size_t)off, ".debug");
	struct lp_dso *dd = lp_dso_open(dbg), *again = lp_dso_open(m.path);
	if (!dd) {
		lp_dso_free(again);
		lp_dso_free(d);
		TEST_SKIP("no %s (install libc6-dbg)", dbg);
	}
	const struct lp_symtab *t = lp_dso_symtab(d), *td = lp_dso_symtab(dd);
	TEST_TRUE(lp_dso_has_symtab(d));
	size_t j = 0, bad = 0, plt = 0;
	for (size_t i = 0; i < lp_symtab_count(t); i++) {
		const struct lp_sym *a = lp_symtab_at(t, i), *b = lp_symtab_at(td, j);
		size_t len = strlen(a->name);

		if (!len || (len >= 4 && !strcmp(a->name + len - 4, "@plt"))) {
			plt++;
			continue;
		}
		j++;
		bad += !b || a->start != b->start || a->end != b->end || strcmp(a->name, b->name);
	}
	TEST_EQ(bad, 0);
	TEST_EQ(j, lp_symtab_count(td));
	TEST_TRUE(plt > 0);
	TEST_TRUE(again != NULL);
	lp_dso_load_debug_file(again, dbg);
	TEST_TRUE(same_table(t, lp_dso_symtab(again)));
	fprintf(stderr, "  info: libc: %zu symbols (%zu PLT stubs and holes) from %s\n",
		lp_symtab_count(t), plt, dbg);
	lp_dso_free(again);
	lp_dso_free(dd);
	lp_dso_free(d);
}

static void test_not_elf(void)
{
	const char *txt = test_tmp("text.txt"), *empty = test_tmp("empty");
	FILE *f = fopen(txt, "w");

	fputs("#!/bin/sh\necho this is not an ELF file at all\n", f);
	fclose(f);
	fclose(fopen(empty, "w"));
	errno = 0;
	TEST_TRUE(lp_dso_open(txt) == NULL);
	TEST_EQ(errno, ENOEXEC);
	errno = 0;
	TEST_TRUE(lp_dso_open(empty) == NULL);
	TEST_EQ(errno, ENOEXEC);
	errno = 0;
	TEST_TRUE(lp_dso_open(test_tmp("missing")) == NULL);
	TEST_EQ(errno, ENOENT);
	errno = 0;
	TEST_TRUE(lp_dso_open(test_tmp(".")) == NULL);
	TEST_EQ(errno, EISDIR);
	errno = 0;
	TEST_TRUE(lp_dso_open("/dev/null") == NULL);
	TEST_EQ(errno, ENOEXEC);
	/* A relocatable object is ELF but not a loadable one. */
	TEST_EQ(sh("echo 'int f(void){return 1;}' | cc -x c -c -o %s -", test_tmp("o.o")), 0);
	errno = 0;
	TEST_TRUE(lp_dso_open(test_tmp("o.o")) == NULL);
	TEST_EQ(errno, ENOEXEC);
	char junk[64] = "not an elf image, but long enough for an ELF header";
	errno = 0;
	TEST_TRUE(lp_dso_open_mem("x", junk, sizeof junk) == NULL);
	TEST_EQ(errno, ENOEXEC);
	test_tmp_cleanup();
}

/* A file's bytes in memory give the same dso as the file. */
static void test_open_mem(void)
{
	const char *bin = build_prog("mem", "");
	struct stat st;
	struct fn_pos pos[3];

	TEST_EQ(run_prog(bin, pos, 3), 3);
	TEST_EQ(stat(bin, &st), 0);
	char *buf = malloc((size_t)st.st_size);
	FILE *f = fopen(bin, "rb");
	TEST_EQ(fread(buf, 1, (size_t)st.st_size, f), (size_t)st.st_size);
	fclose(f);
	TEST_EQ(lp_dso_mem_size(buf), st.st_size);
	struct lp_dso *m = lp_dso_open_mem("inmem", buf, (size_t)st.st_size);
	struct lp_dso *d = lp_dso_open(bin);
	TEST_TRUE(m && d);
	TEST_STREQ(lp_dso_path(m), "inmem");
	TEST_EQ(lp_symtab_count(lp_dso_symtab(m)), lp_symtab_count(lp_dso_symtab(d)));
	TEST_STREQ(lp_dso_find(m, pos[1].vaddr)->name, "lp_beta");
	const uint8_t *a, *b;
	size_t na = lp_dso_build_id(m, &a), nb = lp_dso_build_id(d, &b);
	TEST_EQ(na, nb);
	TEST_TRUE(na == 20 && !memcmp(a, b, na));
	TEST_EQ(lp_dso_mem_size("\177ELF\1\1\1"), 0);   /* 32-bit: not ours */
	lp_dso_free(m);
	lp_dso_free(d);
	free(buf);
	test_tmp_cleanup();
}

static struct lp_map mk_map(const char *path, uint64_t start, uint64_t end,
			    uint64_t pgoff, uint64_t ino)
{
	struct lp_map m = { .start = start, .end = end, .pgoff = pgoff,
			    .maj = 8, .min = 1, .ino = ino, .path = path };
	return m;
}

static void test_vdso(void)
{
	void *h = dlopen("linux-vdso.so.1", RTLD_NOLOAD | RTLD_LAZY);
	void *fn = h ? dlvsym(h, "__vdso_clock_gettime", "LINUX_2.6") : NULL;
	struct maps_line ml;

	TEST_TRUE(fn != NULL);
	if (!fn)
		return;
	TEST_TRUE(self_map((uintptr_t)fn, &ml));
	TEST_STREQ(ml.path, "[vdso]");
	struct lp_map m = mk_map("[vdso]", ml.start, ml.end, 0, 0);
	struct lp_dsos *c = lp_dsos_new();
	struct lp_dso *d = lp_dsos_get(c, &m);
	TEST_TRUE(d != NULL);
	if (!d)
		return;
	TEST_STREQ(lp_dso_path(d), "[vdso]");
	uint64_t va = 0;
	TEST_EQ(lp_dso_file_to_vaddr(d, (uintptr_t)fn - m.start + m.pgoff, &va), 0);
	const struct lp_sym *s = lp_dso_find(d, va);
	TEST_TRUE(s != NULL);
	TEST_STREQ(s ? s->name : NULL, "__vdso_clock_gettime");  /* GLOBAL beats WEAK alias */
	TEST_EQ_U64(s ? s->start : 0, va);
	struct lp_map other = mk_map("[vdso]", 0x7000, 0x9000, 0, 0);
	TEST_TRUE(lp_dsos_get(c, &other) == d);  /* one vDSO for every process */
	TEST_EQ(lp_dsos_count(c), 1);
	TEST_TRUE(lp_dso_mem_size((const void *)(uintptr_t)ml.start) <= ml.end - ml.start);
	/* lp_map_build_id reads the same build-id from the image */
	const uint8_t *id;
	uint8_t buf[20];
	char want[64], got[64];
	hex_of(buf, lp_map_build_id(&m, buf, sizeof buf), got);
	dso_build_id_hex(d, want);
	TEST_TRUE(want[0] != '\0');
	TEST_STREQ(got, want);
	TEST_TRUE(lp_dso_build_id(d, &id) > 0);
	lp_dsos_free(c);
}

static void test_dsos_cache(void)
{
	const char *bin = build_prog("cached", "");
	struct stat st;
	struct lp_dsos *c = lp_dsos_new();

	TEST_EQ(stat(bin, &st), 0);
	struct lp_map a = mk_map(bin, 0x1000, 0x2000, 0, st.st_ino);
	struct lp_map b = mk_map(bin, 0x5000, 0x9000, 0x1000, st.st_ino);
	struct lp_dso *d = lp_dsos_get(c, &a);
	TEST_TRUE(d != NULL);
	TEST_TRUE(lp_dsos_get(c, &b) == d);
	TEST_EQ(lp_dsos_count(c), 1);
	/* Another inode under the same path is another object. */
	struct lp_map other = mk_map(bin, 0x1000, 0x2000, 0, st.st_ino + 1);
	struct lp_dso *d2 = lp_dsos_get(c, &other);
	TEST_TRUE(d2 != NULL && d2 != d);
	TEST_EQ(lp_dsos_count(c), 2);

	static const char *special[] = {
		"", "//anon", "[heap]", "[stack]", "[vsyscall]", "[vvar]",
		"[anon:glibc malloc]", "/memfd:jit (deleted)", "/usr/bin/true (deleted)",
		"/dev/zero", "/SYSV00000000 (deleted)", "relative/path",
	};
	for (size_t i = 0; i < sizeof special / sizeof special[0]; i++) {
		struct lp_map s = mk_map(special[i], 0x1000, 0x2000, 0, 0);
		struct lp_dso *x;
		const char *name = NULL;
		uint8_t id[20];
		TEST_TRUE(lp_dsos_get(c, &s) == NULL);
		TEST_EQ(lp_map_build_id(&s, id, sizeof id), 0);   /* never opened either */
		TEST_EQ(lp_dsos_lookup(c, &s, &x, &name), 0);
		TEST_TRUE(x == NULL);
		TEST_STREQ(name, special[i]);
	}
	/* A missing file fails once and stays cached as a failure. */
	struct lp_map miss = mk_map(test_tmp("gone"), 0x1000, 0x2000, 0, 99);
	size_t before = lp_dsos_count(c);
	TEST_TRUE(lp_dsos_get(c, &miss) == NULL);
	TEST_TRUE(lp_dsos_get(c, &miss) == NULL);
	TEST_EQ(lp_dsos_count(c), before + 1);
	struct lp_map nopath = mk_map(NULL, 0x1000, 0x2000, 0, 0);
	uint8_t id[20];
	TEST_TRUE(lp_dsos_get(c, &nopath) == NULL);
	TEST_EQ(lp_map_build_id(&nopath, id, sizeof id), 0);
	const uint8_t *did;
	char want[64], got[64];
	hex_of(id, lp_map_build_id(&a, id, sizeof id), got);
	hex_of(did, lp_dso_build_id(d, &did), want);
	TEST_TRUE(want[0] != '\0');
	TEST_STREQ(got, want);
	/* Many entries: the table grows and everything is still found. */
	char p[64][32];
	for (int i = 0; i < 64; i++) {
		snprintf(p[i], sizeof p[i], "/nonexistent/lib%d.so", i);
		struct lp_map x = mk_map(p[i], 0, 1, 0, (uint64_t)i);
		TEST_TRUE(lp_dsos_get(c, &x) == NULL);
	}
	TEST_TRUE(lp_dsos_get(c, &a) == d);
	size_t n = lp_dsos_count(c);
	for (int i = 0; i < 64; i++) {
		struct lp_map x = mk_map(p[i], 0, 1, 0, (uint64_t)i);
		TEST_TRUE(lp_dsos_get(c, &x) == NULL);
	}
	TEST_EQ(lp_dsos_count(c), n);
	lp_dsos_free(c);
	lp_dsos_free(NULL);
	test_tmp_cleanup();
}

/* Data objects of two sections of this test's own executable: the first
 * one found stays valid (named, in place) after the second section's
 * objects are read, which replaces the table it was found in; each is
 * found with the addresses around it named alike, within its object. */
static int obj_in_data = 5;
static const char obj_in_rodata[256] = "ro";
static int first_phdr(struct dl_phdr_info *i, size_t size, void *arg)
{
	(void)size;
	*(uintptr_t *)arg = i->dlpi_addr;
	return 1;
}

static void test_objects_stay(void)
{
	char exe[4096];
	uintptr_t bias = 0;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	TEST_TRUE(n > 0);
	exe[n > 0 ? n : 0] = '\0';
	dl_iterate_phdr(first_phdr, &bias);
	struct lp_dso *d = lp_dso_open(exe);
	TEST_TRUE(d != NULL);
	if (!d)
		return;
	uint64_t lo, hi, data = (uintptr_t)&obj_in_data - bias;
	uint64_t ro = (uintptr_t)obj_in_rodata - bias;
	const struct lp_sym *a = lp_dso_find_object_span(d, data, &lo, &hi);
	TEST_TRUE(a != NULL);
	if (!a)
		return;
	TEST_STREQ(a->name, "obj_in_data");
	TEST_TRUE(lo == data && hi == data + sizeof obj_in_data);
	const struct lp_sym *b = lp_dso_find_object_span(d, ro + 100, &lo, &hi);
	TEST_TRUE(b != NULL);
	TEST_STREQ(b ? b->name : "", "obj_in_rodata");
	TEST_TRUE(lo == ro && hi == ro + sizeof obj_in_rodata);
	TEST_STREQ(a->name, "obj_in_data");             /* still there */
	TEST_EQ_U64(a->start, data);
	TEST_STREQ(lp_dso_find_object(d, data)->name, "obj_in_data");
	lp_dso_free(d);
	TEST_TRUE(obj_in_data + obj_in_rodata[0] > 0);
}

TEST_MAIN("dso",
	TEST_CASE(test_pie),
	TEST_CASE(test_nopie),
	TEST_CASE(test_build_id),
	TEST_CASE(test_stripped),
	TEST_CASE(test_libc_file_to_vaddr),
	TEST_CASE(test_objects_stay),
	TEST_CASE(test_libc_debug_file),
	TEST_CASE(test_not_elf),
	TEST_CASE(test_open_mem),
	TEST_CASE(test_vdso),
	TEST_CASE(test_dsos_cache))
