/*
 * dsolocal.c - objects as this machine has them, by the path a map names:
 * the file (under --symfs when set), or for "[vdso]" this process's own
 * vDSO image, found with getauxval(AT_SYSINFO_EHDR): every process of a
 * native ABI gets the same one from the kernel.  Paths that are not files
 * are never opened (anonymous and special maps, devices, SysV shared memory,
 * anything "(deleted)").
 *
 * Below both the object cache (dsos.c) and the objects of a recording
 * (bidfind.c), which fall back to it; it calls neither.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>

#include "luaprof/luaprof.h"
#include "sym/sym_int.h"

bool lp_map_path_is_vdso(const char *path)
{
	return !strcmp(path, "[vdso]");
}

bool lp_map_path_is_file(const char *path)
{
	static const char deleted[] = " (deleted)";
	size_t n = strlen(path), nd = sizeof deleted - 1;

	if (path[0] != '/' || path[1] == '/')   /* "", "[heap]", "//anon", ... */
		return false;
	if (!strncmp(path, "/dev/", 5) || !strncmp(path, "/SYSV", 5))
		return false;
	return !(n >= nd && !strcmp(path + n - nd, deleted));
}

struct lp_dso *lp_dso_open_vdso(void)
{
	const void *image = (const void *)(uintptr_t)getauxval(AT_SYSINFO_EHDR);
	size_t size = image ? lp_dso_mem_size(image) : 0;

	if (!size) {
		lp_log(LP_DEBUG, "sym: [vdso]: no usable vDSO image in this process");
		return NULL;
	}
	return lp_dso_open_mem("[vdso]", image, size);
}

struct lp_dso *lp_dsos_open_local(const char *path)
{
	struct lp_dso *d;

	if (lp_map_path_is_vdso(path))
		return lp_dso_open_vdso();
	char rooted[PATH_MAX];
	if (!lp_map_path_is_file(path))
		return NULL;
	d = lp_symfs_path(path, rooted, sizeof rooted) ? lp_dso_open(rooted) : NULL;
	if (!d)
		lp_log(LP_DEBUG, "sym: open %s: %s", rooted, strerror(errno));
	return d;
}
