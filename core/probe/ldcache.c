/*
 * ldcache.c - library names through the dynamic linker's cache
 * (/etc/ld.so.cache), as ldconfig writes it since glibc 2.32:
 *
 *   "glibc-ld.so.cache" "1.1"  u32 nlibs  u32 len_strings  u8 flags  u8 pad[3]
 *   u32 extension_offset  u32 unused[3]            (48 bytes)
 *   nlibs x { i32 flags, u32 key, u32 value, u32 osversion, u64 hwcap }
 *   strings: key (soname) and value (path) offsets from the header's start
 *
 * Older caches put the ld.so-1.7.0 table (nlibs x 12 bytes) first; the new
 * header follows it, 8-byte aligned.  Every offset is checked against the
 * image; a string must end inside it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "luaprof/probe.h"

#define NEW_MAGIC "glibc-ld.so.cache1.1"
#define OLD_MAGIC "ld.so-1.7.0"
#define NEW_HEADER 48
#define NEW_ENTRY 24
#define OLD_HEADER 16           /* magic (11) + pad to 12 + u32 nlibs */
#define OLD_ENTRY 12
#define FLAG_ELF_LIBC6 0x0003
#define FLAG_X8664_LIB64 0x0300

static uint32_t u32_at(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

/* The new header's offset in the image, or -1. */
static long new_header(const unsigned char *c, size_t size)
{
	size_t off = 0;
	if (size >= OLD_HEADER && !memcmp(c, OLD_MAGIC, sizeof OLD_MAGIC - 1)) {
		uint32_t n = u32_at(c + 12);
		if (n > (size - OLD_HEADER) / OLD_ENTRY)
			return -1;
		off = (OLD_HEADER + (size_t)n * OLD_ENTRY + 7) & ~(size_t)7;
	}
	if (off > size || size - off < NEW_HEADER || memcmp(c + off, NEW_MAGIC, sizeof NEW_MAGIC - 1))
		return -1;
	return (long)off;
}

/* The string at offset o of the part starting at base, or NULL when it
 * does not end inside the image. */
static const char *string_at(const unsigned char *c, size_t size, size_t base, uint32_t o)
{
	if (o >= size - base)
		return NULL;
	const char *s = (const char *)c + base + o;
	return memchr(s, '\0', size - base - o) ? s : NULL;
}

/* Whether soname key is what name asks for: the same, or for a bare name
 * "NAME.so" or "NAME.so.VERSION". */
static bool key_matches(const char *key, const char *name, bool bare)
{
	if (!bare)
		return !strcmp(key, name);
	size_t n = strlen(name);
	if (strncmp(key, name, n))
		return false;
	key += n;
	if (strncmp(name + (n >= 3 ? n - 3 : 0), ".so", 3) && strncmp(key, ".so", 3))
		return false;
	if (!strncmp(key, ".so", 3))
		key += 3;
	return !*key || *key == '.';
}

int lp_ldcache_lookup(const void *cache, size_t size, const char *name, char *out, size_t outsz)
{
	const unsigned char *c = cache;
	long h = new_header(c, size);
	if (h < 0)
		return -EINVAL;
	size_t base = (size_t)h;
	uint32_t n = u32_at(c + base + 20);
	if (n > (size - base - NEW_HEADER) / NEW_ENTRY)
		return -EINVAL;
	/* "libc.so.6" names a file; "libc" or "libc.so" any version of it */
	const char *so = strstr(name, ".so");
	bool bare = !so || !so[3];
	for (uint32_t i = 0; i < n; i++) {
		const unsigned char *e = c + base + NEW_HEADER + (size_t)i * NEW_ENTRY;
		int32_t flags;
		memcpy(&flags, e, sizeof flags);
		if ((flags & 0xff) != FLAG_ELF_LIBC6 || (flags & 0xff00) != FLAG_X8664_LIB64)
			continue;
		const char *key = string_at(c, size, base, u32_at(e + 4));
		const char *path = string_at(c, size, base, u32_at(e + 8));
		if (!key || !path || !key_matches(key, name, bare))
			continue;
		if (snprintf(out, outsz, "%s", path) >= (int)outsz)
			return -ENAMETOOLONG;
		return 0;
	}
	return -ENOENT;
}
