/*
 * buildid.c - build-ids as perf records and keeps them: comparison (with
 * perf's allowance for the zero-padded 20 bytes old files hold), hex, and
 * the files of perf's build-id cache.  (The running kernel's is read by
 * kbuildid.c.)
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
#include <time.h>
#include <unistd.h>

#include "sym/sym_int.h"


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

bool lp_build_id_cache_dir(unsigned idx, char *buf, size_t n)
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

bool lp_since_boot(const struct stat *st)
{
	struct timespec real, up;

	if (clock_gettime(CLOCK_REALTIME, &real) || clock_gettime(CLOCK_BOOTTIME, &up))
		return false;
	return st->st_mtim.tv_sec + 1 >= real.tv_sec - up.tv_sec;
}

bool lp_build_id_cache_file(const uint8_t *id, size_t n, const char *base, unsigned idx,
			    char *buf, size_t size)
{
	char dir[PATH_MAX], hex[2 * LP_BUILD_ID_SIZE + 1];
	struct stat st;

	if (!n || !lp_build_id_cache_dir(idx, dir, sizeof dir))
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
