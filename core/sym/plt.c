/*
 * plt.c - names for PLT stubs, "NAME@plt", as perf 6.1 gives them
 * (dso__synthesize_plt_symbols).
 *
 * perf 6.1's rule: the object's .rela.plt (or .rel.plt), whose sh_link must
 * be the .dynsym section, and its .plt.  The i-th relocation, whatever its
 * type, names the i-th stub after the .plt header: the dynamic symbol it
 * refers to plus "@plt" (an IRELATIVE relocation refers to symbol 0, so its
 * stub is plain "@plt").  Header and entry sizes are .plt's sh_entsize
 * (fixed sizes on ARM, AArch64 and SPARC).  .plt.sec and .plt.got are not
 * looked at, and the relocations are not sorted by GOT slot, so where the
 * linker put IRELATIVE relocations last (libc.so.6) the names are shifted,
 * exactly as perf 6.1 prints them.
 *
 * perf adds the stubs after settling its other symbols, whose sizeless ones
 * were already extended to the next symbol: _init in .init usually
 * stretches over the whole .plt.  Where ranges overlap like this, perf's
 * lookup returns whichever symbol it meets first walking down its tree, so
 * some stubs are named and others are shown as _init, depending on the
 * tree's shape, and past the stubs (.plt.sec, .plt.got) the search may find
 * nothing at all.  To name exactly what perf names, this file replays perf's
 * loading on a model of the tree (perftree.c): the symbols of each symbol
 * table perf reads (.symtab then .dynsym, or .dynsym alone: functions,
 * objects, and labels in sections named *text* or *data*, in table order),
 * after each table the sizeless ends fixed and aliases removed as
 * symbols__fixup_end and symbols__fixup_duplicate do, then the stubs.  A stub is added only when
 * perf's lookup of its address finds it, and where a symbol overlapping the
 * stubs is not found by perf, a hole (lp_symtab_add_late) says so.
 *
 * Differences from perf 6.1: addresses are virtual addresses (perf uses
 * .plt's file offset, the same in every common layout), and C++ names stay
 * mangled, as everywhere in luaprof.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sym/perftree.h"
#include "sym/sym_int.h"
#include "util/elffile.h"
#include "util/grow.h"

#define PLT_NAME_MAX 1024       /* perf's sympltname[] */

struct stub {
	uint64_t addr;
	uint32_t sym;           /* its dynamic symbol, named when the stub is added */
	int32_t node;
};

struct stubs {
	struct stub *v;
	size_t nr;
	uint64_t size;          /* of each stub */
	Elf *e;                 /* where the names are: */
	Elf_Data *dyn;          /* .dynsym */
	size_t strndx;          /* its string table */
};

/* What perf's choose_best_symbol looks at, per tree node: the name is
 * looked up (in strtab of e) only for aliases, the few symbols compared. */
struct meta {
	uint32_t name;          /* st_name */
	uint8_t bind;
	uint8_t table;          /* which of perf's tables: strtab's index */
};

struct metas {
	struct meta *v;
	size_t cap;
	Elf *e;
	size_t strtab[2];       /* of each table perf reads */
};

static const char *meta_name(const struct metas *m, const struct meta *x)
{
	const char *s = elf_strptr(m->e, m->strtab[x->table], x->name);
	return s ? s : "";
}

static void stubs_free(struct stubs *s)
{
	free(s->v);
	s->v = NULL;
	s->nr = 0;
}

/* perf 6.1's header and entry sizes per machine. */
static void plt_sizes(const GElf_Ehdr *eh, const GElf_Shdr *plt, uint64_t *head,
		      uint64_t *ent)
{
	switch (eh->e_machine) {
	case EM_ARM:
		*head = 20, *ent = 12;
		break;
	case EM_AARCH64:
		*head = 32, *ent = 16;
		break;
	case EM_SPARC:
		*head = 48, *ent = 12;
		break;
	case EM_SPARCV9:
		*head = 128, *ent = 32;
		break;
	default:
		*head = *ent = plt->sh_entsize;
		break;
	}
}

/* "NAME@plt" for stub s of st, in out (PLT_NAME_MAX bytes); "@plt" for a
 * bad index, as symbol 0. */
