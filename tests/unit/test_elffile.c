/*
 * test_elffile.c - lp_elf_each_sym (elffile.c): a symbol table read with
 * pread a window at a time gives every symbol as libelf's gelf_getsym
 * does, on this test's own .symtab, libc's .dynsym (more than a window),
 * and a 32-bit object; a callback's non-zero return stops the scan.
 * (A table longer than its file never gets here: libelf refuses its
 * section header.)
 */
#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>

#include "test.h"
#include "util/elffile.h"

struct seen {
	Elf_Data *data;         /* libelf's reading of the table */
	size_t calls, bad, next;
	size_t stop_at;         /* 0: never stop */
};

static int compare(void *arg, size_t i, const GElf_Sym *sym)
{
	struct seen *s = arg;
	GElf_Sym want;

	s->calls++;
	if (i != s->next++ || !gelf_getsym(s->data, (int)i, &want) ||
	    memcmp(&want, sym, sizeof want)) {
		if (s->bad++ < 3)
			TEST_FAIL_("symbol %zu differs from libelf's", i);
	}
	return s->stop_at && i == s->stop_at ? 7 : 0;
}

/* Scans every symbol table of the ELF file at path, comparing with
 * libelf; returns the most symbols one table had, 0 when the file can't
 * be read. */
static size_t scan_file(const char *path)
{
	int fd;
	Elf *e;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t most = 0;

	if (lp_elf_open(path, 0, &fd, &e))
		return 0;
	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		struct seen s = { .data = elf_getdata(scn, NULL), .next = 1 };
		TEST_TRUE(s.data != NULL);
		size_t n = sh.sh_size / sh.sh_entsize;
		TEST_EQ(lp_elf_each_sym(e, fd, scn, compare, &s), 0);
		TEST_EQ(s.calls, n - 1);
		TEST_EQ(s.bad, 0);
		most = n > most ? n : most;
	}
	lp_elf_close(fd, e);
	return most;
}

static void test_own_symtab(void)
{
	TEST_TRUE(scan_file("/proc/self/exe") > 50);
}

static void test_libc_more_than_a_window(void)
{
	const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
	if (access(libc, R_OK))
		TEST_SKIP("no %s", libc);
	TEST_TRUE(scan_file(libc) > 2 * LP_ELF_SYM_WINDOW);
}

static void test_32_bit(void)
{
	const char *src = test_tmp("t.c"), *obj = test_tmp("t32.o");
	FILE *f = fopen(src, "w");
	TEST_TRUE(f != NULL);
	fputs("int x = 1; static int y; int f(void) { return x + y; }\n", f);
	fclose(f);
	if (sh("cc -m32 -c -o %s %s 2>/dev/null", obj, src))
		TEST_SKIP("cc -m32 -c fails here: no 32-bit object to read");
	TEST_TRUE(scan_file(obj) >= 4);
	test_tmp_cleanup();
}

/* The .symtab section of e: its header into *sh, its index. */
static Elf_Scn *symtab_of(Elf *e, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, sh) && sh->sh_type == SHT_SYMTAB)
			return scn;
	return NULL;
}

static void test_callback_stops(void)
{
	int fd;
	Elf *e;
	GElf_Shdr sh;
	TEST_EQ(lp_elf_open("/proc/self/exe", 0, &fd, &e), 0);
	Elf_Scn *scn = symtab_of(e, &sh);
	TEST_TRUE(scn != NULL);
	struct seen s = { .data = elf_getdata(scn, NULL), .next = 1, .stop_at = 5 };
	TEST_EQ(lp_elf_each_sym(e, fd, scn, compare, &s), 7);
	TEST_EQ(s.calls, 5);
	lp_elf_close(fd, e);
}

TEST_MAIN("elffile",
	TEST_CASE(test_own_symtab),
	TEST_CASE(test_libc_more_than_a_window),
	TEST_CASE(test_32_bit),
	TEST_CASE(test_callback_stops))
