/*
 * debugfile.c - where an object's separate debug information is, and the
 * settings every lookup of object files shares (--symfs, debuginfod).
 *
 * The order is gdb's and perf's, each path rooted in the symfs directory:
 *   1. the file its .gnu_debuglink section names (CRC-32 checked): in the
 *      object's directory, then its .debug/ subdirectory, then under
 *      /usr/lib/debug with the object's directory;
 *   2. /usr/lib/debug/.build-id/NN/REST.debug;
 *   3. perf's build-id cache ($PERF_BUILDID_DIR, ~/.debug: .../debug).
 * MiniDebugInfo (minidebug.c) and debuginfod (core/dwarf) come after.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sym/sym_int.h"
#include "util/elffile.h"

#define DEBUG_DIR "/usr/lib/debug"

static char symfs[PATH_MAX];
static bool debuginfod_on = true;

int lp_sym_set_symfs(const char *dir)
{
	size_t n = dir ? strlen(dir) : 0;
	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (n >= sizeof symfs)
		return -ENAMETOOLONG;
	memcpy(symfs, dir ? dir : "", n);
	symfs[n] = '\0';
	if (!strcmp(symfs, "/"))
		symfs[0] = '\0';
	return 0;
}

const char *lp_sym_symfs(void)
{
	return symfs;
}

void lp_sym_set_debuginfod(bool on)
{
	debuginfod_on = on;
}

bool lp_sym_debuginfod(void)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	return debuginfod_on && urls && *urls;
}

bool lp_symfs_path(const char *path, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s%s", path[0] == '/' ? symfs : "", path);
	return n >= 0 && (size_t)n < size;
}

uint32_t lp_debuglink_crc(uint32_t crc, const void *data, size_t n)
{
	static uint32_t table[256];
	const uint8_t *p = data;
	if (!table[1])
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;
			for (int k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
			table[i] = c;
		}
	crc = ~crc;
	while (n--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

int lp_debuglink_parse(const void *data, size_t size, char *name, size_t n, uint32_t *crc)
{
	const char *s = data;
	size_t len = strnlen(s, size);
	size_t off = (len + 1 + 3) & ~(size_t)3;        /* the CRC is 4-aligned */
	if (len == 0 || len >= size || off + 4 > size || len >= n || memchr(s, '/', len))
		return -EINVAL;
	memcpy(name, s, len + 1);
	memcpy(crc, s + off, 4);        /* in the file's byte order: native here */
	return 0;
}

/* The CRC-32 of the file at path, or false when it cannot be read. */
static bool file_crc(const char *path, uint32_t *crc)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	bool ok = false;
	if (fd < 0)
		return false;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0) {
		void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p != MAP_FAILED) {
			*crc = lp_debuglink_crc(0, p, (size_t)st.st_size);
			munmap(p, (size_t)st.st_size);
			ok = true;
		}
	}
	close(fd);
	return ok;
}

/* The object's .gnu_debuglink name and CRC; false when it has none. */
static bool elf_debuglink(Elf *e, char *name, size_t n, uint32_t *crc)
{
	Elf_Scn *scn = lp_elf_section(e, ".gnu_debuglink", SHT_PROGBITS, NULL);
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	return data && data->d_buf && !lp_debuglink_parse(data->d_buf, data->d_size, name, n, crc);
}

/* Step 1: the debuglink candidates of the object at path (the file read,
 * already under the symfs directory). */
static bool find_debuglink(const char *path, Elf *e, char *buf, size_t size)
{
	char name[256];
	uint32_t want, have;
	size_t root = strlen(symfs);
	if (!elf_debuglink(e, name, sizeof name, &want))
		return false;
	const char *slash = strrchr(path, '/');
	int dn = slash ? (int)(slash - path) : 0;
	/* the object's directory as the symfs root sees it */
	const char *orig = root && !strncmp(path, symfs, root) ? path + root : path;
	int on = dn - (int)(orig - path);
	for (int i = 0; i < 3; i++) {
		int n = i == 0 ? snprintf(buf, size, "%.*s/%s", dn, path, name) :
			i == 1 ? snprintf(buf, size, "%.*s/.debug/%s", dn, path, name) :
				 snprintf(buf, size, "%s" DEBUG_DIR "%.*s/%s", symfs, on > 0 ? on : 0,
					  orig, name);
		if (n < 0 || (size_t)n >= size || !strcmp(buf, path))
			continue;       /* too long, or the object itself */
		if (file_crc(buf, &have) && have == want)
			return true;
	}
	return false;
}

/* Whether a regular file exists at path. */
static bool is_file(const char *path)
{
	struct stat st;
	return !stat(path, &st) && S_ISREG(st.st_mode);
}

bool lp_debug_file_find(const char *path, Elf *e, const uint8_t *id, size_t n,
			char *buf, size_t size)
{
	char hex[2 * LP_BUILD_ID_SIZE + 1];
	if (path && e && find_debuglink(path, e, buf, size))
		return true;
	if (!n)
		return false;
	lp_build_id_hex(id, n, hex);
	int len = snprintf(buf, size, "%s" DEBUG_DIR "/.build-id/%.2s/%s.debug", symfs, hex, hex + 2);
	if (len > 0 && (size_t)len < size && is_file(buf))
		return true;
	for (unsigned i = 0; lp_build_id_cache_file(id, n, "debug", i, buf, size); i++)
		if (is_file(buf))
			return true;
	return false;
}
