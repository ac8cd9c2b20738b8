/*
 * dwarf_int.h - internal to core/dwarf: what its files share.
 */
#ifndef LP_DWARF_INT_H
#define LP_DWARF_INT_H

#include <elfutils/libdwfl.h>

/* libdwfl's find_debuginfo callback in luaprof's order (debuginfo.c):
 * lp_debug_file_find(), then debuginfod when allowed (lp_sym_debuginfod).
 * Returns an open fd and sets *debuginfo_file_name (malloc'd), or -1. */
int lp_dwarf_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			    Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			    GElf_Word debuglink_crc, char **debuginfo_file_name);

/* A find_elf callback that finds nothing: objects are reported with their
 * files (dwfl_report_elf). */
int lp_dwarf_no_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
		    char **file_name, Elf **elfp);

/* Fills cb with the two callbacks above and offline section addresses. */
void lp_dwarf_callbacks(Dwfl_Callbacks *cb);

#endif
