/*
 * srcline.c - source lines and inlined frames at object addresses, from
 * DWARF with libdw (as addr2line -f -i, in-process).
 *
 * Each object gets one Dwfl of its own, made on the first lookup in it:
 * the file at its ELF addresses (bias 0), its DWARF from the file itself or
 * its separate debug file (dwfl_standard_find_debuginfo: .gnu_debuglink
 * and the build-id directory).  Each address is looked up once: the line
 * table gives the innermost line, the scopes at the address (dwarf_getscopes)
 * the chain of inlined subroutines, each with its call site, up to the
 * function that holds them.  Objects are kept in a generic table (htab.c)
 * keyed by dso pointer, and each object's results in a table of its own
 * keyed by address (integer keys: a lookup makes no call), their frames
 * into one array and their strings into an interned string table, all
 * kept until lp_srclines_free().  Where libdw and binutils' addr2line
 * (which perf runs) disagree, addr2line's answer is given: units without
 * .debug_aranges (cuspan.c), functions in namespaces (Rust), ranges it
 * cannot read (rnglistx), the file of a DWARF 5 sequence's first rows
 * (binutils_file), the file of an address without a line (symfile.c).
 */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include "dwarf/dwarf_int.h"
#include "luaprof/dwarf.h"
#include "luaprof/sym.h"
#include "sym/sym_core.h"
#include "util/grow.h"
#include "util/htab.h"
#include "util/strtab.h"

#define MAX_INLINE 64           /* frames kept per address */

struct obj {                    /* an object's DWARF session */
	const struct lp_dso *dso;
	Dwfl *dwfl;                 /* NULL: no DWARF to be had */
	Dwfl_Module *mod;
	struct lp_htab *addrs;      /* vaddr -> first frame << 32 | frames */
	struct lp_htab *named;      /* DIE offset -> NAMED_* (innermost_name) */
	struct lp_cuspans *spans;   /* units by their ranges, once needed */
	bool spans_read;
	struct lp_htab *fns;        /* unit offset -> its functions (lp_cuspans *) */
	struct lp_htab *seq_cus;    /* unit offsets whose rows are in `initial` */
	struct lp_htab *initial;    /* Dwarf_Line * -> 1: before a file change */
	struct lp_symfiles *symfiles;   /* addr2line's files from ELF symbols */
	bool symfiles_read;
};

struct lp_srclines {
	Dwfl_Callbacks cb;
	struct lp_htab *objs;       /* dso pointer -> struct obj * */
	struct lp_srcframe *frames;
	size_t nr_frames, cap_frames;
	struct lp_strtab *strs;
	struct obj *last;           /* the object of the last lookup */
};

static void obj_free(struct obj *o)
{
	if (!o)
		return;
	if (o->dwfl)
		dwfl_end(o->dwfl);
	lp_htab_free(o->addrs);
	lp_htab_free(o->named);
	lp_cuspans_free(o->spans);
	const struct lp_htab_ent *e;
	for (size_t it = 0; o->fns && (e = lp_htab_next(o->fns, &it));)
		lp_cuspans_free((struct lp_cuspans *)(uintptr_t)e->val);
	lp_htab_free(o->fns);
	lp_htab_free(o->seq_cus);
	lp_htab_free(o->initial);
	lp_symfiles_free(o->symfiles);
	free(o);
}

struct lp_srclines *lp_srclines_new(void)
{
	struct lp_srclines *sl = calloc(1, sizeof *sl);
	if (!sl)
		return NULL;
	lp_dwarf_callbacks(&sl->cb);
	sl->objs = lp_htab_new(NULL, NULL, NULL);
	sl->strs = lp_strtab_new();
	if (!sl->objs || !sl->strs) {
		lp_srclines_free(sl);
		errno = ENOMEM;
		return NULL;
	}
	return sl;
}

void lp_srclines_free(struct lp_srclines *sl)
{
	if (!sl)
		return;
	const struct lp_htab_ent *e;
	for (size_t it = 0; sl->objs && (e = lp_htab_next(sl->objs, &it));)
		obj_free((struct obj *)(uintptr_t)e->val);
	lp_htab_free(sl->objs);
	free(sl->frames);
	lp_strtab_free(sl->strs);
	free(sl);
}

