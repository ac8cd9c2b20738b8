/*
 * sym_core.h - what core/sym shares with the rest of core (core/dwarf
 * reads the objects it names), and not with lua/, which sees
 * include/luaprof/sym.h only.  Its files' own interfaces are in sym_int.h,
 * private to core/sym (tests/layers.txt).
 */
#ifndef LP_SYM_CORE_H
#define LP_SYM_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct Elf;     /* libelf's Elf */

/* The size of the ELF image at image as its headers describe it: the
 * largest of the section header table end, the program header table end
 * and every segment's file end.  0 when image is not a native 64-bit ELF
 * header.  Only the ELF, program headers are read (they must be mapped). */
size_t lp_dso_mem_size(const void *image);

/* The demangled form of a C++ or Rust name (NAME@plt stubs too), with its
 * parameters, or without them when it demangles only so; malloc'd (the
 * caller frees it); NULL when name is not mangled, does not demangle, or
 * memory ran out. */
char *lp_demangle(const char *name);

/* Finds the separate debug file of the object at path (its ELF e, its
 * build-id id of n bytes; either may be missing) in gdb's and perf's order:
 * its .gnu_debuglink file (its directory, then .debug/ there, then
 * /usr/lib/debug + its directory; the CRC must match), then
 * /usr/lib/debug/.build-id/NN/REST.debug, then perf's build-id cache
 * (debug), all but the last rooted in the symfs directory.  Writes the
 * file's name into buf (size bytes); false when there is none. */
bool lp_debug_file_find(const char *path, struct Elf *e, const uint8_t *id, size_t n,
			char *buf, size_t size);

#endif
