/*
 * kmodules.c - the kernel's loaded modules as perf record writes them: an
 * MMAP record per module (perf_event__synthesize_modules), so that a
 * kernel frame in a module lies in a map of the recording.  perf places
 * kernel addresses in the recording's kernel maps only: without them a
 * module's frames are "[unknown] ([unknown])" in perf script, and in
 * luaprof's replay, which names kernel frames as perf does.
 *
 * /proc/modules has a line per module: "NAME SIZE REFS DEPS STATE ADDR
 * [TAINTS]" ("ext4 995328 2 - Live 0xffffffffc0a2b000 (E)").  A line
 * that does not read so is skipped, and so is a module at address 0 (what
 * kptr_restrict shows a reader without the right) or of size 0.  The
 * record is perf's: pid -1, misc PERF_RECORD_MISC_KERNEL, the module's
 * [ADDR, ADDR + SIZE), offset 0, and the name in brackets ("[ext4]",
 * perf's short name of a module; perf writes the .ko's path when it finds
 * one under /lib/modules, a file luaprof never reads: kernel frames are
 * named from kallsyms).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "luaprof/record.h"
#include "sym/sym_int.h"

#define MAX_FILE ((size_t)16 << 20)     /* /proc/modules: a few KiB */
#define MAX_NAME 255

/* The next space-separated field of [*p, end): its start and length;
 * false when there is none. */
static bool field(const char **p, const char *end, const char **f, size_t *n)
{
	const char *s = *p;
	while (s < end && *s == ' ')
		s++;
	const char *e = s;
	while (e < end && *e != ' ')
		e++;
	*f = s;
	*n = (size_t)(e - s);
	*p = e;
	return *n > 0;
}

/* A number of [f, f + n) in base (16 after "0x"); false when it is not
 * one, or does not fit 64 bits. */
static bool number(const char *f, size_t n, int base, uint64_t *v)
{
	if (base == 16) {
		if (n < 3 || f[0] != '0' || (f[1] != 'x' && f[1] != 'X'))
			return false;
		f += 2, n -= 2;
	}
	uint64_t x = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned d;
		char c = f[i];
		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return false;
		if (x > (UINT64_MAX - d) / (unsigned)base)
			return false;
		x = x * (unsigned)base + d;
	}
	*v = x;
	return n > 0;
}

/* One line [p, end): fn's record for it, or 0 when it names no module
 * placed. */
static int parse_line(const char *p, const char *end,
		      int (*fn)(const struct lp_record *r, void *arg), void *arg)
{
	const char *f[6];
	size_t n[6];
	for (int i = 0; i < 6; i++)
		if (!field(&p, end, &f[i], &n[i]))
			return 0;
	uint64_t size, addr;
	if (n[0] > MAX_NAME || !number(f[1], n[1], 10, &size) || !number(f[5], n[5], 16, &addr) ||
	    !size || !addr || addr + size < addr)
		return 0;
	char name[MAX_NAME + 3];
	snprintf(name, sizeof name, "[%.*s]", (int)n[0], f[0]);
	struct lp_record r = { .type = PERF_RECORD_MMAP, .misc = PERF_RECORD_MISC_KERNEL };
	r.u.mmap = (struct lp_mmap){ .pid = UINT32_MAX, .start = addr, .len = size,
				     .filename = name };
	return fn(&r, arg);
}

int lp_kernel_modules_parse(const char *buf, size_t len,
			    int (*fn)(const struct lp_record *r, void *arg), void *arg)
{
	const char *p = buf, *end = buf + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		/* a NUL ends the name early: such a line is no module's */
		int rc = memchr(p, '\0', (size_t)(eol - p)) ? 0 : parse_line(p, eol, fn, arg);
		if (rc)
			return rc;
		p = nl ? nl + 1 : end;
	}
	return 0;
}

int lp_kernel_modules_scan(const char *path, int (*fn)(const struct lp_record *r, void *arg),
			   void *arg)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;               /* no modules (a kernel without them) */
	size_t len = 0, cap = 16384;
	char *buf = malloc(cap);
	int rc = buf ? 0 : -ENOMEM;
	while (!rc) {
		if (len == cap) {
			char *b = cap < MAX_FILE ? realloc(buf, cap * 2) : NULL;
			if (!b) {
				rc = cap < MAX_FILE ? -ENOMEM : 0;      /* too long: what fits */
				break;
			}
			buf = b;
			cap *= 2;
		}
		ssize_t n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (!rc)
		rc = lp_kernel_modules_parse(buf, len, fn, arg);
	free(buf);
	return rc;
}