/* Opens d's DWARF session into o (o->dwfl stays NULL when there is none). */
static void obj_open(struct lp_srclines *sl, struct obj *o, const struct lp_dso *d)
{
	const char *path = lp_dso_path(d);
	o->dso = d;
	if (path[0] == '[' || !(o->dwfl = dwfl_begin(&sl->cb)))   /* [vdso]: none */
		return;
	dwfl_report_begin(o->dwfl);
	o->mod = dwfl_report_elf(o->dwfl, path, path, -1, 0, true);
	lp_dwarf_set_origin(o->mod, d);
	dwfl_report_end(o->dwfl, NULL, NULL);
	if (!o->mod) {
		dwfl_end(o->dwfl);
		o->dwfl = NULL;
	}
}

/* A new session for d, opened; NULL on ENOMEM. */
static struct obj *obj_new(struct lp_srclines *sl, const struct lp_dso *d)
{
	struct obj *o = calloc(1, sizeof *o);
	if (o && (!(o->addrs = lp_htab_new(NULL, NULL, NULL)) ||
		  !(o->named = lp_htab_new(NULL, NULL, NULL)) ||
		  !(o->fns = lp_htab_new(NULL, NULL, NULL)) ||
		  !(o->seq_cus = lp_htab_new(NULL, NULL, NULL)) ||
		  !(o->initial = lp_htab_new(NULL, NULL, NULL)))) {
		obj_free(o);
		return NULL;
	}
	if (o)
		obj_open(sl, o, d);
	return o;
}

/* The session of d, opened on first use; NULL on ENOMEM. */
static struct obj *obj_get(struct lp_srclines *sl, const struct lp_dso *d)
{
	if (sl->last && sl->last->dso == d)
		return sl->last;
	const struct lp_htab_ent *e = lp_htab_find_int(sl->objs, (uintptr_t)d);
	if (e)
		return sl->last = (struct obj *)(uintptr_t)e->val;
	struct obj *o = obj_new(sl, d);
	struct lp_htab_ent *ne = o ? lp_htab_add(sl->objs, (uintptr_t)d, NULL) : NULL;
	if (!ne) {
		obj_free(o);
		return NULL;
	}
	ne->val = (uintptr_t)o;
	return sl->last = o;
}

/* The name of a subprogram or inlined subroutine: its linkage name when it
 * has one (C++, Rust), else its name, through abstract origins and
 * specifications; *linkage tells which. */
static const char *die_name(Dwarf_Die *die, bool *linkage)
{
	static const int attrs[] = { DW_AT_linkage_name, DW_AT_MIPS_linkage_name, DW_AT_name };
	Dwarf_Attribute a;
	for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
		const char *s = dwarf_formstring(dwarf_attr_integrate(die, attrs[i], &a));
		if (s) {
			*linkage = attrs[i] != DW_AT_name;
			return s;
		}
	}
	return NULL;
}

/* Whether binutils takes a DW_AT_name in a unit of language lang for a
 * linkage name (its mangle_style() is 0 for these, in binutils 2.40). */
static bool plain_names(int lang)
{
	switch (lang) {
	case DW_LANG_C89: case DW_LANG_C: case DW_LANG_C99: case DW_LANG_C11:
	case DW_LANG_Cobol74: case DW_LANG_Cobol85: case DW_LANG_Fortran77:
	case DW_LANG_Pascal83: case DW_LANG_PLI: case DW_LANG_UPC:
	case DW_LANG_Mips_Assembler:
		return true;
	default:
		return false;
	}
}

/* How addr2line names a function whose name is no linkage name
 * (innermost_name), by its DIE. */
enum { NAMED_DWARF = 1, NAMED_SYMBOL = 2 };

/* The address its first range starts at (binutils' arange.low). */
static bool first_low(Dwarf_Die *die, Dwarf_Addr *low)
{
	Dwarf_Addr base, hi;
	return dwarf_ranges(die, 0, &base, low, &hi) > 0;
}

/* The name of the innermost function at vaddr, fn, as perf's addr2line
 * gives it.  binutils (2.40) takes a DW_AT_name for a linkage name in C
 * and the like; elsewhere (C++: main, an extern "C" function such as
 * glibc's inline atol) it names the innermost function after the ELF
 * symbol at the address instead, the first time that function is the
 * innermost one of a lookup, and marks it so that later lookups take its
 * DWARF name; unless the symbol starts where the function's first range
 * does, which names it after the symbol for good.  perf keeps one
 * addr2line process per object and looks each address up once, in the
 * order samples need them, as this cache does: atol inlined into main is
 * "main" where perf first meets it, "atol" after. */
