/*
 * test_kernel.c - lp_kernel on the real /proc/kallsyms (every text symbol
 * resolves back to its own address; schedule; modules) and on synthetic
 * files (hidden addresses, module boundaries, buffer boundaries, junk, long
 * names and lines, modules out of address order, a file without a size,
 * more symbols than the table was reserved for); whether a file looks
 * whole (lp_kernel_flaw).
 */
#include <errno.h>
#include <sys/stat.h>
#include <time.h>

#include "test.h"
#include "luaprof/record.h"
#include "luaprof/sym.h"
#include "sym/sym_int.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static char tmpfile_path[64];

static FILE *tmp_open(void)
{
	strcpy(tmpfile_path, "/tmp/lp_kallsyms_XXXXXX");
	int fd = mkstemp(tmpfile_path);
	TEST_TRUE(fd >= 0);
	return fdopen(fd, "w");
}

static int is_text(char t)
{
	return t == 't' || t == 'T' || t == 'w' || t == 'W';
}

static void test_proc_kallsyms(void)
{
	bool hidden = true;
	double best = 1e9;
	struct lp_kernel *k = NULL;

	for (int i = 0; i < 5; i++) {
		double t0 = now();
		struct lp_kernel *x = lp_kernel_load("/proc/kallsyms", &hidden);
		double dt = now() - t0;
		TEST_TRUE(x != NULL);
		best = dt < best ? dt : best;
		lp_kernel_free(k);
		k = x;
	}
	if (!k)
		return;
	fprintf(stderr, "  info: /proc/kallsyms: %zu text symbols, load %.1f ms (best of 5)\n",
		lp_symtab_count(lp_kernel_symtab(k)), best * 1e3);
	if (hidden) {
		lp_kernel_free(k);
		TEST_SKIP("/proc/kallsyms hides addresses (kptr_restrict): no address checks");
	}
	TEST_TRUE(lp_symtab_count(lp_kernel_symtab(k)) > 10000);

	/* Every text symbol of the file resolves to a symbol starting at its
	 * address (perhaps an alias), in the right object. */
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[1024], name[512], mod[256], type;
	uint64_t addr, sched = 0;
	size_t checked = 0, bad = 0, mods = 0;
	while (f && fgets(line, sizeof line, f)) {
		mod[0] = '\0';
		if (sscanf(line, "%" SCNx64 " %c %511s [%255[^]]]", &addr, &type, name, mod) < 3 ||
		    !is_text(type))
			continue;
		/* BPF programs come and go between the load and this read
		 * (bpftrace in a test beside this one): not compared */
		if (!strcmp(mod, "bpf"))
			continue;
		const char *dso = NULL;
		const struct lp_sym *s = lp_kernel_find(k, addr, &dso);
		char want[260];
		snprintf(want, sizeof want, "[%s]", mod[0] ? mod : "kernel.kallsyms");
		if (!s || s->start != addr || !dso || strcmp(dso, want)) {
			if (bad++ < 5)
				fprintf(stderr, "  mismatch: %s", line);
		}
		checked++;
		mods += mod[0] != '\0';
		if (!strcmp(name, "schedule") && !mod[0])
			sched = addr;
	}
	if (f)
		fclose(f);
	TEST_EQ(bad, 0);
	fprintf(stderr, "  info: checked %zu kallsyms text lines (%zu in modules)\n", checked, mods);

	const char *dso = NULL;
	TEST_TRUE(sched != 0);
	const struct lp_sym *s = lp_kernel_find(k, sched, &dso);
	TEST_STREQ(s ? s->name : NULL, "schedule");
	TEST_STREQ(dso, "[kernel.kallsyms]");
	s = lp_kernel_find(k, sched + 1, &dso);
	TEST_STREQ(s ? s->name : NULL, "schedule");
	TEST_EQ_U64(s ? sched + 1 - s->start : 0, 1);
	TEST_TRUE(lp_kernel_find(k, 0x1000, &dso) == NULL);
	TEST_TRUE(dso == NULL);
	lp_kernel_free(k);
}

