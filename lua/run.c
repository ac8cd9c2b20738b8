/*
 * run.c - the driver loop: every record from the source updates the process
 * model; every sample goes to on_sample through the one Sample view.
 */
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>

#include "lp.h"

static int deliver(struct lp_run *run, const struct lp_record *rec, int event)
{
	run->samples++;
	if (run->ref_on_sample == LUA_NOREF)
		return 0;
	run->view.rec = rec;
	run->view.event = event;
	int rc = lp_vm_call_on_sample(run);
	lp_sample_invalidate(run->L, run);
	return rc;
}

uint64_t lp_run_lost(const struct lp_run *run)
{
	return run->lost > run->lost_summary ? run->lost : run->lost_summary;
}

void lp_run_end(struct lp_run *run, uint64_t duration, int status)
{
	if (run->ref_on_end == LUA_NOREF)
		return;
	lua_State *L = run->L;
	lua_createtable(L, 0, 4);
	lua_pushinteger(L, (lua_Integer)run->samples);
	lua_setfield(L, -2, "samples");
	lua_pushinteger(L, (lua_Integer)lp_run_lost(run));
	lua_setfield(L, -2, "lost");
	lua_pushinteger(L, (lua_Integer)duration);
	lua_setfield(L, -2, "duration");
	if (status >= 0) {
		lua_pushinteger(L, status);
		lua_setfield(L, -2, "status");
	}
	lp_vm_call(run, run->ref_on_end, 1);
}

int lp_run_loop(struct lp_run *run, const struct lp_source *src)
{
	struct lp_record rec;
	int event, rc;
	run->src = src;
	while ((rc = src->next(src->ctx, &rec, &event)) > 0) {
		switch (rec.type) {
		case PERF_RECORD_SAMPLE:
			if (deliver(run, &rec, event))
				return -1;
			break;
		case PERF_RECORD_LOST:
			run->lost += rec.u.lost.lost;
			break;
		case PERF_RECORD_LOST_SAMPLES:
			if (rec.has_sid && !rec.sid.time)
				run->lost_summary += rec.u.lost_samples;
			else
				run->lost += rec.u.lost_samples;
			break;
		default:
			if (lp_procs_apply(run->procs, &rec)) {
				fprintf(stderr, "luaprof: out of memory tracking processes\n");
				return -1;
			}
		}
		if (run->exit_requested) {
			src->stop(src->ctx);
			return 0;
		}
	}
	return rc;
}
