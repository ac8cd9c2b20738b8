/*
 * fuzz_minidebug.c - MiniDebugInfo on any bytes: the xz decoder
 * (lp_xz_decode, capped at 4 MiB) and the ELF reader (lp_dso_open_mem:
 * segments, symbols, notes, as for a .gnu_debugdata image) on what it
 * decompresses to.  xz's checksums stop nearly every mutation of a
 * compressed stream, so bytes that do not decompress are read as an ELF
 * image themselves: the reader gets mutated images as well as the
 * decompressed ones (tests/fuzz/seeds.sh gives it both kinds).
 */
#include <stdint.h>
#include <stdlib.h>

#include "luaprof/sym.h"
#include "sym/sym_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void read_image(const void *image, size_t n)
{
	struct lp_dso *d = lp_dso_open_mem("mini", image, n);
	if (d) {
		const struct lp_symtab *t = lp_dso_symtab(d);
		for (size_t i = 0; i < lp_symtab_count(t); i++)
			(void)lp_dso_find(d, lp_symtab_at(t, i)->start);
		lp_dso_free(d);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	void *out = NULL;
	size_t n = 0;
	if (lp_xz_decode(data, size, 4u << 20, &out, &n)) {
		read_image(data, size);
		return 0;
	}
	if (n > 4u << 20)
		abort();
	read_image(out, n);
	free(out);
	return 0;
}
