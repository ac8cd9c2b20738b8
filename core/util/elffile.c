/*
 * elffile.c - ELF files as libelf reads them: opening a file or a memory
 * image and finding a section by name (elffile.h).  Shared by core/probe/
 * and core/sym/, which depend on core/util/ and not on each other.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "util/elffile.h"

/* An fd for path; with regular, only for a regular file (-EISDIR for a
 * directory, -ENOEXEC for a FIFO, device...), opened without blocking. */
static int open_fd(const char *path, bool regular)
{
	int fd = open(path, regular ? O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY
				    : O_RDONLY | O_CLOEXEC);
	struct stat st;
	int err;

	if (fd < 0)
		return -errno;
	if (!regular)
		return fd;
	if (fstat(fd, &st))
		err = -errno;
	else if (!S_ISREG(st.st_mode))
		err = S_ISDIR(st.st_mode) ? -EISDIR : -ENOEXEC;
	else
		return fd;
	close(fd);
	return err;
}

int lp_elf_open(const char *path, unsigned flags, int *fd, Elf **e)
{
	elf_version(EV_CURRENT);
	*fd = open_fd(path, flags & LP_ELF_REGULAR);
	if (*fd < 0)
		return *fd;
	*e = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!*e || elf_kind(*e) != ELF_K_ELF) {
		if (*e)
			elf_end(*e);
		close(*fd);
		return -ENOEXEC;
	}
	return 0;
}

void lp_elf_close(int fd, Elf *e)
{
	elf_end(e);
	close(fd);
}

Elf *lp_elf_mem(const void *image, size_t size)
{
	elf_version(EV_CURRENT);
	/* libelf only reads an image opened with elf_memory */
	Elf *e = elf_memory((char *)(uintptr_t)image, size);
	if (e && elf_kind(e) != ELF_K_ELF) {
		elf_end(e);
		e = NULL;
	}
	return e;
}

Elf_Scn *lp_elf_section(Elf *e, const char *name, GElf_Word type, GElf_Shdr *sh)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr own;

	if (!sh)
		sh = &own;
	if (elf_getshdrstrndx(e, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(e, scn))) {
		const char *n;
		if (gelf_getshdr(scn, sh) && (type == LP_ELF_ANY_TYPE || sh->sh_type == type) &&
		    (n = elf_strptr(e, shstrndx, sh->sh_name)) && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

int lp_elf_sym_tables(Elf *e, Elf_Scn *scn[2])
{
	Elf_Scn *s = NULL, *symtab = NULL, *dynsym = NULL;
	GElf_Shdr sh;

	while ((s = elf_nextscn(e, s))) {
		if (!gelf_getshdr(s, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB && !symtab)
			symtab = s;
		else if (sh.sh_type == SHT_DYNSYM && !dynsym)
			dynsym = s;
	}
	int n = 0;
	if (symtab)
		scn[n++] = symtab;
	if (dynsym)
		scn[n++] = dynsym;
	return n;
}

/* lp_elf_each_sym through libelf, ent bytes a symbol: for a compressed
 * table (its sh_size is the compressed size). */
static int each_sym_libelf(Elf_Scn *scn, size_t ent, lp_elf_sym_fn fn, void *arg)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	GElf_Sym sym;
	int rc;

	if (!data || data->d_type != ELF_T_SYM)
		return -ENOEXEC;
	for (size_t i = 1, n = data->d_size / ent; i < n; i++) {
		if (!gelf_getsym(data, (int)i, &sym))
			return -ENOEXEC;
		if ((rc = fn(arg, i, &sym)))
			return rc;
	}
	return 0;
}

/* Symbol k of a window converted to memory order, as a GElf_Sym. */
static void window_sym(const void *win, int cls, size_t k, GElf_Sym *out)
{
	if (cls == ELFCLASS64) {
		*out = ((const Elf64_Sym *)win)[k];
		return;
	}
	const Elf32_Sym *s = &((const Elf32_Sym *)win)[k];
	*out = (GElf_Sym){ .st_name = s->st_name, .st_info = s->st_info, .st_other = s->st_other,
			   .st_shndx = s->st_shndx, .st_value = s->st_value, .st_size = s->st_size };
}

/* Reads symbols [i, i + m) of the table at file offset off into win, in
 * memory order, through raw; 0 or -ENOEXEC. */
static int read_window(Elf *e, int fd, uint64_t off, size_t ent, size_t i, size_t m,
		       void *raw, void *win)
{
	size_t bytes = m * ent;
	unsigned char enc = (unsigned char)elf_getident(e, NULL)[EI_DATA];
	Elf_Data src = { .d_buf = raw, .d_type = ELF_T_SYM, .d_size = bytes,
			 .d_version = EV_CURRENT };
	Elf_Data dst = { .d_buf = win, .d_type = ELF_T_SYM, .d_size = bytes,
			 .d_version = EV_CURRENT };

	if (pread(fd, raw, bytes, (off_t)(off + i * ent)) != (ssize_t)bytes ||
	    !gelf_xlatetom(e, &dst, &src, enc))
		return -ENOEXEC;
	return 0;
}

int lp_elf_each_sym(Elf *e, int fd, Elf_Scn *scn, lp_elf_sym_fn fn, void *arg)
{
	GElf_Shdr sh;
	int cls = gelf_getclass(e);
	size_t ent = gelf_fsize(e, ELF_T_SYM, 1, EV_CURRENT);

	if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
	    !ent || sh.sh_entsize != ent || (cls != ELFCLASS32 && cls != ELFCLASS64))
		return -ENOEXEC;
	if (sh.sh_flags & SHF_COMPRESSED)
		return each_sym_libelf(scn, ent, fn, arg);
	size_t n = sh.sh_size / ent;
	if (n < 2)              /* no symbol but the null one: nothing to read */
		return 0;
	if (sh.sh_size > INT64_MAX || sh.sh_offset > INT64_MAX - sh.sh_size)
		return -ENOEXEC;
	char *buf = malloc(2 * LP_ELF_SYM_WINDOW * ent);
	if (!buf)
		return -ENOMEM;
	int rc = 0;
	for (size_t i = 1; i < n && !rc;) {     /* symbol 0 is the null one */
		size_t m = n - i < LP_ELF_SYM_WINDOW ? n - i : LP_ELF_SYM_WINDOW;
		void *win = buf + LP_ELF_SYM_WINDOW * ent;
		if ((rc = read_window(e, fd, sh.sh_offset, ent, i, m, buf, win)))
			break;
		for (size_t k = 0; k < m && !rc; k++) {
			GElf_Sym sym;
			window_sym(win, cls, k, &sym);
			rc = fn(arg, i + k, &sym);
		}
		i += m;
	}
	free(buf);
	return rc;
}
