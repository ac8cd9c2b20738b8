/*
 * fuzz_srcline.c - the DWARF source-line and inline lookups (lp_srclines)
 * on any bytes taken as an object file: the input is written to a file (a
 * memfd, memfile.h), opened as an object (lp_dso_open), and each of its
 * symbols' first addresses (at most 64) is looked up, as a sample in it
 * would be: its source frames (units found without .debug_aranges,
 * functions in namespaces, the DWARF 5 file rule), addr2line's file from
 * the ELF symbols (lp_srclines_symfile), and the data object just past it
 * (lp_dso_find_object).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "luaprof/dwarf.h"
#include "luaprof/sym.h"
#include "sym/sym_int.h"
#include "memfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	char path[64];
	memfile(&fd, data, size, path, sizeof path);
	struct lp_dso *d = lp_dso_open(path);
	struct lp_srclines *sl = d ? lp_srclines_new() : NULL;
	if (sl) {
		const struct lp_symtab *t = lp_dso_symtab(d);
		for (size_t i = 0; i < lp_symtab_count(t) && i < 64; i++) {
			const struct lp_srcframe *f;
			int n = lp_srclines_get(sl, d, lp_symtab_at(t, i)->start, &f);
			for (int k = 0; k < n; k++)
				sink += (f[k].func ? strlen(f[k].func) : 0) +
					(f[k].file ? strlen(f[k].file) : 0) + f[k].line;
			const char *file;
			uint64_t at = lp_symtab_at(t, i)->start;
			if (lp_srclines_symfile(sl, d, at, &file) && file)
				sink += strlen(file);
			const struct lp_sym *o = lp_dso_find_object(d, at + 1);
			sink += o ? strlen(o->name) : 0;
		}
	}
	lp_srclines_free(sl);
	lp_dso_free(d);
	return 0;
}
