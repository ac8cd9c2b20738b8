/*
 * elffile.c - ELF files as libelf reads them: opening a file or a memory
 * image and finding a section by name (elffile.h).  Shared by core/probe/
 * and core/sym/, which depend on core/util/ and not on each other.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
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
