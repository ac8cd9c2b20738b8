/*
 * elfsym.c - a symbol's address and file offset in an ELF file, the
 * functions whose names match a glob, and the load bias of a running
 * program.
 *
 * The uprobe PMU takes a file offset: the function's st_value moved from
 * the PT_LOAD segment's virtual addresses to its file bytes (vaddr -
 * p_vaddr + p_offset), which is the same for executables, PIE and shared
 * libraries wherever they are loaded.  A watchpoint takes a virtual
 * address, so a variable of a PIE program needs the bias it was loaded at.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <elf.h>
#include <gelf.h>
#include <libelf.h>

#include "luaprof/hmap.h"
#include "luaprof/probe.h"
#include "probe/probe_int.h"
#include "util/elffile.h"

bool lp_elf_vaddr_offset(Elf *e, uint64_t vaddr, uint64_t *off)
{
	size_t n;
	if (elf_getphdrnum(e, &n))
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr >= ph.p_vaddr && vaddr - ph.p_vaddr < ph.p_filesz) {
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			return true;
		}
	}
	return false;
}

/* Whether a symbol's name is name, or name@VER / name@@VER. */
static bool name_is(const char *s, const char *name)
{
	size_t n = strlen(name);
	return !strncmp(s, name, n) && (!s[n] || s[n] == '@');
}

/* Looks name up in one symbol table section; 1 found (a global one, or
 * the first local when there is no global), 0 not. */
static int search_table(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, const char *name,
			GElf_Sym *out)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	if (!d || !sh->sh_entsize)
		return 0;
	size_t n = sh->sh_size / sh->sh_entsize;
	int found = 0;
	for (size_t i = 1; i < n; i++) {
		GElf_Sym sym;
		const char *s;
		if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
		    !(s = elf_strptr(e, sh->sh_link, sym.st_name)) || !name_is(s, name))
			continue;
		if (!found || GELF_ST_BIND(sym.st_info) != STB_LOCAL) {
			*out = sym;
			found = 1;
			if (GELF_ST_BIND(sym.st_info) != STB_LOCAL)
				break;
		}
	}
	return found;
}

static int find_sym(Elf *e, const char *name, GElf_Sym *out)
{
	for (int pass = 0; pass < 2; pass++) {
		Elf_Scn *scn = NULL;
		while ((scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;
			if (gelf_getshdr(scn, &sh) &&
			    sh.sh_type == (pass ? SHT_DYNSYM : SHT_SYMTAB) &&
			    search_table(e, scn, &sh, name, out))
				return 0;
		}
	}
	return -ENOENT;
}

int lp_elf_symbol(const char *path, const char *name, struct lp_elf_sym *out)
{
	int fd;
	Elf *e;
	int rc = lp_elf_open(path, 0, &fd, &e);
	if (rc)
		return rc;
	GElf_Ehdr eh;
	GElf_Sym sym = { 0 };
	memset(out, 0, sizeof *out);
	if (!gelf_getehdr(e, &eh))
		rc = -ENOEXEC;
	else if (!(rc = find_sym(e, name, &sym))) {
		out->vaddr = sym.st_value;
		out->size = sym.st_size;
		out->type = GELF_ST_TYPE(sym.st_info);
		out->dyn = eh.e_type == ET_DYN;
		out->has_offset = lp_elf_vaddr_offset(e, sym.st_value, &out->offset);
	}
	lp_elf_close(fd, e);
	return rc;
}

int lp_elf_file_offset(const char *path, uint64_t vaddr, uint64_t *off)
{
	int fd;
	Elf *e;
	int rc = lp_elf_open(path, 0, &fd, &e);
	if (rc)
		return rc;
	rc = lp_elf_vaddr_offset(e, vaddr, off) ? 0 : -ENOENT;
	lp_elf_close(fd, e);
	return rc;
}

/* Calls fn for each defined function of one symbol table whose name (its
 * @VER cut) matches glob and is not in seen yet; adds it to seen.
 * Returns 0, fn's non-zero result, or -ENOMEM. */
static int each_function(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, const char *glob,
			 struct lp_hmap *seen, int (*fn)(const char *name, void *arg), void *arg)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	char name[512];
	if (!d || !sh->sh_entsize)
		return 0;
	size_t n = sh->sh_size / sh->sh_entsize;
	for (size_t i = 1; i < n; i++) {
		GElf_Sym sym;
		const char *s;
		bool added;
		if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
		    GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_value ||
		    !(s = elf_strptr(e, sh->sh_link, sym.st_name)))
			continue;
		size_t len = strcspn(s, "@");
		if (!len || len >= sizeof name)
			continue;
		memcpy(name, s, len);
		name[len] = '\0';
		if (fnmatch(glob, name, 0))
			continue;
		if (lp_hmap_find(seen, name, len, lp_hash(name, len), true, &added) < 0)
			return -ENOMEM;
		int rc = added ? fn(name, arg) : 0;
		if (rc)
			return rc;
	}
	return 0;
}

int lp_elf_functions(const char *path, const char *glob,
		     int (*fn)(const char *name, void *arg), void *arg)
{
	int fd, rc;
	Elf *e;
	struct lp_hmap *seen = lp_hmap_new();
	if (!seen)
		return -ENOMEM;
	if ((rc = lp_elf_open(path, 0, &fd, &e))) {
		lp_hmap_free(seen);
		return rc;
	}
	for (int pass = 0; pass < 2 && !rc; pass++) {
		Elf_Scn *scn = NULL;
		while (!rc && (scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;
			if (gelf_getshdr(scn, &sh) && sh.sh_type == (pass ? SHT_DYNSYM : SHT_SYMTAB))
				rc = each_function(e, scn, &sh, glob, seen, fn, arg);
		}
	}
	lp_elf_close(fd, e);
	lp_hmap_free(seen);
	return rc;
}

/* AT_ENTRY of pid's auxiliary vector. */
static int auxv_entry(pid_t pid, uint64_t *entry)
{
	char path[64];
	uint64_t kv[2];
	snprintf(path, sizeof path, "/proc/%d/auxv", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	int rc = -ENOENT;
	while (rc == -ENOENT && read(fd, kv, sizeof kv) == (ssize_t)sizeof kv && kv[0] != AT_NULL)
		if (kv[0] == AT_ENTRY) {
			*entry = kv[1];
			rc = 0;
		}
	close(fd);
	return rc;
}

int lp_elf_load_bias(pid_t pid, const char *path, uint64_t *bias)
{
	int fd;
	Elf *e;
	uint64_t entry = 0;
	int rc = auxv_entry(pid, &entry);
	if (rc || (rc = lp_elf_open(path, 0, &fd, &e)))
		return rc;
	GElf_Ehdr eh;
	if (!gelf_getehdr(e, &eh))
		rc = -ENOEXEC;
	else
		*bias = eh.e_type == ET_DYN ? entry - eh.e_entry : 0;
	lp_elf_close(fd, e);
	return rc;
}
