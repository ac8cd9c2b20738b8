/*
 * test_plt.c - PLT stub names (plt.c) on real binaries, and the model of
 * perf's symbol tree they rest on (perftree.c).
 *
 * tests/progs/pltcalls.c is compiled here with the Makefile's workload
 * flags (and again without PIE, and with IBT's .plt.sec); objdump -d's
 * "<NAME@plt>" labels in .plt are the reference for names and addresses.
 * Which stubs perf 6.1 names and which it shows as the _init overlapping
 * them is checked against perf itself by tests/e2e/sym_plt.sh.
 */
#include <errno.h>

#include "test.h"
#include "luaprof/sym.h"
#include "sym/perftree.h"
#include "sym/sym_int.h"

#define PROG_FLAGS "-O1 -g -fno-omit-frame-pointer -fno-inline-functions-called-once -pthread"

static char tmpdir[64];

static const char *tmp_path(const char *name)
{
	static char buf[4][128];
	static int n;
	char *p = buf[n++ & 3];

	if (!tmpdir[0]) {
		snprintf(tmpdir, sizeof tmpdir, "/tmp/lp_plt.XXXXXX");
		if (!mkdtemp(tmpdir))
			abort();
	}
	snprintf(p, sizeof buf[0], "%s/%s", tmpdir, name);
	return p;
}

static void cleanup(void)
{
	if (tmpdir[0])
		sh("rm -rf %s", tmpdir);
}

struct label {
	uint64_t addr;
	char name[128];
	char sec[32];
};

/* objdump -d's "<...@plt>:" labels of bin, with their sections. */
static size_t plt_labels(const char *bin, struct label *out, size_t max)
{
	char line[512], sec[32] = "";
	size_t n = 0;
	FILE *f;

	if (sh("objdump -d %s > %s 2>/dev/null", bin, tmp_path("dis.txt")))
		return 0;
	f = fopen(tmp_path("dis.txt"), "r");
	while (f && fgets(line, sizeof line, f) && n < max) {
		unsigned long long a;
		char name[128];

		if (sscanf(line, "Disassembly of section %31[^:]:", sec) == 1)
			continue;
		if (sscanf(line, "%llx <%127[^>]>:", &a, name) != 2)
			continue;
		size_t len = strlen(name);
		if (len < 4 || strcmp(name + len - 4, "@plt") || strchr(name, '-'))
			continue;
		out[n].addr = a;
		snprintf(out[n].name, sizeof out[n].name, "%s", name);
		snprintf(out[n].sec, sizeof out[n].sec, "%s", sec);
		n++;
	}
	if (f)
		fclose(f);
	return n;
}

static const char *build(const char *name, const char *extra)
{
	const char *bin = tmp_path(name);

	if (sh("cc " PROG_FLAGS " %s -o %s tests/progs/pltcalls.c 2>/dev/null", extra, bin))
		return NULL;
	return bin;
}

/* Every stub of .plt that luaprof names has objdump's name and exactly the
 * stub's 16 bytes; the others are inside _init, as perf shows them; no
 * other address gets a @plt name; and at least one stub is named. */
static void check_binary(const char *path)
{
	char bin[128];
	struct label lab[64];
	size_t n, named = 0, in_plt = 0;
	struct lp_dso *d;

	snprintf(bin, sizeof bin, "%s", path);  /* tmp_path's buffers get reused */
	n = plt_labels(bin, lab, 64);
	d = lp_dso_open(bin);

	TEST_TRUE(n > 5);
	TEST_TRUE(d != NULL);
	if (!d)
		return;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(lab[i].sec, ".plt"))
			continue;
		in_plt++;
		const struct lp_sym *s = lp_dso_find(d, lab[i].addr);
		TEST_TRUE(s != NULL);
		if (!s)
			continue;
		if (!strcmp(s->name, "_init"))
			continue;
		TEST_STREQ(s->name, lab[i].name);
		TEST_EQ_U64(s->start, lab[i].addr);
		TEST_EQ_U64(s->end, lab[i].addr + 16);
		named++;
	}
	TEST_TRUE(in_plt > 5);
	TEST_TRUE(named > 0);
	const struct lp_symtab *t = lp_dso_symtab(d);
	for (size_t i = 0; i < lp_symtab_count(t); i++) {
		const struct lp_sym *s = lp_symtab_at(t, i);
		size_t len = strlen(s->name), k = 0;

		if (len < 4 || strcmp(s->name + len - 4, "@plt"))
			continue;
		while (k < n && (lab[k].addr != s->start || strcmp(lab[k].name, s->name)))
			k++;
		if (k == n)
			fprintf(stderr, "  %s at %#" PRIx64 " is no objdump label\n", s->name, s->start);
		TEST_TRUE(k < n && !strcmp(lab[k].sec, ".plt"));
	}
	lp_dso_free(d);
}

