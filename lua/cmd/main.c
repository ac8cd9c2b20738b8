/*
 * main.c - luaprof's entry point: the command named first (list, stat)
 * gets the command line; anything else is luaprof run, record or top
 * (runcmd.c; cli.c makes top a run of the live script).
 */
#include <string.h>

#include "cmd.h"
#include "list.h"
#include "luaprof/luaprof.h"

/* Commands that are not a plain run: each takes luaprof's argv from its
 * name on.  A new command is one more line here. */
static const struct {
	const char *name;
	int (*main)(int argc, char **argv);     /* returns the exit status */
} commands[] = {
	{ "list", lp_list_main },
	{ "stat", lp_stat_main },
};

int main(int argc, char **argv)
{
	for (size_t i = 0; argc > 1 && i < sizeof commands / sizeof *commands; i++)
		if (!strcmp(argv[1], commands[i].name)) {
			lp_log_set_hook(lp_cmd_log, NULL);
			return commands[i].main(argc - 1, argv + 1);
		}
	return lp_run_main(argc, argv);
}
