/*
 * fuzz_perfmap.c - the /tmp/perf-PID.map parser (lp_perfmap_parse_line,
 * lp_perfmap_add_text) on any bytes: every parsed name lies inside the
 * line, and the table built from the text answers lookups.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "luaprof/sym.h"
#include "sym/sym_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *name;
	uint64_t start, len;
	size_t nlen;
	if (!lp_perfmap_parse_line(text, size, &start, &len, &name, &nlen) &&
	    (name < text || name + nlen > text + size || !nlen))
		abort();
	struct lp_symtab *t = lp_symtab_new();
	if (t && !lp_perfmap_add_text(t, text, size) && !lp_symtab_finish(t)) {
		for (size_t i = 0; i < lp_symtab_count(t); i++) {
			const struct lp_sym *s = lp_symtab_at(t, i);
			if (lp_symtab_find(t, s->start) == NULL && s->end > s->start && s->name[0])
				abort();
		}
	}
	lp_symtab_free(t);
	return 0;
}
