/*
 * lfeed.c - the objects the run hands every sample in C (lp.h's
 * lp_feeder): luaprof.report, luaprof.stacks and a luaprof.pprof made
 * with feed = "all".  The run calls lp_report_feed for each sample
 * before any on_sample (run.c), so a script whose objects take the
 * samples this way has no Lua call per sample.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "lp.h"

void lp_feeder_add(lua_State *L, struct lp_run *run, struct lp_feeder *f)
{
	struct lp_feeder **v = realloc(run->reports.v, (run->reports.n + 1) * sizeof *v);
	if (!v)
		luaL_error(L, "out of memory");
	run->reports.v = v;
	v[run->reports.n++] = f;
}

void lp_feeder_remove(struct lp_run *run, struct lp_feeder *f)
{
	for (size_t i = 0; i < run->reports.n; i++)
		if (run->reports.v[i] == f) {
			memmove(run->reports.v + i, run->reports.v + i + 1,
				(run->reports.n - i - 1) * sizeof *run->reports.v);
			run->reports.n--;
			return;
		}
}

int lp_report_feed(struct lp_run *run)
{
	for (size_t i = 0; i < run->reports.n; i++) {
		struct lp_feeder *f = run->reports.v[i];
		if (f->add(run, f)) {
			fprintf(stderr, "luaprof: out of memory\n");
			return -1;
		}
	}
	return 0;
}

void lp_reports_free(struct lp_run *run)
{
	free(run->reports.v);
	run->reports.v = NULL;
	run->reports.n = 0;
}