static const char *stub_name(const struct stubs *st, const struct stub *s, char *out)
{
	GElf_Sym sym;
	const char *n = NULL;

	if (gelf_getsym(st->dyn, (int)s->sym, &sym))
		n = elf_strptr(st->e, st->strndx, sym.st_name);
	snprintf(out, PLT_NAME_MAX, "%s@plt", n ? n : "");
	return out;
}

/* Symbol index of relocation i of rel (REL or RELA). */
static int rel_sym(Elf_Data *rel, bool rela, size_t i, uint32_t *sym)
{
	GElf_Rela ra;
	GElf_Rel r;

	if (rela && gelf_getrela(rel, (int)i, &ra)) {
		*sym = (uint32_t)GELF_R_SYM(ra.r_info);
		return 0;
	}
	if (!rela && gelf_getrel(rel, (int)i, &r)) {
		*sym = (uint32_t)GELF_R_SYM(r.r_info);
		return 0;
	}
	return -1;
}

/* Where perf 6.1 puts the stubs of e: the first at *first, nr of them, each
 * of *size bytes, and the relocations naming them (rel, its type in *rsh)
 * and the dynamic symbols (dyn, its header in *dsh).  False when e lacks
 * what perf needs: no stubs. */
static bool stub_layout(Elf *e, uint64_t *first, uint64_t *size, size_t *nr, Elf_Data **rel,
			GElf_Shdr *rsh, Elf_Data **dyn, GElf_Shdr *dsh)
{
	GElf_Ehdr eh;
	GElf_Shdr psh;
	uint64_t head, ent;
	Elf_Scn *rscn, *dscn = lp_elf_section(e, ".dynsym", LP_ELF_ANY_TYPE, dsh);

	if (!gelf_getehdr(e, &eh) || !dscn || dsh->sh_type != SHT_DYNSYM)
		return false;
	size_t dynidx = elf_ndxscn(dscn);
	rscn = lp_elf_section(e, ".rela.plt", LP_ELF_ANY_TYPE, rsh);
	if (!rscn)
		rscn = lp_elf_section(e, ".rel.plt", LP_ELF_ANY_TYPE, rsh);
	if (!rscn || rsh->sh_link != dynidx || !rsh->sh_entsize ||
	    (rsh->sh_type != SHT_RELA && rsh->sh_type != SHT_REL) ||
	    !lp_elf_section(e, ".plt", LP_ELF_ANY_TYPE, &psh))
		return false;
	*rel = elf_getdata(rscn, NULL);
	*dyn = elf_getdata(dscn, NULL);
	plt_sizes(&eh, &psh, &head, &ent);
	*nr = rsh->sh_size / rsh->sh_entsize;
	*first = psh.sh_addr + head;
	*size = ent;
	return *rel && *dyn && ent && *nr && *nr <= (1u << 20);
}

/* The stubs perf 6.1 synthesizes for e; none (0) when e lacks what it
 * needs.  -ENOMEM. */
static int read_stubs(Elf *e, struct stubs *out)
{
	GElf_Shdr rsh, dsh;
	Elf_Data *rel, *dyn;
	uint64_t first, ent;
	size_t nrel;

	if (!stub_layout(e, &first, &ent, &nrel, &rel, &rsh, &dyn, &dsh))
		return 0;
	out->v = calloc(nrel, sizeof *out->v);
	if (!out->v)
		return -ENOMEM;
	out->size = ent;
	out->e = e;
	out->dyn = dyn;
	out->strndx = dsh.sh_link;
	for (size_t i = 0; i < nrel; i++) {
		uint32_t sym = 0;
		struct stub *s = &out->v[out->nr];

		if (rel_sym(rel, rsh.sh_type == SHT_RELA, i, &sym))
			break;
		s->addr = first + i * ent;
		s->sym = sym;
		out->nr++;
	}
	return 0;
}

/* ---- replaying perf's symbol loading --------------------------------------- */

/* perf 6.1's dso__load_sym filter: named functions and objects that are
 * defined, and labels (NOTYPE, not hidden or internal, not absolute) in a
 * section whose name contains "text" or "data". */
static bool text_or_data(Elf *e, size_t shstrndx, size_t shndx)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elf_getscn(e, shndx);
	const char *sec = scn && gelf_getshdr(scn, &sh) ? elf_strptr(e, shstrndx, sh.sh_name) : NULL;
	return sec && (strstr(sec, "text") || strstr(sec, "data"));
}

