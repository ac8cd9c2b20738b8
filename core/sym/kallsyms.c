/*
 * kallsyms.c - the addresses of a few named kernel symbols in a
 * kallsyms-format file ("ffffffff81000000 T _text" lines), reading only as
 * far as the last of them is found.
 *
 * What it is for: the kernel's reference symbol (_text, or _stext), which
 * tells where the kernel text was when a file was written (KASLR moves it
 * at every boot).  It comes within the first few hundred lines, so this
 * costs a small fraction of reading the whole file (5 MB and more; the
 * kernel spends tens of milliseconds formatting /proc/kallsyms).
 *
 * The file is outside data (perf's cache may hold anything): lines of any
 * length, any bytes.  A line longer than the buffer is skipped whole.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "luaprof/sym.h"

#define LINE_MAX_LEN 1024

/* Parses "ADDR TYPE NAME" (no module part); false for anything else. */
static bool parse(const char *line, uint64_t *addr, const char **name, size_t *len)
{
	uint64_t v = 0;
	const char *p = line;
	int digits = 0;

	for (;; p++, digits++) {
		char c = *p;
		unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0') :
			     c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10) :
			     c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 16;
		if (d == 16)
			break;
		if (digits == 16)
			return false;
		v = v << 4 | d;
	}
	if (!digits || p[0] != ' ' || !p[1] || p[1] == '\n' || p[2] != ' ')
		return false;
	*name = p + 3;
	*len = strcspn(*name, "\t\n");
	if ((*name)[*len] == '\t')
		return false;           /* a module's symbol */
	*addr = v;
	return *len > 0;
}

/* Records line's symbol if it is one of names not found yet; returns how
 * many it found (0 or 1). */
static size_t match(const char *line, const char *const *names, uint64_t *addrs, size_t n)
{
	uint64_t addr;
	const char *name;
	size_t len;

	if (!parse(line, &addr, &name, &len) || !addr)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!addrs[i] && strlen(names[i]) == len && !memcmp(names[i], name, len)) {
			addrs[i] = addr;
			return 1;
		}
	return 0;
}

int lp_kallsyms_lookup(const char *path, const char *const *names, uint64_t *addrs, size_t n)
{
	char line[LINE_MAX_LEN];
	size_t found = 0;
	bool partial = false;   /* the chunk read last did not end its line */
	FILE *f = fopen(path, "re");

	for (size_t i = 0; i < n; i++)
		addrs[i] = 0;
	if (!f)
		return -errno;
	while (found < n && fgets(line, sizeof line, f)) {
		bool whole = strchr(line, '\n') != NULL;
		if (!partial && whole)
			found += match(line, names, addrs, n);
		partial = !whole;
	}
	int err = ferror(f) ? -EIO : 0;
	fclose(f);
	return err ? err : (int)found;
}