static void test_synthetic(void)
{
	FILE *f = tmp_open();

	fputs("ffffffff81000000 T _text\n"
	      "ffffffff81000000 T _stext\n"
	      "ffffffff81000000 t a_local_alias\n"
	      "ffffffff81000100 t local_fn\n"
	      "ffffffff81000200 W weak_fn\n"
	      "ffffffff81000200 w weak_local_alias\n"
	      "ffffffff81000300 D some_data\n"
	      "ffffffff81000400 T last_kernel_fn\n"
	      "this line is junk\n"
	      "ffffffff81000500 X\n"
	      "\n"
	      "ffffffffc0001000 t mod_a_fn1\t[mod_a]\n"
	      "ffffffffc0001080 T mod_a_fn2\t[mod_a]\n"
	      "ffffffffc0100000 t mod_b_fn\t[mod_b]\n"
	      "ffffffffc0100040 t bpf_prog_1234_x\t[bpf]\n"
	      "ffffffffc0100080 t mod_b_fn2\t[mod_b]", f);      /* no final newline */
	fclose(f);
	bool hidden = true;
	struct lp_kernel *k = lp_kernel_load(tmpfile_path, &hidden);
	const char *dso;
	const struct lp_sym *s;

	TEST_TRUE(k != NULL);
	TEST_TRUE(!hidden);
	TEST_EQ(lp_symtab_count(lp_kernel_symtab(k)), 9);
	/* perf's kallsyms rule: of aliases at one address the last listed wins */
	s = lp_kernel_find(k, 0xffffffff81000010ull, &dso);
	TEST_STREQ(s->name, "a_local_alias");
	TEST_STREQ(dso, "[kernel.kallsyms]");
	TEST_STREQ(lp_kernel_find(k, 0xffffffff810001ffull, NULL)->name, "local_fn");
	TEST_STREQ(lp_kernel_find(k, 0xffffffff81000200ull, NULL)->name, "weak_local_alias");
	/* data is dropped: the symbol runs up to the next text symbol */
	TEST_STREQ(lp_kernel_find(k, 0xffffffff81000350ull, NULL)->name, "weak_local_alias");
	/* the last kernel symbol stops at its page end, not at the modules */
	s = lp_kernel_find(k, 0xffffffff81000400ull, &dso);
	TEST_EQ_U64(s->end, 0xffffffff81002000ull);
	TEST_TRUE(lp_kernel_find(k, 0xffffffff81002000ull, &dso) == NULL);
	TEST_TRUE(dso == NULL);
	s = lp_kernel_find(k, 0xffffffffc0001004ull, &dso);
	TEST_STREQ(s->name, "mod_a_fn1");
	TEST_STREQ(dso, "[mod_a]");
	s = lp_kernel_find(k, 0xffffffffc00010f0ull, &dso);
	TEST_STREQ(s->name, "mod_a_fn2");
	TEST_STREQ(dso, "[mod_a]");
	TEST_TRUE(lp_kernel_find(k, 0xffffffffc0050000ull, NULL) == NULL);
	TEST_STREQ(lp_kernel_find(k, 0xffffffffc0100000ull, &dso)->name, "mod_b_fn");
	TEST_STREQ(dso, "[mod_b]");
	TEST_STREQ(lp_kernel_find(k, 0xffffffffc0100044ull, &dso)->name, "bpf_prog_1234_x");
	TEST_STREQ(dso, "[bpf]");
	TEST_STREQ(lp_kernel_find(k, 0xffffffffc0100090ull, &dso)->name, "mod_b_fn2");
	TEST_STREQ(dso, "[mod_b]");
	lp_kernel_free(k);
	unlink(tmpfile_path);
}

