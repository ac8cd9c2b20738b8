/*
 * errnos.c - this system's error numbers' names, for reports of failed
 * system calls.
 *
 * The table is generated when luaprof is built, from <errno.h>: see the
 * Makefile's rule for $(BUILD)/gen/errnos.h.  It is in number order; an
 * alias (EWOULDBLOCK, EDEADLOCK, ENOTSUP) gives way to the name it stands
 * for (EAGAIN, EDEADLK, EOPNOTSUPP).
 */
#include <stddef.h>

#include "luaprof/trace.h"

struct errno_entry {
	const char *name;
	int nr;
};

static const struct errno_entry table[] = {
#include "errnos.h"
};

#define NR_ENTRIES (sizeof table / sizeof table[0])

const char *lp_errno_name(int nr)
{
	size_t lo = 0, hi = NR_ENTRIES;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (table[mid].nr == nr)
			return table[mid].name;
		if (table[mid].nr < nr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}
