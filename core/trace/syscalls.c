/*
 * syscalls.c - this architecture's system call numbers and names, and the
 * names of the error numbers they return.
 *
 * The tables are generated when luaprof is built, from the system's
 * <asm/unistd.h> (which is asm/unistd_64.h on x86-64) and <errno.h>: see
 * the Makefile's rules for $(BUILD)/gen/syscalls.h and errnos.h.  Each is
 * in number order.  The audit table ($(BUILD)/gen/auditnames.h) names the
 * same calls as libaudit does, for perf's Python scripts' ports.  An error alias (EWOULDBLOCK, EDEADLOCK, ENOTSUP) gives
 * way to the name it stands for (EAGAIN, EDEADLK, EOPNOTSUPP).
 */
#include <string.h>

#include "luaprof/trace.h"

struct entry {
	const char *name;
	long nr;
};

static const struct entry table[] = {
#include "syscalls.h"
};

static const struct entry audit_table[] = {
#include "auditnames.h"
};

static const struct entry errnos[] = {
#include "errnos.h"
};

#define NR_ENTRIES (sizeof table / sizeof table[0])

/* The name of nr in t (n entries in number order), or NULL. */
static const char *find(const struct entry *t, size_t n, long nr)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t[mid].nr == nr)
			return t[mid].name;
		if (t[mid].nr < nr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const char *lp_syscall_name(long nr)
{
	return find(table, NR_ENTRIES, nr);
}

const char *lp_syscall_audit_name(long nr)
{
	return find(audit_table, sizeof audit_table / sizeof audit_table[0], nr);
}

const char *lp_errno_name(int nr)
{
	return find(errnos, sizeof errnos / sizeof errnos[0], nr);
}

long lp_syscall_nr(const char *name)
{
	for (size_t i = 0; i < NR_ENTRIES; i++)
		if (!strcmp(table[i].name, name))
			return table[i].nr;
	return -1;
}
