/*
 * listscripts.c - `luaprof list scripts`: every script found, in search
 * order, with the description its luaprof.options gives.
 */
#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "cli.h"
#include "list.h"
#include "lp.h"
#include "lscript.h"

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.lua names in dir, sorted (malloc'd array of malloc'd strings). */
static char **lua_files(const char *dir, size_t *n)
{
	DIR *d = opendir(dir);
	char **v = NULL;
	size_t cap = 0;
	*n = 0;
	for (struct dirent *e; d && (e = readdir(d));) {
		size_t len = strlen(e->d_name);
		if (len <= 4 || strcmp(e->d_name + len - 4, ".lua") || e->d_name[0] == '.')
			continue;
		if (*n == cap) {
			char **nv = realloc(v, (cap = cap ? 2 * cap : 16) * sizeof *v);
			if (!nv)
				break;
			v = nv;
		}
		v[(*n)++] = strndup(e->d_name, len - 4);
	}
	if (d)
		closedir(d);
	if (v)
		qsort(v, *n, sizeof *v, by_name);
	return v;
}

/* The script's description: its top level runs until luaprof.options. */
static void describe(const char *path, char *out, size_t size)
{
	struct lp_cli cli = { .command = "run", .own_option = lp_cli_long_option };
	struct lp_run run;
	lp_run_init(&run);
	run.cli = &cli;
	run.opt.mode = LP_MODE_DESCRIBE;
	int rc = lp_vm_open(&run, path, NULL, 0);
	if (run.opt.description)
		snprintf(out, size, "%s", run.opt.description);
	else
		snprintf(out, size, rc < 0 ? "(does not load: see the error above)" :
			 "(no description: the script does not call luaprof.options)");
	free(run.opt.description);
	lp_vm_close(&run);
}

static bool seen_name(char **seen, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(seen[i], name))
			return true;
	return false;
}

int lp_list_scripts(void)
{
	struct lp_script_dirs *d = malloc(sizeof *d);
	char **seen = NULL, desc[512], path[PATH_MAX];
	size_t nseen = 0, headers = 0;
	if (!d)
		return LP_EXIT_FAILURE;
	lp_script_dirs(d);
	for (size_t i = 0; i < d->n; i++) {
		size_t n;
		char **names = lua_files(d->path[i], &n);
		bool header = false;
		for (size_t k = 0; k < n; k++) {
			snprintf(path, sizeof path, "%s/%s.lua", d->path[i], names[k]);
			fflush(stdout);         /* a line on stderr comes in its place */
			bool skip = seen_name(seen, nseen, names[k]) ||
				    (!d->shipped[i] && !lp_script_file_trusted(path));
			char **ns = skip ? NULL : realloc(seen, (nseen + 1) * sizeof *seen);
			if (!ns) {
				free(names[k]);
				continue;
			}
			seen = ns;
			seen[nseen++] = names[k];
			if (!header)
				printf("%s%s:\n", headers++ ? "\n" : "", d->path[i]);
			header = true;
			fflush(stdout);
			describe(path, desc, sizeof desc);
			printf("  %-16s %s\n", names[k], desc);
		}
		free(names);
	}
	for (size_t i = 0; i < nseen; i++)
		free(seen[i]);
	free(seen);
	free(d);
	return 0;
}