static void test_hidden(void)
{
	FILE *f = tmp_open();

	for (int i = 0; i < 1000; i++)
		fprintf(f, "0000000000000000 %c sym_%d\n", i & 1 ? 'T' : 't', i);
	fputs("0000000000000000 t modsym\t[somemod]\n", f);
	fclose(f);
	bool hidden = false;
	struct lp_kernel *k = lp_kernel_load(tmpfile_path, &hidden);
	TEST_TRUE(k != NULL);
	TEST_TRUE(hidden);
	TEST_EQ(lp_symtab_count(lp_kernel_symtab(k)), 0);
	TEST_TRUE(lp_kernel_find(k, 0, NULL) == NULL);
	TEST_TRUE(lp_kernel_find(k, 0xffffffff81000000ull, NULL) == NULL);
	lp_kernel_free(k);
	unlink(tmpfile_path);

	/* An empty file is not "hidden", just empty. */
	fclose(tmp_open());
	k = lp_kernel_load(tmpfile_path, &hidden);
	TEST_TRUE(k != NULL && !hidden);
	lp_kernel_free(k);
	unlink(tmpfile_path);
}

static void test_buffer_boundaries(void)
{
	/* ~9 MB: many 1 MiB buffer refills, lines split across them, and one
	 * over-long line that must be skipped whole. */
	enum { N = 150000 };
	FILE *f = tmp_open();
	for (int i = 0; i < N; i++) {
		fprintf(f, "%016llx T a_reasonably_long_kernel_function_name_number_%d\n",
			0xffffffff81000000ull + (unsigned long long)i * 64, i);
		if (i == N / 2) {
			fputs("ffffffff90000000 T ", f);
			for (int j = 0; j < (3 << 20) / 16; j++)
				fputs("overlong_name___", f);
			fputc('\n', f);
		}
	}
	fclose(f);
	struct lp_kernel *k = lp_kernel_load(tmpfile_path, NULL);
	TEST_TRUE(k != NULL);
	TEST_EQ(lp_symtab_count(lp_kernel_symtab(k)), N);
	size_t bad = 0;
	char want[96];
	for (int i = 0; i < N; i++) {
		const struct lp_sym *s = lp_kernel_find(k, 0xffffffff81000000ull + (uint64_t)i * 64 + 5, NULL);
		snprintf(want, sizeof want, "a_reasonably_long_kernel_function_name_number_%d", i);
		bad += !s || strcmp(s->name, want);
	}
	TEST_EQ(bad, 0);
	TEST_TRUE(lp_kernel_find(k, 0xffffffff90000000ull, NULL) == NULL);
	lp_kernel_free(k);
	unlink(tmpfile_path);
}

/* Name and line limits: a name is cut at 511 bytes (the kernel's own
 * limit), a line under 1 MiB is read, one of 1 MiB or more is skipped; a
 * tab not followed by [module] still ends the name. */
static void test_long_lines(void)
{
	enum { MiB = 1 << 20 };
	FILE *f = tmp_open();
	char name600[601];

	memset(name600, 'n', 600);
	name600[600] = '\0';
	fprintf(f, "ffffffff81000000 T %s\n", name600);
	/* a line of 1 MiB - 1 bytes before its newline: read, name cut */
	fputs("ffffffff81000100 T ", f);
	for (int i = 19; i < MiB - 1; i++)
		fputc('a', f);
	fputc('\n', f);
	/* a line of exactly 1 MiB: skipped */
	fputs("ffffffff81000200 T ", f);
	for (int i = 19; i < MiB; i++)
		fputc('b', f);
	fputc('\n', f);
	fputs("ffffffff81000300 T tabbed\tnot a module\n"
	      "ffffffff81000400 t last_no_newline", f);
	fclose(f);
	struct lp_kernel *k = lp_kernel_load(tmpfile_path, NULL);
	const char *dso;
	char want[512];

	TEST_TRUE(k != NULL);
	TEST_EQ(lp_symtab_count(lp_kernel_symtab(k)), 4);
	memset(want, 'n', 511);
	want[511] = '\0';
	TEST_STREQ(lp_kernel_find(k, 0xffffffff81000000ull, NULL)->name, want);
	memset(want, 'a', 511);
	const struct lp_sym *s = lp_kernel_find(k, 0xffffffff81000100ull, NULL);
	TEST_STREQ(s->name, want);
	/* the skipped line leaves the previous symbol running up to the next */
	TEST_EQ_U64(s->end, 0xffffffff81000300ull);
	s = lp_kernel_find(k, 0xffffffff81000300ull, &dso);
	TEST_STREQ(s->name, "tabbed");
	TEST_STREQ(dso, "[kernel.kallsyms]");
	TEST_STREQ(lp_kernel_find(k, 0xffffffff81000400ull, NULL)->name, "last_no_newline");
	lp_kernel_free(k);
	unlink(tmpfile_path);
}