static const char *innermost_name(const struct obj *o, Dwarf_Die *cu, Dwarf_Die *fn,
				  uint64_t vaddr)
{
	bool linkage = false;
	const char *name = die_name(fn, &linkage), *sym;
	GElf_Off off;
	GElf_Sym es;
	Dwarf_Addr low;
	if (!name || linkage || plain_names(dwarf_srclang(cu)))
		return name;
	struct lp_htab_ent *e = lp_htab_find_int(o->named, dwarf_dieoffset(fn));
	if (e && e->val == NAMED_DWARF)
		return name;
	sym = dwfl_module_addrinfo(o->mod, vaddr, &off, &es, NULL, NULL, NULL);
	if (!e && (e = lp_htab_add(o->named, dwarf_dieoffset(fn), NULL)))
		e->val = sym && first_low(fn, &low) && es.st_value == low ? NAMED_SYMBOL
									 : NAMED_DWARF;
	return sym && *sym ? sym : name;
}

/* Interns s (NULL stays NULL); false when that fails. */
static bool intern(struct lp_srclines *sl, const char *s, const char **out)
{
	*out = s ? lp_strtab_intern(sl->strs, s) : NULL;
	return !s || *out;
}

/* Appends one frame, its strings interned; 0 or -ENOMEM.  func is the
 * DWARF name (a linkage name when it has one), named three ways: with
 * parameters, as frames are; without, as perf names functions; mangled. */
static int add_frame(struct lp_srclines *sl, const char *func, const char *file, uint32_t line)
{
	struct lp_srcframe f = { .line = line };
	char *full = func ? lp_demangle(func) : NULL;
	char *brief = full ? lp_demangle_name(func, false) : NULL;
	bool ok = intern(sl, full ? func : NULL, &f.mangled) &&
		  intern(sl, full ? full : func, &f.func) && intern(sl, file, &f.file);
	if (ok && brief)
		ok = intern(sl, brief, &f.name);
	else
		f.name = f.func;
	free(full);
	free(brief);
	if (!ok || lp_grow(&sl->frames, &sl->cap_frames, sl->nr_frames, sizeof f, 256,
			   SIZE_MAX / 2))
		return -ENOMEM;
	sl->frames[sl->nr_frames++] = f;
	return 0;
}

/* The call site of inlined subroutine die: its file (from the CU's file
 * table) and line. */
static void call_site(Dwarf_Die *cu, Dwarf_Die *die, const char **file, uint32_t *line)
{
	Dwarf_Attribute a;
	Dwarf_Word w = 0;
	Dwarf_Files *files;
	size_t nfiles;
	*line = dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &a), &w) ? 0 : (uint32_t)w;
	*file = NULL;
	if (!dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &a), &w) &&
	    !dwarf_getsrcfiles(cu, &files, &nfiles) && w < nfiles)
		*file = dwarf_filesrc(files, w, NULL, NULL);
}

static bool is_function(Dwarf_Die *die)
{
	int tag = dwarf_tag(die);
	return tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram;
}

/* Whether binutils' addr2line (2.40, which perf runs) places addresses in
 * die: not when its DW_AT_ranges is a DW_FORM_rnglistx index (clang's
 * DWARF 5), which it reads as a section offset, finding no range.  Such a
 * function is never the innermost one of an address there, though it may
 * be the caller of one found inside it. */
static bool binutils_places(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	return !dwarf_attr(die, DW_AT_ranges, &a) || dwarf_whatform(&a) != DW_FORM_rnglistx;
}

/* The innermost function-like DIE of scopes[0..n) that addr2line places
 * addresses in, into *out; false if none. */
static bool innermost_function(Dwarf_Die *scopes, int n, Dwarf_Die *out)
{
	for (int i = 0; i < n; i++)
		if (is_function(&scopes[i]) && binutils_places(&scopes[i])) {
			*out = scopes[i];
			return true;
		}
	return false;
}

