/*
 * list.c - `luaprof list`: the events this machine offers, grouped as perf
 * list groups them, and a tracepoint's fields.
 *
 *   luaprof list                    every group
 *   luaprof list GROUP              one group: hw, sw, pmu, tracepoint, or
 *                                   scripts (the scripts luaprof finds)
 *   luaprof list PATTERN            events matching a glob ("sched:*"), or
 *                                   containing PATTERN when it has no glob
 *   luaprof list --fields TP        name, type, offset, size of each field
 *
 * Hardware events are listed only when the machine accepts them (each is
 * opened once, user-only, on luaprof itself).  A new kind of listing is one
 * more entry of `groups`.
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "list.h"
#include "lp.h"
#include "luaprof/err.h"
#include "luaprof/luaprof.h"
#include "luaprof/event.h"
#include "luaprof/trace.h"

#define PMU_DIR "/sys/bus/event_source/devices"

static const char list_usage[] =
"usage: luaprof list [hw | sw | pmu | tracepoint | scripts | PATTERN]\n"
"       luaprof list --fields TRACEPOINT\n"
"       luaprof list --attr EVENTS\n"
"\n"
"Lists the events this machine offers for -e, grouped as perf list groups\n"
"them; PATTERN is a glob such as 'sched:*' (without * ? [ it matches names\n"
"containing it).  luaprof list scripts lists the scripts luaprof finds.\n"
"--fields prints each field of a tracepoint (s.args); --attr the\n"
"perf_event_attr luaprof opens each event of an -e list with, as perf\n"
"record -vv prints its own.\n";

/* What a listing prints: lines matching pattern (NULL: all). */
struct listing {
	const char *pattern;
	bool glob;
	size_t printed;
};

static bool matches(const struct listing *ls, const char *name)
{
	if (!ls->pattern)
		return true;
	return ls->glob ? !fnmatch(ls->pattern, name, 0) : strstr(name, ls->pattern) != NULL;
}

static void line(struct listing *ls, const char *name, const char *what)
{
	printf("  %-50s [%s]\n", name, what);
	ls->printed++;
}

/* ---- the fixed table: hardware and software ----------------------------------- */

