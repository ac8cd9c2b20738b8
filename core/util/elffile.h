/*
 * elffile.h - internal: ELF files as libelf reads them, for core/probe/ and
 * core/sym/ alike: opening a file or a memory image (libelf's version set,
 * the kind checked) and finding a section by name.  Everything here returns
 * 0/-errno or NULL, and never prints.
 */
#ifndef LP_ELFFILE_H
#define LP_ELFFILE_H

#include <stddef.h>
#include <gelf.h>

/* lp_elf_open flags. */
#define LP_ELF_REGULAR 1u       /* refuse anything but a regular file */

/* Opens the file at path read-only (O_CLOEXEC) and reads it with libelf
 * (ELF_C_READ_MMAP).  LP_ELF_REGULAR: opens without blocking (a FIFO does
 * not hang) and refuses a directory (-EISDIR) or another non-regular file
 * (-ENOEXEC).  Returns 0 with *fd and *e set, to be given back to
 * lp_elf_close(), or -errno from open(2)/fstat(2), or -ENOEXEC when the
 * file is not ELF (nothing left open). */
int lp_elf_open(const char *path, unsigned flags, int *fd, Elf **e);

/* Ends e and closes fd, as lp_elf_open() gave them. */
void lp_elf_close(int fd, Elf *e);

/* The ELF image of size bytes at image, read in place with libelf (which
 * only reads an image it is given this way: image must stay unchanged and
 * alive until elf_end()).  NULL when libelf cannot read it or it is not
 * ELF. */
Elf *lp_elf_mem(const void *image, size_t size);

/* For lp_elf_section(): a section of any type. */
#define LP_ELF_ANY_TYPE SHT_NULL

/* The first section of e called name whose sh_type is type (any type for
 * LP_ELF_ANY_TYPE), its header into *sh when sh is not NULL; NULL when
 * there is none or e has no section name table.  Sections whose header
 * cannot be read are skipped. */
Elf_Scn *lp_elf_section(Elf *e, const char *name, GElf_Word type, GElf_Shdr *sh);

/* The symbol tables perf 6.1 reads from e, in its order, into scn:
 * .symtab then .dynsym, or .dynsym alone (the first section of each type,
 * SHT_SYMTAB and SHT_DYNSYM: a separate debug file's NOBITS .dynsym is
 * none).  Returns how many (0-2). */
int lp_elf_sym_tables(Elf *e, Elf_Scn *scn[2]);

/* Called by lp_elf_each_sym() for symbol i; a non-zero return stops
 * the scan, which returns it. */
typedef int (*lp_elf_sym_fn)(void *arg, size_t i, const GElf_Sym *sym);

/* Calls fn(arg, i, &sym) for the symbols i = 1, 2, ... of scn, a symbol
 * table (SHT_SYMTAB or SHT_DYNSYM) of e, which lp_elf_open() gave with
 * fd.  They are read with pread(2), LP_ELF_SYM_WINDOW of them at a time,
 * not through libelf's mapping of the file: a scan of a large table
 * (libLLVM's .dynsym, 1.3 MiB) then leaves none of it resident in the
 * process, where every page a mapping touched stays until the file is
 * closed.  A table libelf has to decompress is read through libelf.
 * Returns fn's first non-zero return, or 0 when all were passed, or
 * -ENOEXEC when the table can't be read whole (the symbols before the
 * fault were passed), or -ENOMEM. */
#define LP_ELF_SYM_WINDOW 1024
int lp_elf_each_sym(Elf *e, int fd, Elf_Scn *scn, lp_elf_sym_fn fn, void *arg);

#endif
