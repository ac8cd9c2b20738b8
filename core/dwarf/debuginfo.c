/*
 * debuginfo.c - libdwfl's find_debuginfo callback for luaprof's sessions:
 * an object whose own file has no DWARF gets it from its separate debug
 * file, found in luaprof's order (lp_debug_file_find: debuglink, the
 * build-id directory, perf's build-id cache, under --symfs), then from
 * debuginfod servers when the user allows them (DEBUGINFOD_URLS set, no
 * --no-debuginfod), through libdwfl's standard lookup, which asks them.
 * A module's debuglink is followed from where its object is
 * (lp_dso_origin, kept as the module's userdata), not from the copy in
 * perf's build-id cache it may be read from.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dwarf/dwarf_int.h"
#include "luaprof/sym.h"
#include "sym/sym_core.h"

int lp_dwarf_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			    Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			    GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	char path[PATH_MAX];
	const unsigned char *id = NULL;
	GElf_Addr id_vaddr, bias;
	int n = dwfl_module_build_id(mod, &id, &id_vaddr);
	Elf *e = dwfl_module_getelf(mod, &bias);
	const char *origin = userdata && *userdata ? *userdata : file_name;
	if (lp_debug_file_find(origin, e, id, n > 0 ? (size_t)n : 0, path, sizeof path)) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0 && (*debuginfo_file_name = strdup(path)))
			return fd;
		if (fd >= 0)
			close(fd);
	}
	if (!lp_sym_debuginfod())
		return -1;
	return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
					    debuglink_file, debuglink_crc, debuginfo_file_name);
}

int lp_dwarf_no_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	(void)mod; (void)userdata; (void)name; (void)base; (void)file_name;
	*elfp = NULL;
	return -1;
}

void lp_dwarf_set_origin(Dwfl_Module *mod, const struct lp_dso *d)
{
	void **ud = NULL;
	if (mod && d && dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL) && ud)
		*ud = (void *)(uintptr_t)lp_dso_origin(d);
}

void lp_dwarf_callbacks(Dwfl_Callbacks *cb)
{
	memset(cb, 0, sizeof *cb);
	cb->find_elf = lp_dwarf_no_elf;
	cb->find_debuginfo = lp_dwarf_find_debuginfo;
	cb->section_address = dwfl_offline_section_address;
}