/* The first function-like DIE of scopes[from..n) into *out; false if none. */
static bool first_function(Dwarf_Die *scopes, int from, int n, Dwarf_Die *out)
{
	for (int i = from; i < n; i++)
		if (is_function(&scopes[i])) {
			*out = scopes[i];
			return true;
		}
	return false;
}

/* The function (inlined or not) physically containing inlined subroutine
 * die: dwarf_getscopes follows an inlined instance to its abstract
 * definition's scope, so the caller is found through the DIE's own
 * containers. */
static bool containing_function(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Die *chain = NULL;
	int n = dwarf_getscopes_die(die, &chain);
	bool found = first_function(chain, 1, n, out);
	free(chain);
	return found;
}

/* The length of the range of die that holds pc, 0 when none does. */
static uint64_t range_at(Dwarf_Die *die, Dwarf_Addr pc)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0)
		if (lo <= pc && pc < hi)
			return hi - lo;
	return 0;
}

/* In assembler, several functions may cover the same code (GNU as gives
 * each alias a subprogram: memmove's and memcpy's are one); addr2line
 * names the one with the smallest range at pc, the later one of equals,
 * where dwarf_getscopes gave the first, fn.  Replaces fn by that one.
 * Only assembler units are searched: compilers give no two functions
 * the same code, and a C++ unit may hold thousands of them. */
static void asm_alias(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *fn)
{
	Dwarf_Die sib = *fn;
	uint64_t best = range_at(fn, pc), len;
	if (dwarf_srclang(cu) != DW_LANG_Mips_Assembler || dwarf_tag(fn) != DW_TAG_subprogram)
		return;
	while (dwarf_siblingof(&sib, &sib) == 0)
		if (dwarf_tag(&sib) == DW_TAG_subprogram && (len = range_at(&sib, pc)) &&
		    (!best || len <= best)) {
			best = len;
			*fn = sib;
		}
}

/* Files the rows of unit cu that come before the first change of file in
 * their sequence (file 1, as DWARF starts it) in o->initial; false on
 * ENOMEM. */
static bool file_initial_rows(struct obj *o, Dwarf_Die *cu)
{
	Dwarf_Lines *lines;
	size_t n;
	bool changed = false, end;
	if (dwarf_getsrclines(cu, &lines, &n))
		return true;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Files *files;
		size_t idx;
		if (!l || dwarf_line_file(l, &files, &idx))
			continue;
		changed = changed || idx != 1;
		if (!changed && !lp_htab_add(o->initial, (uintptr_t)l, NULL))
			return false;
		if (!dwarf_lineendsequence(l, &end) && end)
			changed = false;
	}
	return true;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* The file binutils (2.40, perf's addr2line) names for line l of unit cu,
 * where DWARF names file: in a DWARF 5 unit, the rows of a sequence before
 * its first change of file are in the file table's entry 0 to it (the
 * unit's own file), not in entry 1.  gcc makes the two the same file;
 * Debian's ld.so and libc have a header as entry 1 (ld.so's handle_amd,
 * dl-cacheinfo.h to DWARF, dl-get-cpu-features.c to addr2line).  NULL
 * only on ENOMEM. */
static const char *binutils_file(struct obj *o, Dwarf_Die *cu, Dwarf_Line *l, const char *file)
{
	Dwarf_Files *files;
	size_t idx;
	Dwarf_Half version = 0;
	const char *f0;
	if (!l || !file || dwarf_line_file(l, &files, &idx) || idx != 1 ||
	    dwarf_cu_info(cu->cu, &version, NULL, NULL, NULL, NULL, NULL, NULL) || version < 5 ||
	    !(f0 = dwarf_filesrc(files, 0, NULL, NULL)) || !strcmp(base_name(f0), base_name(file)))
		return file;
	Dwarf_Off off = dwarf_dieoffset(cu);
	if (!lp_htab_find_int(o->seq_cus, off)) {
		if (!lp_htab_add(o->seq_cus, off, NULL) || !file_initial_rows(o, cu))
			return NULL;
	}
	return lp_htab_find_int(o->initial, (uintptr_t)l) ? f0 : file;
}

/* The unit holding vaddr, and its line, where .debug_aranges does not
 * place it (libdw finds units through that section only): from the units'
 * own ranges (cuspan.c), as addr2line finds them, and the line's row
 * (*dl).  NULL when none holds it. */