/* Per section index, whether its name holds "text" or "data": 0 not
 * known yet, 1 no, 2 yes (sections past the array are looked up each
 * time). */
#define KNOWN_SECTIONS 256

static bool perf_keeps(Elf *e, size_t shstrndx, const GElf_Sym *s, uint8_t *known)
{
	unsigned type = GELF_ST_TYPE(s->st_info), vis = GELF_ST_VISIBILITY(s->st_other);

	if (!s->st_name || s->st_shndx == SHN_UNDEF)
		return false;
	if (type == STT_FUNC || type == STT_GNU_IFUNC || type == STT_OBJECT)
		return true;
	if (type != STT_NOTYPE || s->st_shndx == SHN_ABS || vis == STV_HIDDEN ||
	    vis == STV_INTERNAL)
		return false;
	if (s->st_shndx >= KNOWN_SECTIONS)
		return text_or_data(e, shstrndx, s->st_shndx);
	if (!known[s->st_shndx])
		known[s->st_shndx] = text_or_data(e, shstrndx, s->st_shndx) ? 2 : 1;
	return known[s->st_shndx] == 2;
}

/* The symbols of table scn: its data and how many entries it has. */
static Elf_Data *table_data(Elf *e, Elf_Scn *scn, size_t *count)
{
	size_t esz = gelf_fsize(e, ELF_T_SYM, 1, EV_CURRENT);
	Elf_Data *data = elf_getdata(scn, NULL);
	*count = data && esz ? data->d_size / esz : 0;
	return *count ? data : NULL;
}

/* Inserts perf's symbols of table `table` (scn) of e in table order;
 * *nr gets how many. */
static int load_symbols(struct lp_ptree *t, struct metas *meta, Elf *e, Elf_Scn *scn,
			uint8_t table, size_t *nr)
{
	size_t shstrndx, count;
	Elf_Data *data = table_data(e, scn, &count);
	uint8_t known[KNOWN_SECTIONS] = { 0 };
	GElf_Shdr sh;

	*nr = 0;
	if (!data || !gelf_getshdr(scn, &sh) || elf_getshdrstrndx(e, &shstrndx))
		return 0;
	meta->e = e;
	meta->strtab[table] = sh.sh_link;
	for (size_t i = 0; i < count; i++) {
		GElf_Sym s;
		int32_t node;

		if (!gelf_getsym(data, (int)i, &s))
			break;
		if (!perf_keeps(e, shstrndx, &s, known))
			continue;
		if (lp_grow(&meta->v, &meta->cap, t->nr, sizeof *meta->v, 256, INT32_MAX))
			return -ENOMEM;
		node = lp_ptree_insert(t, s.st_value, s.st_value + s.st_size);
		if (node < 0)
			return node;
		meta->v[node] = (struct meta){ s.st_name, (uint8_t)GELF_ST_BIND(s.st_info), table };
		(*nr)++;
	}
	return 0;
}

/* perf's symbols__fixup_end: a sizeless symbol ends where the next one in
 * address order starts; the last one at the page after its own. */
static void fixup_ends(struct lp_ptree *t)
{
	int32_t prev = lp_ptree_first(t), cur;

	if (prev == LP_PTREE_NIL)
		return;
	while ((cur = lp_ptree_next(t, prev)) != LP_PTREE_NIL) {
		if (t->n[prev].end == t->n[prev].start)
			t->n[prev].end = t->n[cur].start;
		prev = cur;
	}
	if (t->n[prev].end == t->n[prev].start)
		t->n[prev].end = ((t->n[prev].start + 4095) & ~(uint64_t)4095) + 4096;
}

static size_t underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* perf's choose_best_symbol: true when a is kept over b. */
static bool a_wins(const struct metas *m, const struct lp_ptree_node *na, const struct meta *a,
		   const struct lp_ptree_node *nb, const struct meta *b)
{
	bool sa = na->end > na->start, sb = nb->end > nb->start;

	if (sa != sb)
		return sa;
	if ((a->bind == STB_WEAK) != (b->bind == STB_WEAK))
		return b->bind == STB_WEAK;
	if ((a->bind == STB_GLOBAL) != (b->bind == STB_GLOBAL))
		return a->bind == STB_GLOBAL;
	const char *an = meta_name(m, a), *bn = meta_name(m, b);
	size_t ua = underscores(an), ub = underscores(bn);
	if (ua != ub)
		return ua < ub;
	return strlen(an) >= strlen(bn);
}

