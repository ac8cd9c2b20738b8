/*
 * fuzz_elfsyms.c - lp_elf_each_sym (elffile.c) on any bytes taken as an
 * ELF file: the input is written to a file (a memfd, memfile.h) and each
 * of its symbol tables scanned; every symbol it passes must be the one
 * libelf's gelf_getsym reads at that index (byte order, class and entry
 * size as the input says), and a scan libelf can read whole must pass
 * them all.  A difference aborts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/elffile.h"
#include "memfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct check {
	Elf_Data *data;         /* libelf's reading, or NULL */
	size_t next, calls;
};

static int same_as_libelf(void *arg, size_t i, const GElf_Sym *sym)
{
	struct check *c = arg;
	GElf_Sym want;

	if (i != c->next++)
		abort();
	c->calls++;
	if (c->data && gelf_getsym(c->data, (int)i, &want) && memcmp(&want, sym, sizeof want))
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	char path[64];
	int efd;
	Elf *e;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	memfile(&fd, data, size, path, sizeof path);
	if (lp_elf_open(path, 0, &efd, &e))
		return 0;
	for (int k = 0; k < 16 && (scn = elf_nextscn(e, scn)); k++) {
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		struct check c = { d && d->d_type == ELF_T_SYM ? d : NULL, 1, 0 };
		int rc = lp_elf_each_sym(e, efd, scn, same_as_libelf, &c);
		size_t ent = gelf_fsize(e, ELF_T_SYM, 1, EV_CURRENT);
		/* what libelf reads whole, the scan passes whole */
		if (c.data && !rc != !!(sh.sh_entsize == ent))
			abort();
		if (!rc && c.data && ent && c.calls + 1 != c.data->d_size / ent && c.data->d_size >= ent)
			abort();
	}
	lp_elf_close(efd, e);
	return 0;
}