static Dwarf_Die *unit_by_ranges(struct obj *o, uint64_t vaddr, Dwarf_Die *buf,
				 Dwarf_Addr *bias, const char **file, int *line, Dwarf_Line **dl)
{
	Dwarf *dw = dwfl_module_getdwarf(o->mod, bias);
	if (!dw)
		return NULL;
	if (!o->spans_read) {
		o->spans_read = true;
		o->spans = lp_cuspans_new(dw);  /* NULL (no memory): none found */
	}
	if (!lp_cuspans_find(o->spans, dw, vaddr - *bias, buf))
		return NULL;
	Dwarf_Line *ln = dwarf_getsrc_die(buf, vaddr - *bias);
	*file = ln ? dwarf_linesrc(ln, NULL, NULL) : NULL;
	if (!ln || dwarf_lineno(ln, line))
		*line = 0;
	*dl = ln;
	return buf;
}

/* Whether scopes[0..n) holds a function-like DIE. */
static bool has_function(Dwarf_Die *scopes, int n)
{
	Dwarf_Die fn;
	return first_function(scopes, 0, n, &fn);
}

/* The DIEs holding pc from die down (inlined subroutines and blocks),
 * appended to *v (n of cap); depth-limited. */
static int descend(Dwarf_Die *die, Dwarf_Addr pc, Dwarf_Die **v, int *n, size_t *cap)
{
	Dwarf_Die child;
	for (int depth = 0; depth < MAX_INLINE * 4 && !dwarf_child(die, &child); depth++) {
		bool found = false;
		do {
			int tag = dwarf_tag(&child);
			if ((tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block) &&
			    dwarf_haspc(&child, pc) > 0) {
				found = true;
				break;
			}
		} while (dwarf_siblingof(&child, &child) == 0);
		if (!found)
			break;
		if (lp_grow(v, cap, (size_t)*n, sizeof **v, 16, MAX_INLINE * 8))
			return -ENOMEM;
		(*v)[(*n)++] = child;
		die = &(*v)[*n - 1];
	}
	return 0;
}

/* The scopes at pc as dwarf_getscopes gives them (innermost first), but
 * each DIE's physical container after it (an inlined subroutine's caller,
 * not its abstract origin's scope), found from the unit's function index:
 * for the functions dwarf_getscopes does not find (Rust's, in
 * namespaces).  The count (0: none), or -ENOMEM. */
static int scopes_in_functions(struct obj *o, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die **out)
{
	Dwarf_Off off = dwarf_dieoffset(cu);
	struct lp_htab_ent *e = lp_htab_find_int(o->fns, off);
	Dwarf_Die fn, *v = NULL;
	size_t cap = 0;
	int n = 0;
	*out = NULL;
	if (!e) {
		struct lp_cuspans *f = lp_fnspans_new(cu);
		if (!f || !(e = lp_htab_add(o->fns, off, NULL))) {
			lp_cuspans_free(f);
			return -ENOMEM;
		}
		e->val = (uintptr_t)f;
	}
	if (!lp_cuspans_find((struct lp_cuspans *)(uintptr_t)e->val, dwarf_cu_getdwarf(cu->cu),
			     pc, &fn))
		return 0;
	if (lp_grow(&v, &cap, 0, sizeof *v, 16, MAX_INLINE * 8))
		return -ENOMEM;
	v[n++] = fn;
	if (descend(&v[0], pc, &v, &n, &cap)) {
		free(v);
		return -ENOMEM;
	}
	for (int i = 0; i < n / 2; i++) {      /* innermost first */
		Dwarf_Die t = v[i];
		v[i] = v[n - 1 - i];
		v[n - 1 - i] = t;
	}
	*out = v;
	return n;
}