/* Modules listed out of address order, with aliases, and a kernel symbol
 * after them: the table is sorted, each module's last symbol stops at its
 * page end, and of two sizeless aliases the global one wins. */
static void test_modules_out_of_order(void)
{
	FILE *f = tmp_open();

	fputs("ffffffff81000000 T k_first\n"
	      "ffffffff81000100 T k_second\n"
	      "ffffffffc0200040 t b_two\t[mod_b]\n"
	      "ffffffffc0200000 t b_one\t[mod_b]\n"
	      "ffffffffc0200000 T b_one_alias\t[mod_b]\n"
	      "ffffffffc0100080 t a_three\t[mod_a]\n"
	      "ffffffffc0100000 t a_one\t[mod_a]\n"
	      "ffffffffc0100040 W a_two\t[mod_a]\n"
	      "ffffffff81000080 t k_late\n", f);
	fclose(f);
	struct lp_kernel *k = lp_kernel_load(tmpfile_path, NULL);
	const struct lp_symtab *t = k ? lp_kernel_symtab(k) : NULL;
	const char *dso;

	TEST_TRUE(k != NULL);
	TEST_EQ(lp_symtab_count(t), 8);
	for (size_t i = 1; i < lp_symtab_count(t); i++)
		TEST_TRUE(lp_symtab_at(t, i - 1)->start < lp_symtab_at(t, i)->start);
	TEST_STREQ(lp_kernel_find(k, 0xffffffff81000090ull, &dso)->name, "k_late");
	TEST_STREQ(dso, "[kernel.kallsyms]");
	TEST_STREQ(lp_kernel_find(k, 0xffffffffc0100010ull, &dso)->name, "a_one");
	TEST_STREQ(dso, "[mod_a]");
	TEST_STREQ(lp_kernel_find(k, 0xffffffffc0100050ull, NULL)->name, "a_two");
	const struct lp_sym *s = lp_kernel_find(k, 0xffffffffc0100090ull, &dso);
	TEST_STREQ(s->name, "a_three");
	TEST_EQ_U64(s->end, 0xffffffffc0102000ull);
	s = lp_kernel_find(k, 0xffffffffc0200010ull, &dso);
	TEST_STREQ(s->name, "b_one_alias");
	TEST_STREQ(dso, "[mod_b]");
	TEST_STREQ(lp_kernel_find(k, 0xffffffffc0200050ull, NULL)->name, "b_two");
	lp_kernel_free(k);
	unlink(tmpfile_path);
}

/* A file that reports no size, as /proc/kallsyms does, larger than the
 * size the loader guesses for one (8 MiB): a FIFO fed by a child. */
