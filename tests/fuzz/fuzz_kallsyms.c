/*
 * fuzz_kallsyms.c - the two readers of kallsyms-format files, which read
 * perf's build-id cache (a file anyone may have written) as well as
 * /proc/kallsyms: the whole-table loader (lp_kernel_load) and the
 * reference-symbol lookup (lp_kallsyms_lookup), on any bytes given as a
 * file (a memfd).  Every symbol found is looked up again and its name read,
 * so ASan catches a table that points outside what it owns.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "luaprof/sym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

static void load(const char *path, const uint64_t *addrs, size_t n)
{
	bool hidden;
	struct lp_kernel *k = lp_kernel_load(path, &hidden);

	for (size_t i = 0; k && i < n; i++) {
		const char *dso = NULL;
		const struct lp_sym *s = lp_kernel_find(k, addrs[i], &dso);
		if (s)
			sink += strlen(s->name) + strlen(dso) + (size_t)(s->end - s->start);
	}
	lp_kernel_free(k);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "_text", "_stext", "_etext", "" };
	uint64_t addrs[4];
	char path[64];
	int fd = memfd_create("kallsyms", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	for (size_t off = 0; off < size;) {
		ssize_t w = write(fd, data + off, size - off);
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	int found = lp_kallsyms_lookup(path, names, addrs, 4);
	if (found > 0)
		load(path, addrs, 4);
	else
		load(path, (const uint64_t[]){ 0xffffffff81000000ull }, 1);
	close(fd);
	return 0;
}
