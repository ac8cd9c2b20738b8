/*
 * fuzz_evparse.c - the -e syntax (lp_event_list_add) on any string: the
 * comma splitter with its {...} and /.../ rules, modifiers, tracepoint
 * names and globs.  Each call either adds events whose names are read
 * through, or fails with a one-line message and leaves the list as it was.
 *
 * Tracepoints are looked up in a small tracefs of the target's own (see
 * fixture below), not the machine's: a glob such as "*:*" walks the
 * thousands of event directories of a real tracefs, which slows the target
 * several times over, and the inputs' results would depend on the
 * kernel.  Where this process may make a mount namespace (root), the
 * fixture is a tmpfs mounted over /sys/kernel/tracing in it, seen by
 * nothing else; elsewhere the machine's tracefs, if any, is used.
 */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "cstr.h"
#include "luaprof/err.h"
#include "luaprof/event.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

#define TRACEFS "/sys/kernel/tracing"

/* The fixture's tracepoints, "system:event", ids from 300 on: few, as
 * each glob an input holds costs a lookup per event it matches, in systems
 * and names varied enough for the globs' cases (prefixes shared across
 * systems, names with and without "sys_", an uprobe's system).  An event
 * directory without an id, and plain files beside the directories (as
 * tracefs has enable and filter files), come after. */
static const char *const events[] = {
	"sched:sched_switch", "sched:sched_wakeup", "sched:sched_process_exec",
	"raw_syscalls:sys_enter", "raw_syscalls:sys_exit",
	"syscalls:sys_enter_openat", "syscalls:sys_exit_openat",
	"irq:irq_handler_entry", "timer:hrtimer_start",
	"probe_probed:twice", "probe_probed:twice__return", "ftrace:function",
};

static int put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	int rc = fputs(text, f) < 0;
	return fclose(f) || rc ? -1 : 0;
}

/* Fills dir with events/SYSTEM/EVENT/id for each of events[]. */
static int fixture(const char *dir)
{
	char path[512], id[32];
	snprintf(path, sizeof path, "%s/events", dir);
	if (mkdir(path, 0755))
		return -1;
	snprintf(path, sizeof path, "%s/events/enable", dir);
	put(path, "0\n");
	snprintf(path, sizeof path, "%s/events/header_page", dir);
	put(path, "field: u64 timestamp;\n");
	for (size_t i = 0; i < sizeof events / sizeof *events; i++) {
		const char *colon = strchr(events[i], ':');
		int sl = (int)(colon - events[i]);
		snprintf(path, sizeof path, "%s/events/%.*s", dir, sl, events[i]);
		mkdir(path, 0755);      /* the system: made by its first event */
		snprintf(path, sizeof path, "%s/events/%.*s/enable", dir, sl, events[i]);
		put(path, "0\n");
		snprintf(path, sizeof path, "%s/events/%.*s/%s", dir, sl, events[i], colon + 1);
		if (mkdir(path, 0755))
			return -1;
		snprintf(path, sizeof path, "%s/events/%.*s/%s/id", dir, sl, events[i], colon + 1);
		snprintf(id, sizeof id, "%zu\n", 300 + i);
		if (put(path, id))
			return -1;
	}
	snprintf(path, sizeof path, "%s/events/sched/sched_no_id", dir);
	return mkdir(path, 0755);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("fuzz-tracefs", TRACEFS, "tmpfs", 0, "size=1m")) {
		fprintf(stderr, "fuzz_evparse: no tracefs of its own (not root?): using the machine's\n");
		return 0;
	}
	if (fixture(TRACEFS)) {
		fprintf(stderr, "fuzz_evparse: cannot write its tracefs fixture\n");
		abort();
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size, 4096);
	if (!s)
		return 0;
	struct lp_event_list l = { 0 };
	if (lp_event_list_add(&l, "cpu-clock") == 0) {
		size_t before = l.n;
		if (lp_event_list_add(&l, s) == 0) {
			for (size_t i = 0; i < l.n; i++)
				sink += strlen(l.v[i].name);
		} else if (l.n != before || strchr(lp_last_error(), '\n')) {
			abort();        /* a failure must leave the list and give one line */
		}
	}
	lp_event_list_free(&l);
	free(s);
	return 0;
}
