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
 * function that holds them.  Results go into an open-addressing table keyed
 * by (object, address), their frames into one array and their strings into
 * an interned string table, all kept until lp_srclines_free().
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
#include "sym/sym_int.h"
#include "util/grow.h"
#include "util/strtab.h"

#define MAX_INLINE 64           /* frames kept per address */

struct obj {                    /* an object's DWARF session */
	const struct lp_dso *dso;   /* NULL: free slot */
	Dwfl *dwfl;                 /* NULL: no DWARF to be had */
	Dwfl_Module *mod;
};

struct addr {                   /* one looked-up address */
	const struct lp_dso *dso;   /* NULL: free slot */
	uint64_t vaddr;
	uint32_t first, nr;         /* its frames in sl->frames */
};

struct lp_srclines {
	Dwfl_Callbacks cb;
	struct obj *objs;
	size_t nr_objs, cap_objs;   /* cap: a power of two */
	struct addr *addrs;
	size_t nr_addrs, cap_addrs;
	struct lp_srcframe *frames;
	size_t nr_frames, cap_frames;
	struct lp_strtab *strs;
	const struct obj *last;     /* the object of the last lookup */
};

struct lp_srclines *lp_srclines_new(void)
{
	struct lp_srclines *sl = calloc(1, sizeof *sl);
	if (!sl)
		return NULL;
	lp_dwarf_callbacks(&sl->cb);
	sl->cap_objs = 64;
	sl->cap_addrs = 4096;
	sl->objs = calloc(sl->cap_objs, sizeof *sl->objs);
	sl->addrs = calloc(sl->cap_addrs, sizeof *sl->addrs);
	sl->strs = lp_strtab_new();
	if (!sl->objs || !sl->addrs || !sl->strs) {
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
	for (size_t i = 0; sl->objs && i < sl->cap_objs; i++)
		if (sl->objs[i].dwfl)
			dwfl_end(sl->objs[i].dwfl);
	free(sl->objs);
	free(sl->addrs);
	free(sl->frames);
	lp_strtab_free(sl->strs);
	free(sl);
}

static size_t hash_ptr(const void *p, uint64_t v)
{
	uint64_t h = ((uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull) ^ (v * 0xc2b2ae3d27d4eb4full);
	return (size_t)(h ^ (h >> 31));
}

/* Doubles an open-addressing table of n slots of size bytes, rehashing
 * with key(); 0 or -ENOMEM. */
static int rehash(void **tab, size_t *cap, size_t size, size_t (*key)(const void *),
		  bool (*used)(const void *))
{
	size_t n = *cap * 2;
	char *old = *tab, *t = calloc(n, size);
	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < *cap; i++) {
		const void *e = old + i * size;
		if (!used(e))
			continue;
		size_t j = key(e) & (n - 1);
		while (used(t + j * size))
			j = (j + 1) & (n - 1);
		memcpy(t + j * size, e, size);
	}
	free(old);
	*tab = t;
	*cap = n;
	return 0;
}

static size_t obj_key(const void *e) { return hash_ptr(((const struct obj *)e)->dso, 0); }
static bool obj_used(const void *e) { return ((const struct obj *)e)->dso != NULL; }
static size_t addr_key(const void *e)
{
	const struct addr *a = e;
	return hash_ptr(a->dso, a->vaddr);
}
static bool addr_used(const void *e) { return ((const struct addr *)e)->dso != NULL; }

/* Opens d's DWARF session into o (o->dwfl stays NULL when there is none). */
static void obj_open(struct lp_srclines *sl, struct obj *o, const struct lp_dso *d)
{
	const char *path = lp_dso_path(d);
	o->dso = d;
	if (path[0] == '[' || !(o->dwfl = dwfl_begin(&sl->cb)))   /* [vdso]: none */
		return;
	dwfl_report_begin(o->dwfl);
	o->mod = dwfl_report_elf(o->dwfl, path, path, -1, 0, true);
	dwfl_report_end(o->dwfl, NULL, NULL);
	if (!o->mod) {
		dwfl_end(o->dwfl);
		o->dwfl = NULL;
	}
}

/* The session of d, opened on first use; NULL on ENOMEM. */
static const struct obj *obj_get(struct lp_srclines *sl, const struct lp_dso *d)
{
	if (sl->last && sl->last->dso == d)
		return sl->last;
	if (2 * (sl->nr_objs + 1) > sl->cap_objs &&
	    rehash((void **)&sl->objs, &sl->cap_objs, sizeof *sl->objs, obj_key, obj_used))
		return NULL;
	size_t i = hash_ptr(d, 0) & (sl->cap_objs - 1);
	while (sl->objs[i].dso && sl->objs[i].dso != d)
		i = (i + 1) & (sl->cap_objs - 1);
	if (!sl->objs[i].dso) {
		obj_open(sl, &sl->objs[i], d);
		sl->nr_objs++;
	}
	return sl->last = &sl->objs[i];
}

/* The name of a subprogram or inlined subroutine: its linkage name when it
 * has one (C++, Rust), else its name, through abstract origins and
 * specifications. */
static const char *die_name(Dwarf_Die *die)
{
	static const int attrs[] = { DW_AT_linkage_name, DW_AT_MIPS_linkage_name, DW_AT_name };
	Dwarf_Attribute a;
	for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
		const char *s = dwarf_formstring(dwarf_attr_integrate(die, attrs[i], &a));
		if (s)
			return s;
	}
	return NULL;
}

