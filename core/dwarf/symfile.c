/*
 * symfile.c - the file binutils' addr2line names for an address that no
 * line of DWARF holds, from the ELF symbols, as perf's srcline shows it.
 *
 * addr2line (binutils 2.40, which perf runs) falls back to the symbol
 * table (.symtab, else .dynsym) when DWARF gives no line, or when there is
 * no DWARF at all (_bfd_elf_find_function): the function
 * is the symbol (FUNC, IFUNC or NOTYPE) of the address's section with the
 * highest value not above it, the last of equal ones in the table; its
 * file is the name of the last STT_FILE symbol before it in the table
 * when the function is local, or when no FILE symbol came after the first
 * symbol; else none.  It prints "FILE:?" (crtstuff.c's functions),
 * "??:?" (a global such as _start) or, with no function, "??:0", which
 * perf takes for a failure.  Built once per object: entries sorted by
 * section, value and table order.
 */
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf/dwarf_int.h"
#include "util/grow.h"

#define MAX_ENTRIES (1u << 26)

struct entry {
	uint64_t value;
	uint32_t shndx, idx;
	const char *file;       /* in the ELF's string table; NULL: none */
};

struct lp_symfiles {
	Elf *elf;
	struct entry *v;
	size_t n, cap;
};

static int by_place(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	if (x->shndx != y->shndx)
		return x->shndx < y->shndx ? -1 : 1;
	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The symbol table of e addr2line reads, and its header: .symtab when it
 * has symbols, else .dynsym (slurp_symtab); NULL when there is none. */
static Elf_Scn *symtab_of(Elf *e, GElf_Shdr *sh)
{
	for (int pass = 0; pass < 2; pass++) {
		Elf_Scn *scn = NULL;
		while ((scn = elf_nextscn(e, scn)))
			if (gelf_getshdr(scn, sh) && sh->sh_entsize && sh->sh_size > sh->sh_entsize &&
			    sh->sh_type == (pass ? SHT_DYNSYM : SHT_SYMTAB))
				return scn;
	}
	return NULL;
}

/* Adds the functions of the symbol table (data, n symbols) with the file
 * binutils gives each; false on ENOMEM. */
static bool read_entries(struct lp_symfiles *s, Elf_Data *data, size_t n, GElf_Word strndx)
{
	enum { NOTHING, SYMBOL, FILE_AFTER } state = NOTHING;
	const char *file = NULL;
	for (size_t i = 1; i < n; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)i, &sym))
			break;
		int type = GELF_ST_TYPE(sym.st_info);
		if (type == STT_FILE) {
			file = elf_strptr(s->elf, strndx, sym.st_name);
			if (state == SYMBOL)
				state = FILE_AFTER;
			continue;
		}
		if ((type == STT_FUNC || type == STT_GNU_IFUNC || type == STT_NOTYPE) &&
		    sym.st_shndx != SHN_UNDEF && sym.st_shndx < SHN_LORESERVE) {
			if (lp_grow(&s->v, &s->cap, s->n, sizeof *s->v, 256, MAX_ENTRIES))
				return false;
			bool local = GELF_ST_BIND(sym.st_info) == STB_LOCAL;
			s->v[s->n++] = (struct entry){ sym.st_value, sym.st_shndx, (uint32_t)i,
						       local || state != FILE_AFTER ? file : NULL };
		}
		if (state == NOTHING)
			state = SYMBOL;
	}
	return true;
}

struct lp_symfiles *lp_symfiles_new(Elf *e)
{
	struct lp_symfiles *s = calloc(1, sizeof *s);
	GElf_Shdr sh;
	Elf_Scn *scn = e ? symtab_of(e, &sh) : NULL;
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	if (!s)
		return NULL;
	s->elf = e;
	if (data && sh.sh_entsize &&
	    !read_entries(s, data, sh.sh_size / sh.sh_entsize, (GElf_Word)sh.sh_link)) {
		lp_symfiles_free(s);
		return NULL;
	}
	if (s->n)
		qsort(s->v, s->n, sizeof *s->v, by_place);
	return s;
}

void lp_symfiles_free(struct lp_symfiles *s)
{
	if (!s)
		return;
	free(s->v);
	free(s);
}

/* The index of the allocated section holding vaddr, 0 when none does. */
static uint32_t section_of(Elf *e, uint64_t vaddr)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC) && sh.sh_addr <= vaddr &&
		    vaddr - sh.sh_addr < sh.sh_size)
			return (uint32_t)elf_ndxscn(scn);
	return 0;
}

bool lp_symfiles_find(const struct lp_symfiles *s, uint64_t vaddr, const char **file)
{
	uint32_t shndx = s && s->n ? section_of(s->elf, vaddr) : 0;
	size_t lo = 0, hi = s ? s->n : 0;
	*file = NULL;
	if (!shndx)
		return false;
	while (lo < hi) {               /* the first entry after (shndx, vaddr) */
		size_t mid = lo + (hi - lo) / 2;
		const struct entry *m = &s->v[mid];
		if (m->shndx < shndx || (m->shndx == shndx && m->value <= vaddr))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || s->v[lo - 1].shndx != shndx)
		return false;
	*file = s->v[lo - 1].file;
	return true;
}