static void test_sizeless_file(void)
{
	enum { N = 200000 };
	char path[64];

	snprintf(path, sizeof path, "/tmp/lp_kallsyms_fifo_%d", (int)getpid());
	TEST_TRUE(mkfifo(path, 0600) == 0);
	pid_t pid = fork();
	if (pid == 0) {
		FILE *f = fopen(path, "w");
		for (int i = 0; f && i < N; i++)
			fprintf(f, "%016llx T a_name_long_enough_to_make_the_file_big_%d\n",
				0xffffffff81000000ull + (unsigned long long)i * 32, i);
		_exit(f && !fclose(f) ? 0 : 1);
	}
	struct lp_kernel *k = lp_kernel_load(path, NULL);
	int st = -1;
	waitpid(pid, &st, 0);
	unlink(path);
	TEST_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	TEST_TRUE(k != NULL);
	TEST_EQ(lp_symtab_count(lp_kernel_symtab(k)), N);
	size_t bad = 0;
	char want[96];
	for (int i = 0; i < N; i++) {
		const struct lp_sym *s = lp_kernel_find(k, 0xffffffff81000000ull + (uint64_t)i * 32 + 1, NULL);
		snprintf(want, sizeof want, "a_name_long_enough_to_make_the_file_big_%d", i);
		bad += !s || strcmp(s->name, want);
	}
	TEST_EQ(bad, 0);
	lp_kernel_free(k);
}

/* Lines much shorter than real ones: more symbols than the table was
 * reserved for (one per 20 bytes of file), so it grows. */
static void test_short_lines(void)
{
	enum { N = 300000 };
	FILE *f = tmp_open();

	for (int i = 0; i < N; i++)
		fprintf(f, "%x t f\n", 0x100000 + i * 16);
	fclose(f);
	struct lp_kernel *k = lp_kernel_load(tmpfile_path, NULL);
	TEST_TRUE(k != NULL);
	TEST_EQ(lp_symtab_count(lp_kernel_symtab(k)), N);
	size_t bad = 0;
	for (int i = 0; i < N; i++) {
		const struct lp_sym *s = lp_kernel_find(k, 0x100000 + (uint64_t)i * 16 + 15, NULL);
		bad += !s || s->start != 0x100000 + (uint64_t)i * 16 || strcmp(s->name, "f");
	}
	TEST_EQ(bad, 0);
	lp_kernel_free(k);
	unlink(tmpfile_path);
}

static void test_missing(void)
{
	bool hidden = true;

	errno = 0;
	TEST_TRUE(lp_kernel_load("/nonexistent/kallsyms", &hidden) == NULL);
	TEST_EQ(errno, ENOENT);
	TEST_TRUE(!hidden);
}

/* Appends one ELF note (name and descriptor padded to 4 bytes). */
static void put_note(FILE *f, const char *name, uint32_t type, const void *desc, uint32_t descsz)
{
	uint32_t h[3] = { (uint32_t)strlen(name) + 1, descsz, type };
	static const char zeros[4];
	fwrite(h, sizeof h, 1, f);
	fwrite(name, h[0], 1, f);
	fwrite(zeros, (4 - h[0] % 4) % 4, 1, f);
	fwrite(desc, descsz, 1, f);
	fwrite(zeros, (4 - descsz % 4) % 4, 1, f);
}

/* lp_kernel_build_id: the GNU build-id note among others (as
 * /sys/kernel/notes has Xen and Linux notes too), truncated and missing
 * ones, and the running kernel's. */
