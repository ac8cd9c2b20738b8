/*
 * kbuildid.c - the running kernel's build-id, from the ELF notes the
 * kernel exposes in /sys/kernel/notes (what perf record writes for
 * [kernel.kallsyms]).
 *
 * The file is a plain sequence of notes: u32 namesz, u32 descsz, u32 type,
 * then the name and the descriptor, each padded to 4 bytes.  The build-id
 * is the descriptor of the note named "GNU" of type NT_GNU_BUILD_ID (3).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "luaprof/sym.h"

#define NOTES_MAX 65536
#define NT_GNU_BUILD_ID_TYPE 3

static size_t pad4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

/* Reads up to size bytes of path; the count, or -errno. */
static ssize_t read_all(const char *path, uint8_t *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t have = 0;
	if (fd < 0)
		return -errno;
	while (have < size) {
		ssize_t n = read(fd, buf + have, size - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int err = n < 0 ? -errno : 0;
			close(fd);
			return err ? err : (ssize_t)have;
		}
		have += (size_t)n;
	}
	close(fd);
	return (ssize_t)have;
}

/* The GNU build-id note in buf[0, len): copies up to max bytes; the count,
 * 0 when there is none. */
static size_t find_build_id(const uint8_t *buf, size_t len, uint8_t *id, size_t max)
{
	size_t off = 0;
	while (len - off >= 12) {
		uint32_t h[3];
		memcpy(h, buf + off, sizeof h);
		size_t name = off + 12, desc = name + pad4(h[0]);
		if (h[0] > len || h[1] > len || desc > len || pad4(h[1]) > len - desc)
			return 0;       /* truncated or bogus: stop */
		if (h[2] == NT_GNU_BUILD_ID_TYPE && h[0] == 4 && !memcmp(buf + name, "GNU", 4) &&
		    h[1] > 0) {
			size_t n = h[1] < max ? h[1] : max;
			memcpy(id, buf + desc, n);
			return n;
		}
		off = desc + pad4(h[1]);
	}
	return 0;
}

size_t lp_kernel_build_id(const char *path, uint8_t *id, size_t max)
{
	uint8_t *buf = malloc(NOTES_MAX);
	ssize_t n = buf ? read_all(path ? path : "/sys/kernel/notes", buf, NOTES_MAX) : -ENOMEM;
	size_t got = n > 0 ? find_build_id(buf, (size_t)n, id, max) : 0;
	free(buf);
	errno = n < 0 ? (int)-n : ENOENT;
	return got;
}
