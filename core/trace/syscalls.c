/*
 * syscalls.c - this architecture's system call numbers and names.
 *
 * The table is generated when luaprof is built, from the system's
 * <asm/unistd.h> (which is asm/unistd_64.h on x86-64): see the Makefile's
 * rule for $(BUILD)/gen/syscalls.h.  It is in number order.
 */
#include <string.h>

#include "luaprof/trace.h"

struct syscall_entry {
	const char *name;
	long nr;
};

static const struct syscall_entry table[] = {
#include "syscalls.h"
};

#define NR_ENTRIES (sizeof table / sizeof table[0])

const char *lp_syscall_name(long nr)
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

long lp_syscall_nr(const char *name)
{
	for (size_t i = 0; i < NR_ENTRIES; i++)
		if (!strcmp(table[i].name, name))
			return table[i].nr;
	return -1;
}