static void test_build_id_notes(void)
{
	uint8_t want[20], id[32];
	for (int i = 0; i < 20; i++)
		want[i] = (uint8_t)(0xa0 + i);
	FILE *f = tmp_open();
	put_note(f, "Xen", 6, "abcde", 5);
	put_note(f, "GNU", 1, "\0\0\0\0\3\0\0\0", 8);      /* ABI tag, not a build-id */
	put_note(f, "Linux", 3, "x", 1);                        /* type 3, another name */
	put_note(f, "GNU", 3, want, sizeof want);
	fclose(f);
	TEST_EQ(lp_kernel_build_id(tmpfile_path, id, sizeof id), 20);
	TEST_TRUE(!memcmp(id, want, sizeof want));
	TEST_EQ(lp_kernel_build_id(tmpfile_path, id, 8), 8);
	TEST_EQ(truncate(tmpfile_path, 12 + 4 + 8 + 12 + 4 + 8 + 12 + 8 + 4 + 12 + 4 + 10), 0);
	TEST_EQ(lp_kernel_build_id(tmpfile_path, id, sizeof id), 0);  /* cut inside it */
	unlink(tmpfile_path);
	f = tmp_open();
	put_note(f, "Xen", 6, "abcde", 5);
	fclose(f);
	TEST_EQ(lp_kernel_build_id(tmpfile_path, id, sizeof id), 0);
	TEST_EQ(errno, ENOENT);
	unlink(tmpfile_path);
	TEST_EQ(lp_kernel_build_id("/nonexistent/notes", id, sizeof id), 0);
	TEST_EQ(errno, ENOENT);
	if (access("/sys/kernel/notes", R_OK) == 0)
		TEST_EQ(lp_kernel_build_id(NULL, id, sizeof id), 20);
}

/* Loads text as a kallsyms file; the flaw lp_kernel_flaw finds, as the
 * word after "no " or the first word ("" when whole). */
static const char *flaw_of(const char *text)
{
	static char word[32];
	FILE *f = tmp_open();
	fputs(text, f);
	fclose(f);
	struct lp_kernel *k = lp_kernel_load(tmpfile_path, NULL);
	TEST_TRUE(k != NULL);
	const char *why = k ? lp_kernel_flaw(k) : "not loaded";
	const char *no = why ? strstr(why, "no ") : NULL;
	snprintf(word, sizeof word, "%s", !why ? "" : no ? no + 3 : why);
	word[strcspn(word, " ")] = '\0';
	lp_kernel_free(k);
	unlink(tmpfile_path);
	return word;
}

/* A kallsyms file looks whole (a copy in perf's cache is refused when it
 * does not: resolve.c) when its last line ends, and its kernel lines hold
 * _stext and _etext in address order; modules and zero addresses aside. */
static void test_whole(void)
{
	static const char head[] =
		"0000000000000000 A fixed_percpu_data\n"
		"ffffffff81000000 T _stext\n"
		"ffffffff81000000 T _text\n"
		"ffffffff81000100 t fn\n";
	static const char tail[] =
		"ffffffff82000000 T _etext\n"
		"ffffffff83000000 D some_data\n"
		"ffffffffc0001000 t mod_fn\t[mod_a]\n"
		"ffffffffc0000100 t bpf_prog\t[bpf]\n";   /* modules: any order */
	char buf[1024];

	snprintf(buf, sizeof buf, "%s%s", head, tail);
	TEST_STREQ(flaw_of(buf), "");
	buf[strlen(buf) - 1] = '\0';                   /* the last newline */
	TEST_STREQ(flaw_of(buf), "it");                 /* "it ends in the middle ..." */
	snprintf(buf, sizeof buf, "%s", head);          /* cut before _etext */
	TEST_STREQ(flaw_of(buf), "_etext");
	snprintf(buf, sizeof buf, "%s", tail);
	TEST_STREQ(flaw_of(buf), "_stext");
	snprintf(buf, sizeof buf, "%sffffffff80000000 t back\n%s", head, tail);
	TEST_STREQ(flaw_of(buf), "the");                /* "the kernel's symbols are not in ..." */
	TEST_STREQ(flaw_of(""), "_stext");
}

/* ---- /proc/modules (kmodules.c) ---- */

struct mods {
	char names[8][64];
	uint64_t start[8], len[8];
	int n, stop_at;
};