/* perf's symbols__fixup_duplicate: of neighbours at one address, the loser
 * is erased and the winner meets the next one. */
static void drop_aliases(struct lp_ptree *t, const struct metas *m)
{
	const struct meta *meta = m->v;
	int32_t cur = lp_ptree_first(t);

	while (cur != LP_PTREE_NIL) {
		int32_t next = lp_ptree_next(t, cur);

		if (next == LP_PTREE_NIL)
			break;
		if (t->n[cur].start != t->n[next].start) {
			cur = next;
		} else if (a_wins(m, &t->n[cur], &meta[cur], &t->n[next], &meta[next])) {
			lp_ptree_erase(t, next);
		} else {
			lp_ptree_erase(t, cur);
			cur = next;
		}
	}
}

/* The next stub boundary after a (stubs are contiguous: st->v[0].addr plus
 * multiples of the stub size), at most end. */
static uint64_t next_cut(const struct stubs *st, uint64_t a, uint64_t end)
{
	uint64_t lo = st->v[0].addr, hi = lo + st->nr * st->size, b;

	if (a < lo)
		b = lo;
	else if (a >= hi)
		b = end;
	else
		b = lo + ((a - lo) / st->size + 1) * st->size;
	return b < end && b > a ? b : end;
}

/* Holes: the stretches of a symbol overlapping the stubs where perf's
 * lookup finds nothing (it went down a branch that holds neither).  A
 * budget of lookups bounds the work on a hostile file. */
static int add_holes(struct lp_symtab *t, const struct lp_ptree *tree,
		     const struct stubs *st, int32_t first_stub)
{
	uint64_t lo = st->v[0].addr, hi = lo + st->nr * st->size;
	size_t budget = 4 * st->nr + 1024;

	for (int32_t c = lp_ptree_first(tree); c != LP_PTREE_NIL; c = lp_ptree_next(tree, c)) {
		const struct lp_ptree_node *n = &tree->n[c];
		uint64_t hole = 0, hole_end = 0;

		if (c >= first_stub || n->start >= hi || n->end <= lo || n->end <= n->start)
			continue;
		for (uint64_t a = n->start, b; a < n->end && budget; a = b, budget--) {
			b = next_cut(st, a, n->end);
			if (lp_ptree_find(tree, a) != LP_PTREE_NIL)
				continue;
			if (hole_end != a && hole_end > hole &&
			    lp_symtab_add_late(t, NULL, hole, hole_end - hole))
				return -ENOMEM;
			if (hole_end != a)
				hole = a;
			hole_end = b;
		}
		if (hole_end > hole && lp_symtab_add_late(t, NULL, hole, hole_end - hole))
			return -ENOMEM;
	}
	return 0;
}

/* Inserts the stubs, then adds those a perf lookup finds, and the holes. */
static int add_found(struct lp_symtab *t, struct lp_ptree *tree, struct stubs *st)
{
	int32_t first_stub = (int32_t)tree->nr;

	for (size_t i = 0; i < st->nr; i++) {
		int32_t n = lp_ptree_insert(tree, st->v[i].addr, st->v[i].addr + st->size);

		if (n < 0)
			return n;
		st->v[i].node = n;
	}
	char name[PLT_NAME_MAX];
	for (size_t i = 0; i < st->nr; i++)
		if (lp_ptree_find(tree, st->v[i].addr) == st->v[i].node &&
		    lp_symtab_add_late(t, stub_name(st, &st->v[i], name), st->v[i].addr, st->size))
			return -ENOMEM;
	return add_holes(t, tree, st, first_stub);
}

/* perf's end for a sizeless symbol with nothing after it. */
static uint64_t page_after(uint64_t start)
{
	return start > UINT64_MAX - 8192 ? UINT64_MAX : ((start + 4095) & ~(uint64_t)4095) + 4096;
}

/* table_hull's for one table (scn) of e: its symbols' part of the hull,
 * widening [*from, *to); *nr counts them. */