/* Appends one frame, its strings interned; 0 or -ENOMEM. */
static int add_frame(struct lp_srclines *sl, const char *func, const char *file, uint32_t line)
{
	struct lp_srcframe f = { .line = line };
	char *dm = lp_demangle(func);
	if (dm) {
		f.mangled = lp_strtab_intern(sl->strs, func);
		func = f.mangled ? dm : NULL;
	}
	f.func = func ? lp_strtab_intern(sl->strs, func) : NULL;
	free(dm);
	if ((func && !f.func) ||
	    (file && !(f.file = lp_strtab_intern(sl->strs, file))) ||
	    lp_grow(&sl->frames, &sl->cap_frames, sl->nr_frames, sizeof f, 256, SIZE_MAX / 2))
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

/* Looks vaddr up in module mod, appending its frames; 0 or -ENOMEM. */
static int lookup(struct lp_srclines *sl, Dwfl_Module *mod, uint64_t vaddr)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = dwfl_module_addrdie(mod, vaddr, &bias), *scopes = NULL, fn;
	Dwfl_Line *ln = cu ? dwfl_module_getsrc(mod, vaddr) : NULL;
	int line = 0, n = cu ? dwarf_getscopes(cu, vaddr - bias, &scopes) : 0, rc = 0;
	const char *file = ln ? dwfl_lineinfo(ln, NULL, &line, NULL, NULL, NULL) : NULL;
	uint32_t at = line > 0 ? (uint32_t)line : 0;
	bool more = first_function(scopes, 0, n, &fn);
	size_t kept = 0;
	free(scopes);
	while (more && !rc && kept < MAX_INLINE) {
		rc = add_frame(sl, die_name(&fn), file, at);
		kept++;
		if (dwarf_tag(&fn) != DW_TAG_inlined_subroutine)
			break;
		call_site(cu, &fn, &file, &at);
		more = containing_function(&fn, &fn);
	}
	if (!rc && !kept && file)       /* a line but no function DIE */
		rc = add_frame(sl, NULL, file, at);
	return rc;
}

int lp_srclines_get(struct lp_srclines *sl, const struct lp_dso *d, uint64_t vaddr,
		    const struct lp_srcframe **frames)
{
	size_t mask = sl->cap_addrs - 1, i = hash_ptr(d, vaddr) & mask;
	for (; sl->addrs[i].dso; i = (i + 1) & mask) {
		const struct addr *a = &sl->addrs[i];
		if (a->dso == d && a->vaddr == vaddr) {
			*frames = a->nr ? sl->frames + a->first : NULL;
			return (int)a->nr;
		}
	}
	const struct obj *o = obj_get(sl, d);
	if (!o)
		return -ENOMEM;
	size_t first = sl->nr_frames;
	if (o->dwfl && lookup(sl, o->mod, vaddr)) {
		sl->nr_frames = first;
		return -ENOMEM;
	}
	if (2 * (sl->nr_addrs + 1) > sl->cap_addrs) {
		if (rehash((void **)&sl->addrs, &sl->cap_addrs, sizeof *sl->addrs, addr_key, addr_used))
			return -ENOMEM;
		for (i = hash_ptr(d, vaddr) & (sl->cap_addrs - 1); sl->addrs[i].dso;)
			i = (i + 1) & (sl->cap_addrs - 1);
	}
	sl->addrs[i] = (struct addr){ d, vaddr, (uint32_t)first, (uint32_t)(sl->nr_frames - first) };
	sl->nr_addrs++;
	*frames = sl->nr_frames > first ? sl->frames + first : NULL;
	return (int)(sl->nr_frames - first);
}
