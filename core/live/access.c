/*
 * access.c - what kernel.perf_event_paranoid lets this user do, and the
 * one line that says which setting (and which value) a refused run needs.
 *
 * The kernel's rules (kernel/events/core.c), for a user without
 * CAP_PERFMON (or CAP_SYS_ADMIN):
 *   paranoid <= 0  every CPU (-a) may be sampled;
 *   paranoid <= 1  kernel samples are allowed;
 *   paranoid  = 2  user space of one's own processes only (the default);
 *   paranoid >= 3  nothing (Debian's and Ubuntu's hardening patch; an
 *                  upstream kernel treats 3 as 2, so luaprof refuses the
 *                  run itself, to behave the same on every kernel).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "live/evlist.h"
#include "luaprof/err.h"
#include "luaprof/event.h"

#define CAP_PERFMON_BIT 38
#define CAP_SYS_ADMIN_BIT 21

bool lp_perf_privileged(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	unsigned long long caps = 0;
	bool found = false;
	while (f && !found && fgets(line, sizeof line, f))
		found = sscanf(line, "CapEff: %llx", &caps) == 1;
	if (f)
		fclose(f);
	return caps & (1ull << CAP_PERFMON_BIT | 1ull << CAP_SYS_ADMIN_BIT);
}

int lp_access_check(void)
{
	int level = lp_event_paranoid();
	if (level < 3 || lp_perf_privileged())
		return 0;
	return lp_err(-EACCES, "kernel.perf_event_paranoid=%d lets no user without CAP_PERFMON "
		      "profile (Debian's and Ubuntu's hardening): run as root, or allow the user "
		      "space of your own processes with 'sysctl kernel.perf_event_paranoid=2'", level);
}

void lp_access_hint(const struct lp_event_spec *ev, pid_t tid, char *buf, size_t size)
{
	int level = lp_event_paranoid();
	if (lp_perf_privileged())
		snprintf(buf, size, ": not allowed, even with CAP_PERFMON (a security module?)");
	else if (tid == -1)
		snprintf(buf, size, ": sampling every CPU (-a) needs kernel.perf_event_paranoid=0 or "
			 "lower (it is %d): run as root, or 'sysctl kernel.perf_event_paranoid=0'",
			 level);
	else if (!ev->exclude_kernel && level > 1)
		snprintf(buf, size, ": kernel samples need kernel.perf_event_paranoid=1 or lower "
			 "(it is %d): sample user space only (:u), run as root, or 'sysctl "
			 "kernel.perf_event_paranoid=1'", level);
	else
		snprintf(buf, size, ": process %d is not yours (or kernel.perf_event_paranoid=%d "
			 "forbids it): run as root to profile other users' processes", (int)tid, level);
}