/* As the Makefile builds the workload (PIE), and without PIE. */
static void stubs_match_objdump(void)
{
	static const char *const flags[][2] = { { "pie", "" }, { "nopie", "-no-pie" } };

	for (size_t i = 0; i < 2; i++) {
		const char *bin = build(flags[i][0], flags[i][1]);

		TEST_TRUE(bin != NULL);
		if (bin)
			check_binary(bin);
	}
	cleanup();
}

/* The address of bin's section sec, 0 when there is none. */
static uint64_t section_addr(const char *bin, const char *sec)
{
	unsigned long long a = 0;
	FILE *f;

	if (sh("readelf -SW %s | awk '$2 == \"%s\" {print $4}' > %s", bin, sec,
	       tmp_path("sec.txt")))
		return 0;
	f = fopen(tmp_path("sec.txt"), "r");
	if (f && fscanf(f, "%llx", &a) != 1)
		a = 0;
	if (f)
		fclose(f);
	return a;
}

/* With IBT the calls go to .plt.sec, which objdump labels and perf 6.1
 * does not name (nor luaprof); perf names the lazy-binding halves in .plt
 * instead, the i-th after the header by the i-th relocation, which is the
 * function of the i-th .plt.sec label. */
static void ibt_names_plt_not_plt_sec(void)
{
	char bin[128];
	const char *b = build("ibt", "-fcf-protection=full -Wl,-z,ibtplt");
	struct label lab[64];
	size_t n, k = 0, named = 0;
	uint64_t plt;
	struct lp_dso *d;

	if (!b) {
		fprintf(stderr, "  skip: cc cannot build with -fcf-protection -z ibtplt\n");
		cleanup();
		return;
	}
	snprintf(bin, sizeof bin, "%s", b);
	n = plt_labels(bin, lab, 64);
	plt = section_addr(bin, ".plt");
	d = lp_dso_open(bin);
	TEST_TRUE(d != NULL && plt != 0 && section_addr(bin, ".plt.sec") != 0);
	for (size_t i = 0; d && i < n; i++) {
		const struct lp_sym *s;

		if (strcmp(lab[i].sec, ".plt.sec"))
			continue;
		s = lp_dso_find(d, lab[i].addr);
		TEST_TRUE(!s || !strcmp(s->name, "_init"));
		s = lp_dso_find(d, plt + 16 * ++k);
		TEST_TRUE(s != NULL);
		if (s && strcmp(s->name, "_init")) {
			TEST_STREQ(s->name, lab[i].name);
			TEST_EQ_U64(s->start, plt + 16 * k);
			named++;
		}
	}
	TEST_TRUE(k > 5);
	TEST_TRUE(named > 0);
	lp_dso_free(d);
	cleanup();
}

/* A stripped program: perf loads no symbols from its .dynsym (imports
 * only), so it adds no stubs either. */
static void stripped_gets_no_stubs(void)
{
	const char *bin = build("stripped", "-s");
	struct lp_dso *d = bin ? lp_dso_open(bin) : NULL;

	TEST_TRUE(d != NULL);
	if (d)
		TEST_EQ(lp_symtab_count(lp_dso_symtab(d)), 0);
	lp_dso_free(d);
	cleanup();
}

/* ---- the tree model ------------------------------------------------------------ */

/* Checks the red-black rules and the links below i; returns the black
 * height, -1 when broken. */
static int check_node(const struct lp_ptree *t, int32_t i, int32_t parent)
{
	if (i == LP_PTREE_NIL)
		return 1;
	const struct lp_ptree_node *n = &t->n[i];
	if (n->parent != parent)
		return -1;
	if (n->red && ((n->left != LP_PTREE_NIL && t->n[n->left].red) ||
		       (n->right != LP_PTREE_NIL && t->n[n->right].red)))
		return -1;
	if (n->left != LP_PTREE_NIL && t->n[n->left].start > n->start)
		return -1;
	if (n->right != LP_PTREE_NIL && t->n[n->right].start < n->start)
		return -1;
	int l = check_node(t, n->left, i), r = check_node(t, n->right, i);
	if (l < 0 || l != r)
		return -1;
	return l + !n->red;
}

/* Random inserts (many equal keys) and erases keep a valid red-black tree
 * whose in-order walk is sorted by start and, among equal starts, by
 * insertion (equal keys go right, as perf's symbols__insert does). */
static void tree_stays_valid(void)
{
	struct lp_ptree t = LP_PTREE_INIT;
	static uint8_t gone[4000];
	int bad = 0;

	srandom(7);

	for (int i = 0; i < 4000; i++) {
		int32_t n = lp_ptree_insert(&t, (uint64_t)random() % 500, 0);

		TEST_EQ(n, i);
		if (i % 3 == 2) {
			int32_t v = (int32_t)(random() % (i + 1));
			if (!gone[v]) {
				lp_ptree_erase(&t, v);
				gone[v] = 1;
			}
		}
		if (i % 97 == 0 && (check_node(&t, t.root, LP_PTREE_NIL) < 0 ||
				    (t.root != LP_PTREE_NIL && t.n[t.root].red)))
			bad++;
	}
	TEST_EQ(bad, 0);
	size_t seen = 0;
	int32_t prev = LP_PTREE_NIL;
	for (int32_t i = lp_ptree_first(&t); i != LP_PTREE_NIL; i = lp_ptree_next(&t, i)) {
		TEST_TRUE(!gone[i]);
		if (prev != LP_PTREE_NIL)
			TEST_TRUE(t.n[prev].start < t.n[i].start ||
				  (t.n[prev].start == t.n[i].start && prev < i));
		prev = i;
		seen++;
	}
	size_t alive = 0;
	for (int i = 0; i < 4000; i++)
		alive += !gone[i];
	TEST_EQ(seen, alive);
	lp_ptree_free(&t);
}

