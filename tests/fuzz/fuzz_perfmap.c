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
	struct lp_jitsyms *t = lp_jitsyms_new();
	if (t && !lp_perfmap_add_text(t, text, size)) {
		for (size_t i = 0; i < lp_jitsyms_count(t); i++) {
			const struct lp_sym *s = lp_jitsyms_at(t, i);
			if (lp_jitsyms_find(t, s->start) == NULL || s->end < s->start)
				abort();
		}
	}
	lp_jitsyms_free(t);
	return 0;
}