static int note_module(const struct lp_record *r, void *arg)
{
	struct mods *m = arg;
	TEST_EQ(r->type, PERF_RECORD_MMAP);
	TEST_EQ(r->misc, PERF_RECORD_MISC_KERNEL);
	TEST_EQ(r->u.mmap.pid, UINT32_MAX);
	TEST_EQ_U64(r->u.mmap.pgoff, 0);
	if (m->n < 8) {
		snprintf(m->names[m->n], sizeof m->names[0], "%s", r->u.mmap.filename);
		m->start[m->n] = r->u.mmap.start;
		m->len[m->n] = r->u.mmap.len;
	}
	return ++m->n == m->stop_at ? 7 : 0;
}

/* Modules as perf writes their maps; lines that are no module's (short,
 * a bad number, hidden or empty, wrapping, a NUL) are passed over; fn's
 * non-zero return stops the scan; a missing file has none. */
static void test_modules(void)
{
	static const char text[] =
		"ext4 995328 2 - Live 0xffffffffc0a2b000 (E)\n"
		"mbcache 16384 1 ext4, Live 0xffffffffc0a1e000\n"
		"hidden 16384 0 - Live 0x0000000000000000\n"
		"empty 0 0 - Live 0xffffffffc0a00000\n"
		"short 16384 0 - Live\n"
		"badsize 16k 0 - Live 0xffffffffc0900000\n"
		"badaddr 4096 0 - Live ffffffffc0800000\n"
		"wraps 8192 0 - Live 0xfffffffffffff000\n"
		"huge 4096 0 - Live 0x1ffffffffffffffff\n"
		"\n"
		"  spaced   4096   0   -   Live   0xffffffffc0700000\n"
		"nul\0x 4096 0 - Live 0xffffffffc0600000\n"
		"last 8192 0 - Loading 0xffffffffc0500000";
	struct mods m = { .stop_at = -1 };
	TEST_EQ(lp_kernel_modules_parse(text, sizeof text - 1, note_module, &m), 0);
	TEST_EQ(m.n, 4);
	TEST_STREQ(m.names[0], "[ext4]");
	TEST_EQ_U64(m.start[0], 0xffffffffc0a2b000ull);
	TEST_EQ_U64(m.len[0], 995328);
	TEST_STREQ(m.names[1], "[mbcache]");
	TEST_STREQ(m.names[2], "[spaced]");
	TEST_EQ_U64(m.start[2], 0xffffffffc0700000ull);
	TEST_STREQ(m.names[3], "[last]");
	TEST_EQ_U64(m.len[3], 8192);

	struct mods one = { .stop_at = 1 };
	TEST_EQ(lp_kernel_modules_parse(text, sizeof text - 1, note_module, &one), 7);
	TEST_EQ(one.n, 1);

	FILE *f = tmp_open();
	fputs(text, f);
	fclose(f);
	struct mods fm = { .stop_at = -1 };
	TEST_EQ(lp_kernel_modules_scan(tmpfile_path, note_module, &fm), 0);
	TEST_EQ(fm.n, 3);               /* the file ends at the NUL's line */
	unlink(tmpfile_path);
	struct mods none = { .stop_at = -1 };
	TEST_EQ(lp_kernel_modules_scan("/nonexistent/modules", note_module, &none), 0);
	TEST_EQ(none.n, 0);
	/* this machine's, whatever it has: every record well formed */
	struct mods here = { .stop_at = -1 };
	TEST_EQ(lp_kernel_modules_scan("/proc/modules", note_module, &here), 0);
}

TEST_MAIN("kernel",
	TEST_CASE(test_proc_kallsyms),
	TEST_CASE(test_synthetic),
	TEST_CASE(test_hidden),
	TEST_CASE(test_buffer_boundaries),
	TEST_CASE(test_long_lines),
	TEST_CASE(test_modules_out_of_order),
	TEST_CASE(test_sizeless_file),
	TEST_CASE(test_short_lines),
	TEST_CASE(test_missing),
	TEST_CASE(test_build_id_notes),
	TEST_CASE(test_whole),
	TEST_CASE(test_modules))
