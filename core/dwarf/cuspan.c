/*
 * cuspan.c - the compilation unit holding an address, found from the units'
 * own address ranges, for DWARF without .debug_aranges; and the function
 * of a unit holding an address, where libdw's scope search misses it.
 *
 * libdw finds a unit by address through .debug_aranges only
 * (dwarf_addrdie, dwfl_module_addrdie): clang writes none by default, nor
 * does Go, and strip tools may drop it, so every address of such code had
 * no unit, no line and no inlined frame.  binutils' addr2line (which perf
 * runs) reads each unit's DW_AT_low_pc/high_pc or DW_AT_ranges instead,
 * and the ranges of its functions when the unit has none.  This index
 * does the same: built once per object, on the first address libdw does
 * not place, as spans sorted by start, each with its unit's offset.
 *
 * dwarf_getscopes() does not look inside DW_TAG_namespace DIEs (it prunes
 * every DIE without an address, and a namespace has none), where Rust
 * puts every function: an address in Rust code had no function, so no
 * inlined frame.  A unit's functions are indexed the same way, each
 * subprogram with its ranges, found through namespaces, modules and types.
 */
#include <dwarf.h>
#include <stdlib.h>

#include "dwarf/dwarf_int.h"
#include "util/grow.h"

#define MAX_SPANS (1u << 26)

struct span {
	Dwarf_Addr lo, hi;
	Dwarf_Off cu;           /* the unit DIE's offset */
};

struct lp_cuspans {
	struct span *spans;
	size_t n, cap;
};

/* Appends the ranges of die, for the unit at cu; 0 or -ENOMEM. */
static int add_ranges(struct lp_cuspans *c, Dwarf_Die *die, Dwarf_Off cu, size_t *added)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (hi <= lo)
			continue;
		if (lp_grow(&c->spans, &c->cap, c->n, sizeof *c->spans, 64, MAX_SPANS))
			return -ENOMEM;
		c->spans[c->n++] = (struct span){ lo, hi, cu };
		(*added)++;
	}
	return 0;
}

/* The ranges of the functions under parent (its subprograms, and those in
 * namespaces, modules and types), each filed under the subprogram's own
 * offset (fn) or the unit's (cu != 0). */
static int add_functions(struct lp_cuspans *c, Dwarf_Die *parent, Dwarf_Off cu, int depth)
{
	Dwarf_Die child;
	size_t added = 0;
	if (depth > 32 || dwarf_child(parent, &child))
		return 0;
	do {
		int tag = dwarf_tag(&child), rc = 0;
		if (tag == DW_TAG_subprogram)
			rc = add_ranges(c, &child, cu ? cu : dwarf_dieoffset(&child), &added);
		else if (tag == DW_TAG_namespace || tag == DW_TAG_module ||
			 tag == DW_TAG_class_type || tag == DW_TAG_structure_type ||
			 tag == DW_TAG_union_type)
			rc = add_functions(c, &child, cu, depth + 1);
		if (rc)
			return rc;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

static int by_start(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

struct lp_cuspans *lp_cuspans_new(Dwarf *dw)
{
	struct lp_cuspans *c = calloc(1, sizeof *c);
	Dwarf_Off off = 0, next;
	size_t hsize;
	if (!c)
		return NULL;
	while (dw && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		size_t added = 0;
		if (dwarf_offdie(dw, off + hsize, &cu) &&
		    (add_ranges(c, &cu, off + hsize, &added) ||
		     (!added && add_functions(c, &cu, off + hsize, 0)))) {
			lp_cuspans_free(c);
			return NULL;
		}
		off = next;
	}
	if (c->n)
		qsort(c->spans, c->n, sizeof *c->spans, by_start);
	return c;
}

struct lp_cuspans *lp_fnspans_new(Dwarf_Die *cu)
{
	struct lp_cuspans *c = calloc(1, sizeof *c);
	if (c && add_functions(c, cu, 0, 0)) {
		lp_cuspans_free(c);
		return NULL;
	}
	if (c && c->n)
		qsort(c->spans, c->n, sizeof *c->spans, by_start);
	return c;
}

void lp_cuspans_free(struct lp_cuspans *c)
{
	if (!c)
		return;
	free(c->spans);
	free(c);
}

bool lp_cuspans_find(const struct lp_cuspans *c, Dwarf *dw, Dwarf_Addr pc, Dwarf_Die *cu)
{
	size_t lo = 0, hi = c ? c->n : 0;
	while (lo < hi) {               /* the first span starting after pc */
		size_t mid = lo + (hi - lo) / 2;
		if (c->spans[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* spans may nest (a unit's and its functions'): the nearest start first */
	for (size_t i = lo, tries = 0; i-- > 0 && tries < 16; tries++)
		if (pc < c->spans[i].hi)
			return dwarf_offdie(dw, c->spans[i].cu, cu) != NULL;
	return false;
}