static bool hw_accepted(uint64_t config)
{
	struct perf_event_attr a = { .size = sizeof a, .type = PERF_TYPE_HARDWARE,
				     .config = config, .disabled = 1, .exclude_kernel = 1,
				     .exclude_hv = 1 };
	int fd = lp_event_sys_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* The events of one type, aliases joined as perf shows them: "cs OR ...". */
static void list_table(struct listing *ls, uint32_t want, const char *what)
{
	uint32_t type, t2;
	uint64_t config, c2;
	const char *name;
	for (size_t i = 0; (name = lp_event_table(i, &type, &config)); i++) {
		if (type != want || (i && lp_event_table(i - 1, &t2, &c2) && t2 == type && c2 == config))
			continue;       /* an alias, joined to its canonical name */
		char shown[128];
		bool match = matches(ls, name);
		snprintf(shown, sizeof shown, "%s", name);
		for (size_t k = i + 1; (name = lp_event_table(k, &t2, &c2)) && t2 == type &&
				       c2 == config; k++) {
			size_t n = strlen(shown);
			snprintf(shown + n, sizeof shown - n, " OR %s", name);
			match |= matches(ls, name);
		}
		if (match && (type != PERF_TYPE_HARDWARE || hw_accepted(config)))
			line(ls, shown, what);
	}
}

static int list_hardware(struct listing *ls)
{
	list_table(ls, PERF_TYPE_HARDWARE, "Hardware event");
	return 0;
}

static int list_software(struct listing *ls)
{
	list_table(ls, PERF_TYPE_SOFTWARE, "Software event");
	return 0;
}

/* ---- PMUs ------------------------------------------------------------------------ */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The sorted entries of dir (the caller frees them), or 0 when unreadable. */
static size_t dir_names(const char *dir, char ***out)
{
	DIR *d = opendir(dir);
	char **v = NULL;
	size_t n = 0;
	for (struct dirent *de; d && (de = readdir(d));) {
		char **nv = de->d_name[0] != '.' ? realloc(v, (n + 1) * sizeof *v) : NULL;
		if (nv && (nv[n] = strdup(de->d_name)))
			n++;
		if (nv)
			v = nv;
	}
	if (d)
		closedir(d);
	if (n)
		qsort(v, n, sizeof *v, cmp_str);
	*out = v;
	return n;
}

static void free_names(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* One PMU: its type, then its named events ("msr/tsc/"). */
static void list_pmu(struct listing *ls, const char *pmu)
{
	char path[512], name[512], what[64];
	snprintf(path, sizeof path, PMU_DIR "/%s/type", pmu);
	FILE *f = fopen(path, "re");
	int type = -1;
	if (f && fscanf(f, "%d", &type) != 1)
		type = -1;
	if (f)
		fclose(f);
	snprintf(what, sizeof what, "Kernel PMU, type %d", type);
	if (matches(ls, pmu))
		line(ls, pmu, what);
	char **evs;
	snprintf(path, sizeof path, PMU_DIR "/%s/events", pmu);
	size_t n = dir_names(path, &evs);
	for (size_t i = 0; i < n; i++) {
		snprintf(name, sizeof name, "%s/%s/", pmu, evs[i]);
		if (!strchr(evs[i], '.') && matches(ls, name))     /* .scale, .unit: no events */
			line(ls, name, "Kernel PMU event");
	}
	free_names(evs, n);
}

static int list_pmus(struct listing *ls)
{
	char **pmus;
	size_t n = dir_names(PMU_DIR, &pmus);
	for (size_t i = 0; i < n; i++)
		list_pmu(ls, pmus[i]);
	free_names(pmus, n);
	return 0;
}

/* ---- tracepoints ------------------------------------------------------------------ */

static int print_tracepoint(const char *system, const char *event, void *arg)
{
	char name[600];
	snprintf(name, sizeof name, "%s:%s", system, event);
	if (matches(arg, name))
		line(arg, name, "Tracepoint event");
	return 0;
}

static int list_tracepoints(struct listing *ls)
{
	int rc = lp_tracefs_each("*", "*", print_tracepoint, ls);
	if (rc == -ENODEV)
		fprintf(stderr, "luaprof: tracefs is not mounted, so no tracepoints are listed: "
				"mount it with 'mount -t tracefs nodev /sys/kernel/tracing'\n");
	else if (rc)
		fprintf(stderr, "luaprof: cannot list the tracepoints: %s%s\n", strerror(-rc),
			rc == -EACCES ? " (tracefs is root's: run as root)" : "");
	return 0;
}

/* ---- scripts (listscripts.c) -------------------------------------------------------------- */

static int list_scripts(struct listing *ls)
{
	(void)ls;
	return lp_list_scripts();
}

/* ---- groups and fields -------------------------------------------------------------- */

static const struct {
	const char *keyword;                    /* luaprof list KEYWORD */
	int (*list)(struct listing *ls);
	bool in_all;                            /* part of a plain luaprof list */
} groups[] = {
	{ "hw", list_hardware, true },
	{ "sw", list_software, true },
	{ "pmu", list_pmus, true },
	{ "tracepoint", list_tracepoints, true },
	{ "scripts", list_scripts, false },
};

#define NR_GROUPS (sizeof groups / sizeof groups[0])

static const char *kind_name(const struct lp_tp_field *f)
{
	static const char *const kinds[] = { "integer", "string", "array", "bytes" };
	return f->kind < sizeof kinds / sizeof *kinds ? kinds[f->kind] : "?";
}

static void print_fields(const struct lp_tp_format *f)
{
	printf("%s:%s (id %llu)\n", f->system, f->name, (unsigned long long)f->id);
	printf("  %-24s %-28s %6s %5s %-6s %s\n", "field", "type", "offset", "size", "signed",
	       "in Lua");
	for (size_t i = 0; i < f->nr_fields; i++) {
		const struct lp_tp_field *x = &f->fields[i];
		printf("  %-24s %-28s %6u %5u %-6s %s\n", x->name, x->type, x->offset, x->size,
		       x->is_signed ? "yes" : "no", x->common ? "(common: not in s.args)" :
		       kind_name(x));
	}
}

/* --fields: the tracepoints named (globs too, as -e takes them). */
static int list_fields(const char *name)
{
	struct lp_event_list l = { 0 };
	if (lp_event_list_add(&l, name)) {
		fprintf(stderr, "luaprof: %s\n", lp_last_error());
		lp_event_list_free(&l);         /* its events are as before, its array may not be */
		return LP_EXIT_FAILURE;
	}
	int status = 0;
	for (size_t i = 0; i < l.n && !status; i++) {
		struct lp_tp_format *f;
		const char *colon = strchr(l.v[i].name, ':');
		char sys[256];
		if (l.v[i].type != PERF_TYPE_TRACEPOINT) {
			fprintf(stderr, "luaprof: '%s' is not a tracepoint: only tracepoints have "
					"fields (luaprof list tracepoint)\n", LP_SHOW(l.v[i].name));
			status = LP_EXIT_FAILURE;
			break;
		}
		snprintf(sys, sizeof sys, "%.*s", (int)(colon - l.v[i].name), l.v[i].name);
		int rc = lp_tracefs_format(sys, colon + 1, &f);
		if (rc) {
			fprintf(stderr, "luaprof: cannot read the format of '%s': %s\n",
				LP_SHOW(l.v[i].name),
				strerror(-rc));
			status = LP_EXIT_FAILURE;
			break;
		}
		print_fields(f);
		lp_tp_format_free(f);
	}
	lp_event_list_free(&l);
	return status;
}

int lp_list_main(int argc, char **argv)
{
	const char *arg = argc > 1 ? argv[1] : NULL;
	if (argc > 3 || (argc == 3 && strcmp(argv[1], "--fields") && strcmp(argv[1], "--attr"))) {
		fprintf(stderr, "luaprof: list takes one pattern or group: %s", list_usage);
		return LP_EXIT_FAILURE;
	}
	if (arg && (!strcmp(arg, "-h") || !strcmp(arg, "--help")))
		return fputs(list_usage, stdout), 0;
	if (arg && !strcmp(arg, "--fields")) {
		if (argc != 3) {
			fprintf(stderr, "luaprof: --fields needs a tracepoint: luaprof list --fields "
					"sched:sched_switch\n");
			return LP_EXIT_FAILURE;
		}
		return list_fields(argv[2]);
	}
	if (arg && !strcmp(arg, "--attr")) {
		if (argc != 3) {
			fprintf(stderr, "luaprof: --attr needs events: luaprof list --attr "
					"'{cpu-clock,page-faults}'\n");
			return LP_EXIT_FAILURE;
		}
		return lp_list_attr(argv[2]);
	}
	for (size_t i = 0; arg && i < NR_GROUPS; i++)
		if (!strcmp(arg, groups[i].keyword)) {
			struct listing ls = { 0 };
			return groups[i].list(&ls) ? LP_EXIT_FAILURE : 0;
		}
	struct listing ls = { .pattern = arg, .glob = arg && strpbrk(arg, "*?[") };
	for (size_t i = 0; i < NR_GROUPS; i++)
		if (groups[i].in_all && groups[i].list(&ls))
			return LP_EXIT_FAILURE;
	if (arg && !ls.printed)
		fprintf(stderr, "luaprof: no event matches '%s'\n", LP_SHOW(arg));
	return 0;
}
