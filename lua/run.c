/*
 * run.c - the driver loop: every record from the source updates the process
 * model; every sample goes to on_sample through the one Sample view.
 *
 * on_interval: boundaries lie every interval_ns from the time of the first
 * record that has one, on the samples' clock.  A boundary is passed when a
 * record at or after it arrives (then on_interval runs before that record
 * is handled), or, live, when the clock passes it with every earlier
 * record delivered (the live source's alarm); a replay has no clock but
 * the records', so it calls on_interval at the same points with the same
 * samples in between.  At the end, one more call (info.last) covers the
 * samples since the last boundary, if there are any.
 */
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>

#include "lp.h"

static uint64_t record_time(const struct lp_record *r)
{
	if (r->type == PERF_RECORD_SAMPLE)
		return r->u.sample.time;
	return r->has_sid ? r->sid.time : 0;
}

/* Calls on_interval for the interval ending at t. */
static int tick(struct lp_run *run, uint64_t t, bool last)
{
	lua_State *L = run->L;
	lua_createtable(L, 0, 5);
	lua_pushinteger(L, (lua_Integer)t);
	lua_setfield(L, -2, "time");
	lua_pushinteger(L, (lua_Integer)(t - run->tick_prev));
	lua_setfield(L, -2, "delta");
	lua_pushinteger(L, (lua_Integer)(t - run->tick_first));
	lua_setfield(L, -2, "elapsed");
	lua_pushinteger(L, (lua_Integer)run->tick_samples);
	lua_setfield(L, -2, "samples");
	lua_pushboolean(L, last);
	lua_setfield(L, -2, "last");
	run->tick_prev = t;
	run->tick_samples = 0;
	return lp_vm_call(run, run->ref_on_interval, 1);
}

/* Calls on_interval for every boundary up to t; the first timed record
 * sets the first boundary. */
static int ticks_until(struct lp_run *run, uint64_t t)
{
	if (!run->tick_next) {
		run->tick_first = run->tick_prev = t;
		run->tick_next = t + run->interval_ns;
		return 0;
	}
	while (t >= run->tick_next && !run->exit_requested) {
		if (tick(run, run->tick_next, false))
			return -1;
		run->tick_next += run->interval_ns;
	}
	return 0;
}

static int deliver(struct lp_run *run, const struct lp_record *rec, int event)
{
	run->samples++;
	run->tick_samples++;
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
	if (run->interval_ns && run->tick_samples && run->tick_next && !run->failed &&
	    tick(run, run->last_time, true))
		return;
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

/* Handles one record; 0 or -1. */
static int handle(struct lp_run *run, const struct lp_record *rec, int event)
{
	switch (rec->type) {
	case PERF_RECORD_SAMPLE:
		return deliver(run, rec, event);
	case PERF_RECORD_LOST:
		run->lost += rec->u.lost.lost;
		return 0;
	case PERF_RECORD_LOST_SAMPLES:
		if (rec->has_sid && !rec->sid.time)
			run->lost_summary += rec->u.lost_samples;
		else
			run->lost += rec->u.lost_samples;
		return 0;
	default:
		if (lp_procs_apply(run->procs, rec)) {
			fprintf(stderr, "luaprof: out of memory tracking processes\n");
			return -1;
		}
		return 0;
	}
}

/* Calls on_interval for the boundaries passed at time t (a record's, or
 * the alarm's); 0 or -1. */
static int advance(struct lp_run *run, uint64_t t, bool alarm)
{
	if (!run->interval_ns || !t)
		return 0;
	if (ticks_until(run, t))
		return -1;
	if (!alarm)
		run->last_time = t;
	return 0;
}

int lp_run_loop(struct lp_run *run, const struct lp_source *src)
{
	struct lp_record rec;
	int event, rc;
	run->src = src;
	for (;;) {
		if (run->interval_ns && run->set_alarm)
			run->set_alarm(run->alarm_ctx, run->tick_next);
		if ((rc = src->next(src->ctx, &rec, &event)) <= 0)
			break;
		bool alarm = rc == 2;
		if (advance(run, alarm ? run->tick_next : record_time(&rec), alarm))
			return -1;
		if (!alarm && handle(run, &rec, event))
			return -1;
		if (run->exit_requested) {
			src->stop(src->ctx);
			return 0;
		}
	}
	return rc;
}
