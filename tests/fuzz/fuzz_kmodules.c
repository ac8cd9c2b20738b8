/*
 * fuzz_kmodules.c - the /proc/modules parser (lp_kernel_modules_parse) on
 * any bytes: each record it makes is a kernel MMAP of a named module
 * ("[NAME]", no longer than a line allows) that neither wraps nor is
 * empty, and its name can be read whole.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "luaprof/record.h"
#include "luaprof/sym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int check(const struct lp_record *r, void *arg)
{
	const struct lp_mmap *m = &r->u.mmap;
	size_t n = strlen(m->filename);
	(void)arg;
	if (r->type != PERF_RECORD_MMAP || m->pid != UINT32_MAX || !m->len || !m->start ||
	    m->start + m->len < m->start || n < 3 || n > 257 || m->filename[0] != '[' ||
	    m->filename[n - 1] != ']')
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a copy of exactly size bytes: ASan sees a read past the end */
	char *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	lp_kernel_modules_parse(buf, size, check, NULL);
	free(buf);
	return 0;
}