/* Looks vaddr up in o's module, appending its frames; 0 or -ENOMEM. */
static int lookup(struct lp_srclines *sl, struct obj *o, uint64_t vaddr)
{
	Dwfl_Module *mod = o->mod;
	Dwarf_Addr bias;
	Dwarf_Die cubuf, *cu = dwfl_module_addrdie(mod, vaddr, &bias), *scopes = NULL, fn;
	Dwfl_Line *ln = cu ? dwfl_module_getsrc(mod, vaddr) : NULL;
	int line = 0;
	const char *file = ln ? dwfl_lineinfo(ln, NULL, &line, NULL, NULL, NULL) : NULL;
	Dwarf_Addr lbias;
	Dwarf_Line *dl = ln ? dwfl_dwarf_line(ln, &lbias) : NULL;
	if (!cu)
		cu = unit_by_ranges(o, vaddr, &cubuf, &bias, &file, &line, &dl);
	if (cu && file && !(file = binutils_file(o, cu, dl, file)))
		return -ENOMEM;
	int n = cu ? dwarf_getscopes(cu, vaddr - bias, &scopes) : 0, rc = 0, at_i = 0;
	bool physical = cu && !has_function(scopes, n);
	if (physical) {
		free(scopes);
		if ((n = scopes_in_functions(o, cu, vaddr - bias, &scopes)) < 0)
			return -ENOMEM;
	}
	uint32_t at = line > 0 ? (uint32_t)line : 0;
	bool more = innermost_function(scopes, n, &fn);
	for (at_i = 0; more && at_i < n && scopes[at_i].addr != fn.addr; at_i++)
		;
	size_t kept = 0;
	if (more)
		asm_alias(cu, vaddr - bias, &fn);
	bool linkage;
	while (more && !rc && kept < MAX_INLINE) {
		rc = add_frame(sl, kept ? die_name(&fn, &linkage) : innermost_name(o, cu, &fn, vaddr),
			       file, at);
		kept++;
		if (dwarf_tag(&fn) != DW_TAG_inlined_subroutine)
			break;
		call_site(cu, &fn, &file, &at);
		if (!physical) {
			more = containing_function(&fn, &fn);
			continue;
		}
		for (more = false; !more && ++at_i < n;)
			if ((more = is_function(&scopes[at_i])))
				fn = scopes[at_i];
	}
	free(scopes);
	if (!rc && !kept && file)       /* a line but no function DIE */
		rc = add_frame(sl, NULL, file, at);
	return rc;
}

/* Looks up vaddr, not seen before in o, and files its frames; as
 * lp_srclines_get().  Kept out of line so that a cached address costs no
 * more than the table lookup. */
static __attribute__((noinline)) int miss(struct lp_srclines *sl, struct obj *o,
					  uint64_t vaddr, const struct lp_srcframe **frames)
{
	size_t first = sl->nr_frames;
	struct lp_htab_ent *e = NULL;
	if ((o->dwfl && lookup(sl, o, vaddr)) || sl->nr_frames > UINT32_MAX ||
	    !(e = lp_htab_add(o->addrs, vaddr, NULL))) {
		sl->nr_frames = first;
		return -ENOMEM;
	}
	e->val = (uint64_t)first << 32 | (sl->nr_frames - first);
	*frames = sl->nr_frames > first ? sl->frames + first : NULL;
	return (int)(sl->nr_frames - first);
}

int lp_srclines_get(struct lp_srclines *sl, const struct lp_dso *d, uint64_t vaddr,
		    const struct lp_srcframe **frames)
{
	struct obj *o = obj_get(sl, d);
	if (!o)
		return -ENOMEM;
	const struct lp_htab_ent *e = lp_htab_find_int(o->addrs, vaddr);
	if (!e)
		return miss(sl, o, vaddr, frames);
	uint32_t nr = (uint32_t)e->val;
	*frames = nr ? sl->frames + (e->val >> 32) : NULL;
	return (int)nr;
}

bool lp_srclines_symfile(struct lp_srclines *sl, const struct lp_dso *d, uint64_t vaddr,
			 const char **file)
{
	struct obj *o = obj_get(sl, d);
	Dwarf_Addr bias;
	*file = NULL;
	if (!o || !o->dwfl)
		return false;
	if (!o->symfiles_read) {
		/* the file perf asks addr2line about: its symbols' (the
		 * separate debug file, if any), else the object's own */
		Dwarf *dw = dwfl_module_getdwarf(o->mod, &bias);
		o->symfiles_read = true;
		o->symfiles = lp_symfiles_new(dw ? dwarf_getelf(dw) : dwfl_module_getelf(o->mod, &bias));
	}
	return lp_symfiles_find(o->symfiles, vaddr, file);
}

const char *lp_srclines_intern(struct lp_srclines *sl, const char *s)
{
	return lp_strtab_intern(sl->strs, s);
}
