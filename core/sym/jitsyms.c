/*
 * jitsyms.c - the symbols of a perf map (/tmp/perf-PID.map) as perf holds
 * them: in a red-black tree keyed by start, in the order of the file's
 * lines, with nothing merged or trimmed (perf's dso__load_perf_map inserts
 * each line and runs neither symbols__fixup_duplicate nor
 * symbols__fixup_end on them).  A JIT writes a line for every compilation,
 * so a function recompiled at the address of an earlier one, or in the
 * middle of one, overlaps it; perf's lookup (symbols__find) returns the
 * first symbol on its way down from the root whose range holds the
 * address, and so does lp_jitsyms_find, on a model of that tree
 * (perftree.c).  Node i of the tree is symbol i.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "sym/sym_int.h"
#include "sym/perftree.h"
#include "util/grow.h"

struct lp_jitsyms {
	struct lp_ptree tree;
	struct lp_sym *syms;
	size_t nr, cap;
	struct lp_names names;
};

struct lp_jitsyms *lp_jitsyms_new(void)
{
	struct lp_jitsyms *j = calloc(1, sizeof *j);
	if (j)
		j->tree = (struct lp_ptree)LP_PTREE_INIT;
	return j;
}

void lp_jitsyms_free(struct lp_jitsyms *j)
{
	if (!j)
		return;
	lp_ptree_free(&j->tree);
	free(j->syms);
	lp_names_free(&j->names);
	free(j);
}

int lp_jitsyms_add(struct lp_jitsyms *j, const char *name, size_t len, uint64_t start,
		   uint64_t size)
{
	if (size > UINT64_MAX - start || j->nr >= INT32_MAX)
		return -EINVAL;
	if (lp_grow(&j->syms, &j->cap, j->nr, sizeof *j->syms, 64, INT32_MAX))
		return -ENOMEM;
	const char *copy = lp_names_dup(&j->names, name, len);
	if (!copy)
		return -ENOMEM;
	int32_t node = lp_ptree_insert(&j->tree, start, start + size);
	if (node < 0)
		return -ENOMEM;
	j->syms[node] = (struct lp_sym){ .start = start, .end = start + size, .name = copy };
	j->nr++;
	return 0;
}

const struct lp_sym *lp_jitsyms_find(const struct lp_jitsyms *j, uint64_t addr)
{
	int32_t node = j ? lp_ptree_find(&j->tree, addr) : LP_PTREE_NIL;
	return node == LP_PTREE_NIL ? NULL : &j->syms[node];
}

size_t lp_jitsyms_count(const struct lp_jitsyms *j)
{
	return j ? j->nr : 0;
}

const struct lp_sym *lp_jitsyms_at(const struct lp_jitsyms *j, size_t i)
{
	return j && i < j->nr ? &j->syms[i] : NULL;
}