static void table_hull(Elf *e, Elf_Scn *scn, uint64_t lo, uint64_t hi, uint64_t *from,
		       uint64_t *to, size_t *nr)
{
	size_t shstrndx, count;
	Elf_Data *data = table_data(e, scn, &count);
	uint8_t known[KNOWN_SECTIONS] = { 0 };
	uint64_t before = lo, after = UINT64_MAX, last = 0;
	bool any_before = false;

	if (!data || elf_getshdrstrndx(e, &shstrndx))
		return;
	for (size_t i = 0; i < count; i++) {
		GElf_Sym s;

		if (!gelf_getsym(data, (int)i, &s))
			break;
		if (!perf_keeps(e, shstrndx, &s, known))
			continue;
		uint64_t a = s.st_value, b = a + s.st_size < a ? UINT64_MAX : a + s.st_size;
		(*nr)++;
		last = a > last ? a : last;
		if (a <= lo && (!any_before || a > before))
			before = a, any_before = true;
		if (a >= hi && a < after)
			after = a;
		if (s.st_size && a < hi && b > lo) {
			*from = a < *from ? a : *from;
			*to = b > *to ? b : *to;
		}
	}
	if (any_before && before < *from)
		*from = before;
	if (after == UINT64_MAX)
		after = page_after(last > hi ? last : hi);
	if (after > *to)
		*to = after;
}

/* The hull of the stubs [lo, hi) and of every symbol of perf's tables
 * that can overlap them once its end is fixed: the last start at or
 * before lo (a sizeless symbol there reaches past lo), sized symbols
 * crossing the stubs, and up to the first start at or after hi (where
 * any sizeless symbol before it ends).  Taken per table, as perf fixes
 * the ends of each table's symbols after loading it (a symbol of the
 * first may reach past a start of the second), and joined: holes and
 * stubs lie within it. */
static void perf_hull(Elf *e, uint64_t lo, uint64_t hi, uint64_t *from, uint64_t *to, size_t *nr)
{
	Elf_Scn *scn[2];
	int n = lp_elf_sym_tables(e, scn);

	*from = lo, *to = hi, *nr = 0;
	for (int i = 0; i < n; i++)
		table_hull(e, scn[i], lo, hi, from, to, nr);
}

int lp_plt_span(Elf *runtime, Elf *symsrc, uint64_t *lo, uint64_t *hi)
{
	GElf_Shdr rsh, dsh;
	Elf_Data *rel, *dyn;
	uint64_t first, ent;
	size_t nrel, nsyms;

	*lo = *hi = 0;
	if (!stub_layout(runtime, &first, &ent, &nrel, &rel, &rsh, &dyn, &dsh) ||
	    nrel > (UINT64_MAX - first) / ent)
		return 0;
	perf_hull(symsrc, first, first + nrel * ent, lo, hi, &nsyms);
	if (!nsyms)             /* perf adds no stubs to an object without symbols */
		*lo = *hi = 0;
	return 0;
}

int lp_plt_add(struct lp_symtab *t, Elf *runtime, Elf *symsrc)
{
	struct stubs st = { 0 };
	struct lp_ptree tree = LP_PTREE_INIT;
	struct metas meta = { 0 };
	Elf_Scn *scn[2];
	size_t nsyms = 0, nr;
	int err = read_stubs(runtime, &st);
	int tables = !err && st.nr ? lp_elf_sym_tables(symsrc, scn) : 0;

	/* each table as perf loads it: its symbols, then their ends fixed
	 * and aliases dropped (the whole tree's) */
	for (int i = 0; !err && i < tables; i++) {
		err = load_symbols(&tree, &meta, symsrc, scn[i], (uint8_t)i, &nr);
		if (!err && nr) {
			fixup_ends(&tree);
			drop_aliases(&tree, &meta);
		}
		nsyms += nr;
	}
	if (!err && nsyms)              /* perf adds no stubs to an object without symbols */
		err = add_found(t, &tree, &st);
	lp_ptree_free(&tree);
	free(meta.v);
	stubs_free(&st);
	return err;
}

int lp_plt_add_file(struct lp_symtab *t, const char *path, Elf *symsrc)
{
	int fd, err;
	Elf *e;

	if (lp_elf_open(path, 0, &fd, &e))
		return 0;
	err = lp_plt_add(t, e, symsrc);
	lp_elf_close(fd, e);
	return err;
}
