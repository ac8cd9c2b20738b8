/*
 * fuzz_ldcache.c - the dynamic linker's cache (/etc/ld.so.cache, both
 * layouts) on any bytes: lp_ldcache_lookup of a bare library name, a
 * soname and a name that matches nothing.  A found path is a string that
 * fits the buffer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "luaprof/probe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "libc", "libc.so.6", "libz.so", "libnope" };
	/* a copy of the exact size, so that any read past it is caught */
	void *img = malloc(size ? size : 1);
	if (!img)
		return 0;
	memcpy(img, data, size);
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		char out[64];
		int rc = lp_ldcache_lookup(img, size, names[i], out, sizeof out);
		if (!rc && !memchr(out, 0, sizeof out))
			abort();
	}
	free(img);
	return 0;
}