/* perf's lookup goes by the tree, not by the innermost range: with a wide
 * [0, 100) (a sizeless symbol after perf extended it) inserted first and
 * [40, 50) after it, the root is the wide one, so lookups inside the narrow
 * one find the wide one. */
static void find_stops_at_first_holder(void)
{
	struct lp_ptree t = LP_PTREE_INIT;
	int32_t wide = lp_ptree_insert(&t, 0, 100);
	int32_t narrow = lp_ptree_insert(&t, 40, 50);

	TEST_EQ(t.root, wide);
	TEST_EQ(lp_ptree_find(&t, 45), wide);
	TEST_EQ(lp_ptree_find(&t, 100), LP_PTREE_NIL);
	lp_ptree_erase(&t, wide);
	TEST_EQ(lp_ptree_find(&t, 45), narrow);
	TEST_EQ(lp_ptree_find(&t, 50), LP_PTREE_NIL);
	int32_t empty = lp_ptree_insert(&t, 70, 70);   /* empty: holds its start */
	TEST_EQ(lp_ptree_find(&t, 70), empty);
	lp_ptree_free(&t);
}

/* lp_dso_find of d (read from a file: stubs named at the first lookup
 * near them) and of m (the same bytes from memory: named at once) agree at
 * every address of m's symbols' range, walked up (dir 1) or down. */
static void same_answers(struct lp_dso *d, struct lp_dso *m, int dir)
{
	const struct lp_symtab *t = lp_dso_symtab(m);
	size_t n = lp_symtab_count(t), bad = 0;

	TEST_TRUE(n > 0);
	if (!n)
		return;
	uint64_t lo = lp_symtab_at(t, 0)->start, hi = lo;
	for (size_t i = 0; i < n; i++)
		if (lp_symtab_at(t, i)->end > hi)
			hi = lp_symtab_at(t, i)->end;
	lo = lo > 4096 ? lo - 4096 : 0;
	hi += 4096;
	for (uint64_t k = 0; k < hi - lo && bad < 5; k++) {
		uint64_t a = dir > 0 ? lo + k : hi - 1 - k;
		const struct lp_sym *x = lp_dso_find(d, a), *y = lp_dso_find(m, a);
		if (!x != !y || (x && (strcmp(x->name, y->name) || x->start != y->start ||
				       x->end != y->end))) {
			fprintf(stderr, "  %#" PRIx64 ": %s, named at once %s\n", a,
				x ? x->name : "nothing", y ? y->name : "nothing");
			bad++;
		}
	}
	TEST_EQ(bad, 0);
}

/* The stubs of an object read from a file are named at the first lookup
 * where they can change the answer (dso.c): every lookup, before and
 * after, answers as a table that named them at once, whichever end of the
 * object the lookups start from; with a .symtab, with .dynsym alone (the
 * span then reaches far past the stubs), and on this test program. */
static void stubs_later_same_answers(void)
{
	const char *bins[] = { build("pie", ""), build("dynsym", "-s -rdynamic"),
			       "/proc/self/exe" };

	for (size_t i = 0; i < sizeof bins / sizeof *bins; i++) {
		char bin[128];
		FILE *f;
		static char image[16 << 20];
		size_t size;

		TEST_TRUE(bins[i] != NULL);
		if (!bins[i])
			continue;
		snprintf(bin, sizeof bin, "%s", bins[i]);
		if (!(f = fopen(bin, "rb")))
			continue;
		size = fread(image, 1, sizeof image, f);
		fclose(f);
		for (int dir = 1; dir >= -1; dir -= 2) {
			struct lp_dso *d = lp_dso_open(bin), *m = lp_dso_open_mem(bin, image, size);
			TEST_TRUE(d && m);
			if (d && m)
				same_answers(d, m, dir);
			lp_dso_free(d);
			lp_dso_free(m);
		}
	}
	cleanup();
}

TEST_MAIN("plt",
	  TEST_CASE(stubs_match_objdump),
	  TEST_CASE(ibt_names_plt_not_plt_sec),
	  TEST_CASE(stripped_gets_no_stubs),
	  TEST_CASE(stubs_later_same_answers),
	  TEST_CASE(tree_stays_valid),
	  TEST_CASE(find_stops_at_first_holder))
