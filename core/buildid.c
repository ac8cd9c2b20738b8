/*
 * buildid.c - build-ids as perf records and keeps them: comparison (with
 * perf's allowance for the zero-padded 20 bytes old files hold), hex, the
 * running kernel's (the GNU note in /sys/kernel/notes), and the files of
 * perf's build-id cache.
 *
 * The cache is what perf record fills unless --no-buildid-cache: a copy of
 * every object that got samples, under DIR/.build-id/NN/REST, a link to a
 * directory holding "elf" (the object), "debug" (its separate debug file,
 * when there was one), "vdso" or "kallsyms".  Caches written before perf
 * 4.x link straight to the object file.  DIR is $PERF_BUILDID_DIR when set
 * (perf exports it to the programs it starts), then $HOME/.debug.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sym_int.h"

#define NOTES_MAX 8192          /* /sys/kernel/notes is a few hundred bytes */
#define NT_GNU_BUILD_ID_ 3

bool lp_build_id_equal(const uint8_t *want, size_t wn, const uint8_t *have, size_t hn)
{
	if (!wn || !hn || hn > wn || memcmp(want, have, hn))
		return false;
	if (hn == wn)
		return true;
	/* Files without perf's size flag hold 20 bytes, zero-padded. */
	for (size_t i = hn; i < wn; i++)
		if (want[i])
			return false;
	return wn == LP_BUILD_ID_SIZE;
}

char *lp_build_id_hex(const uint8_t *id, size_t n, char *buf)
{
	static const char digits[] = "0123456789abcdef";

	n = n < LP_BUILD_ID_SIZE ? n : LP_BUILD_ID_SIZE;
	for (size_t i = 0; i < n; i++) {
		buf[2 * i] = digits[id[i] >> 4];
		buf[2 * i + 1] = digits[id[i] & 15];
	}
	buf[2 * n] = '\0';
	return buf;
}

static size_t align4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

size_t lp_build_id_read_notes(const char *path, uint8_t *id, size_t cap)
{
	unsigned char buf[NOTES_MAX];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t len = fd < 0 ? -1 : read(fd, buf, sizeof buf);

	if (fd >= 0)
		close(fd);
	for (size_t off = 0; len > 0 && off + 12 <= (size_t)len;) {
		uint32_t h[3];          /* namesz, descsz, type */
		memcpy(h, buf + off, sizeof h);
		size_t name = off + 12, desc = name + align4(h[0]);
		if (h[0] > NOTES_MAX || h[1] > NOTES_MAX || desc + h[1] > (size_t)len)
			break;
		if (h[2] == NT_GNU_BUILD_ID_ && h[0] == 4 && !memcmp(buf + name, "GNU", 4) &&
		    h[1] > 0) {
			size_t n = h[1] < cap ? h[1] : cap;
			memcpy(id, buf + desc, n);
			return n;
		}
		off = desc + align4(h[1]);
	}
	return 0;
}

/* The idx-th cache directory into buf; false when there is none. */
static bool cache_dir(unsigned idx, char *buf, size_t n)
{
	const char *env = getenv("PERF_BUILDID_DIR"), *home = getenv("HOME");
	char dflt[PATH_MAX] = "";

	if (home && *home)
		snprintf(dflt, sizeof dflt, "%s/.debug", home);
	const char *dirs[2] = { env && *env ? env : NULL, dflt[0] ? dflt : NULL };
	if (dirs[0] && dirs[1] && !strcmp(dirs[0], dirs[1]))
		dirs[1] = NULL;
	for (unsigned i = 0, k = 0; i < 2; i++) {
		if (dirs[i] && k++ == idx) {
			snprintf(buf, n, "%s", dirs[i]);
			return true;
		}
	}
	return false;
}

bool lp_build_id_cache_file(const uint8_t *id, size_t n, const char *base, unsigned idx,
			    char *buf, size_t size)
{
	char dir[PATH_MAX], hex[2 * LP_BUILD_ID_SIZE + 1];
	struct stat st;

	if (!n || !cache_dir(idx, dir, sizeof dir))
		return false;
	lp_build_id_hex(id, n, hex);
	int len = snprintf(buf, size, "%s/.build-id/%.2s/%s", dir, hex, hex + 2);
	if (len < 0 || (size_t)len >= size)
		return true;    /* too long: a name that opens nothing */
	if (stat(buf, &st) || S_ISREG(st.st_mode))
		return true;    /* missing, or the old layout: the object itself */
	snprintf(buf + len, size - (size_t)len, "/%s", base);
	return true;
}
