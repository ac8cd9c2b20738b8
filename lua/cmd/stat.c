/*
 * stat.c - luaprof stat: counting, as perf stat does, by the shipped stat
 * script (luaprof run stat ...).
 */
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"

/* luaprof stat [options] [--] CMD: the shipped stat script, which counts
 * (luaprof.setup{counting = true}) and prints as perf stat does. */
int lp_stat_main(int argc, char **argv)
{
	char **v = calloc((size_t)argc + 3, sizeof *v);
	if (!v) {
		fprintf(stderr, "luaprof: out of memory\n");
		return LP_EXIT_FAILURE;
	}
	static char prog[] = "luaprof", run[] = "run", stat[] = "stat";
	v[0] = prog;
	v[1] = run;
	v[2] = stat;
	for (int i = 1; i < argc; i++)
		v[i + 2] = argv[i];
	int rc = lp_run_main(argc + 2, v);
	free(v);
	return rc;
}
