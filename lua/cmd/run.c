/*
 * run.c - the driver loop: every record from the source updates the process
 * model; every sample goes through the one Sample view to its event's
 * handler (on_event[NAME], else on_sample), and COMM, FORK and EXIT records
 * to on_comm, on_fork and on_exit, all in the source's time order.
 *
 * An event's handler and tracepoint format are looked up once, at its first
 * sample (events can appear part-way through a pipe-mode replay), and kept
 * in run->loop->evinfo and the handler table at LP_SLOT_HANDLERS.
 *
 * on_interval: boundaries lie every interval_ns from the time of the first
 * record that has one, on the samples' clock.  A boundary is passed when a
 * record at or after it arrives (then on_interval runs before that record
 * is handled), or, live, when the clock passes it with every earlier
 * record delivered (the live source's alarm); a replay has no clock but
 * the records', so it calls on_interval at the same points with the same
 * samples in between.  At the end, one more call (info.last) covers the
 * samples since the last boundary, if there are any.
 *
 * The tables handed to on_comm, on_fork, on_exit, on_interval, on_end (and
 * on_start, from live.c and replay.c) know their field names: reading
 * another is an error listing them (lfields.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "lfields.h"
#include "lp.h"
#include "lstack.h"
#include "run.h"
#include "luaprof/agg.h"
#include "luaprof/capture.h"
#include "luaprof/event.h"
#include "luaprof/luaprof.h"

/* The name without a trailing modifier list (":u", ":ppp"), which a
 * fallback may have added to what the script names; NULL when it has none.
 * "sched:sched_switch" keeps its colon: "sched_switch" is no modifier. */
static const char *strip_modifiers(const char *name, char *buf, size_t size)
{
	const char *colon = strrchr(name, ':');
	if (!colon || colon == name || !colon[1] || strspn(colon + 1, "ukpPhHGI") != strlen(colon + 1) ||
	    (size_t)(colon - name) >= size)
		return NULL;
	memcpy(buf, name, (size_t)(colon - name));
	buf[colon - name] = '\0';
	return buf;
}

/* Pushes on_event[name] when it is a function, else nothing; returns
 * whether it pushed. */
static bool push_on_event(lua_State *L, const char *name)
{
	char buf[256];
	const char *bare = name ? strip_modifiers(name, buf, sizeof buf) : NULL;
	bool found = false;
	if (name && lua_getglobal(L, "on_event") == LUA_TTABLE) {
		found = lua_getfield(L, -1, name) == LUA_TFUNCTION;
		if (!found && bare) {
			lua_pop(L, 1);
			found = lua_getfield(L, -1, bare) == LUA_TFUNCTION;
		}
		lua_remove(L, -2);
		if (found)
			return true;
	}
	lua_pop(L, 1);
	return false;
}

/* Settles event's handler and format; NULL when out of memory. */
static const struct lp_evinfo *event_info(struct lp_run *run, int event)
{
	size_t i = (size_t)(event + 1);
	if (i < run->loop->nr_evinfo && run->loop->evinfo[i].ready)
		return &run->loop->evinfo[i];
	if (i >= run->loop->nr_evinfo) {
		size_t n = i + 16;
		struct lp_evinfo *v = realloc(run->loop->evinfo, n * sizeof *v);
		if (!v)
			return NULL;
		memset(v + run->loop->nr_evinfo, 0, (n - run->loop->nr_evinfo) * sizeof *v);
		run->loop->evinfo = v;
		run->loop->nr_evinfo = n;
	}
	lua_State *L = run->vm.L;
	struct lp_evinfo *ei = &run->loop->evinfo[i];
	const char *name = event >= 0 ? run->src->event_name(run->src->ctx, event) : NULL;
	ei->hook = "on_event";
	if (!push_on_event(L, name)) {
		lua_rawgeti(L, LUA_REGISTRYINDEX, run->vm.ref[LP_HOOK_SAMPLE]);
		ei->hook = "on_sample";
		ei->on_sample = true;
	}
	ei->handled = lua_isfunction(L, -1);
	if (!ei->handled) {
		lua_pop(L, 1);
		lua_pushboolean(L, 0);
	}
	lua_rawseti(L, LP_SLOT_HANDLERS, (lua_Integer)i + 1);
	ei->fmt = event >= 0 && run->src->event_format ?
		  run->src->event_format(run->src->ctx, event) : NULL;
	ei->sample_type = event >= 0 && run->src->sample_type ?
			  run->src->sample_type(run->src->ctx, event) : ~(uint64_t)0;
	if (ei->fmt && ei->handled && !(ei->tp = lp_trace_view_new(L, ei->fmt)))
		return NULL;
	if (ei->handled && run->aggs.n) {
		char buf[256];
		ei->agg = lp_agg_for_event(run, name, name ? strip_modifiers(name, buf, sizeof buf) : NULL,
					   ei->fmt, ei->sample_type);
		ei->agg_comm = ei->agg && lp_agg_wants(ei->agg, LP_AGG_COMM);
		ei->agg_sym = ei->agg && lp_agg_wants(ei->agg, LP_AGG_SYM);
	}
	ei->ready = true;
	return ei;
}

static uint64_t record_time(const struct lp_record *r)
{
	if (r->type == PERF_RECORD_SAMPLE)
		return r->u.sample.time;
	return r->has_sid ? r->sid.time : 0;
}

/* Adds c (scaled) to the entry of name in the table at the top: events of
 * one name (a USDT probe's sites) count together. */
static void add_count(lua_State *L, const char *name, const struct lp_count *c)
{
	static const char *const keys[] = { "value", "raw", "enabled", "running" };
	uint64_t v[4] = { lp_count_scaled(c), c->value, c->enabled, c->running };
	if (lua_getfield(L, -1, name) != LUA_TTABLE) {
		lua_pop(L, 1);
		lua_createtable(L, 0, 5);
		lua_pushvalue(L, -1);
		lua_setfield(L, -3, name);
	}
	for (int i = 0; i < 4; i++) {
		lua_getfield(L, -1, keys[i]);
		lua_Integer was = lua_tointeger(L, -1);
		lua_pop(L, 1);
		lua_pushinteger(L, was + (lua_Integer)v[i]);
		lua_setfield(L, -2, keys[i]);
	}
	lua_pushboolean(L, c->supported);
	lua_setfield(L, -2, "supported");
	lua_pop(L, 1);
}

/* Reads the counts now (once per call of on_interval or on_end). */
static bool read_counts(struct lp_run *run)
{
	return run->loop->live.read_counts && !run->loop->live.read_counts(run->loop->live.counts_ctx, run->loop->live.counts_now);
}

/* Sets info.values: the counter values since the previous call (delta) or the
 * totals, as read by read_counts; the previous become these. */
static void push_counts(struct lp_run *run, bool delta)
{
	lua_State *L = run->vm.L;
	lua_createtable(L, 0, (int)run->live.nr_specs);
	for (size_t i = 0; i < run->live.nr_specs; i++) {
		struct lp_count c = run->loop->live.counts_now[i];
		if (delta) {
			c.value -= run->loop->live.counts_prev[i].value;
			c.enabled -= run->loop->live.counts_prev[i].enabled;
			c.running -= run->loop->live.counts_prev[i].running;
		}
		add_count(L, run->live.specs[i].name, &c);
	}
	lua_setfield(L, -2, "values");
	memcpy(run->loop->live.counts_prev, run->loop->live.counts_now, run->live.nr_specs * sizeof *run->loop->live.counts_now);
}

static const char *const interval_names[] = {
	"time", "delta", "elapsed", "samples", "last", "values", "lost",
};
static const struct lp_fieldset interval_fields =
	LP_FIELDSET("info", "on_interval's info", interval_names);

static const char *const end_names[] = {
	"samples", "lost", "duration", "status", "user_time", "sys_time", "values", "backlog",
	"strings", "error",
};
static const struct lp_fieldset end_fields = LP_FIELDSET("info", "on_end's info", end_names);

static const char *const comm_names[] = { "pid", "tid", "time", "comm", "exec" };
static const struct lp_fieldset comm_fields =
	LP_FIELDSET("t", "a comm record (on_comm)", comm_names);

static const char *const task_names[] = { "pid", "tid", "ppid", "ptid", "time" };
static const struct lp_fieldset fork_fields =
	LP_FIELDSET("t", "a fork record (on_fork)", task_names);
static const struct lp_fieldset exit_fields =
	LP_FIELDSET("t", "an exit record (on_exit)", task_names);

/* One set live and replaying: live alone has command, pid, pids and
 * all_cpus, replaying alone file and build_ids; both have the rest (live
 * from the machine, replaying from the recording's header). */
static const char *const start_names[] = {
	"events", "command", "pid", "pids", "all_cpus", "file", "hostname",
	"os_release", "perf_version", "arch", "nr_cpus", "cmdline", "build_ids", "freq",
	"period",
};
const struct lp_fieldset lp_run_start_fields =
	LP_FIELDSET("info", "on_start's info", start_names);

/* Calls on_interval for the interval ending at t; counted: counts_now
 * were just read, and info.values is what they grew by since the previous
 * call. */
static int tick(struct lp_run *run, uint64_t t, bool last, bool counted)
{
	lua_State *L = run->vm.L;
	lua_createtable(L, 0, 7);
	if (counted)
		push_counts(run, true);
	lua_pushinteger(L, (lua_Integer)t);
	lua_setfield(L, -2, "time");
	lua_pushinteger(L, (lua_Integer)(t - run->loop->interval.prev));
	lua_setfield(L, -2, "delta");
	lua_pushinteger(L, (lua_Integer)(t - run->loop->interval.first));
	lua_setfield(L, -2, "elapsed");
	lua_pushinteger(L, (lua_Integer)run->loop->interval.samples);
	lua_setfield(L, -2, "samples");
	lua_pushboolean(L, last);
	lua_setfield(L, -2, "last");
	lua_pushinteger(L, (lua_Integer)run->loop->stats.lost);
	lua_setfield(L, -2, "lost");
	run->loop->interval.prev = t;
	run->loop->interval.samples = 0;
	lp_fields_set_strict(L, &interval_fields);
	if (lp_term_deliver(run))       /* the keys typed first (a replay's only chance) */
		return lua_pop(L, 1), -1;
	return lp_vm_call(run, LP_HOOK_INTERVAL, 1);
}

/* Calls on_interval for every boundary up to t; the first timed record
 * sets the first boundary. */
static int ticks_until(struct lp_run *run, uint64_t t)
{
	if (!run->loop->interval.next) {
		run->loop->interval.first = run->loop->interval.prev = t;
		run->loop->interval.next = t + run->loop->interval.ns;
		return 0;
	}
	while (t >= run->loop->interval.next && !run->exit_requested) {
		if (tick(run, run->loop->interval.next, false, read_counts(run)))
			return -1;
		run->loop->interval.next += run->loop->interval.ns;
	}
	return 0;
}

/* A sample of an event a one-liner aggregates in C (lagg.c), with the
 * names it wants looked up as s.comm and s.sym are. */
static int aggregate(struct lp_run *run, const struct lp_evinfo *ei, const struct lp_record *rec,
		     int event)
{
	const struct lp_sample *s = &rec->u.sample;
	struct lp_agg_names names = { NULL, NULL };
	if (ei->agg_comm) {
		const struct lp_thread *t = lp_procs_thread(run->procs, s->pid, s->tid);
		names.comm = t ? t->comm : NULL;
	}
	if (ei->agg_sym) {
		run->view.rec = rec;
		run->view.event = event;
		run->view.sample_type = ei->sample_type;
		const struct lp_frame *leaf = lp_stack_leaf(run);
		/* nameless: perf report's name, not left out */
		names.sym = leaf->sym ? leaf->sym : lp_stack_unnamed(run, leaf);
		lp_sample_invalidate(run->vm.L, run);
	}
	if (lp_agg_add(ei->agg, s, &names) < 0) {
		fprintf(stderr, "luaprof: out of memory\n");
		return -1;
	}
	return 0;
}

static int deliver(struct lp_run *run, const struct lp_record *rec, int event)
{
	run->loop->stats.samples++;
	run->loop->interval.samples++;
	if (!run->vm.L)
		return 0;               /* luaprof record: no script */
	const struct lp_evinfo *ei = event_info(run, event);
	if (!ei) {
		fprintf(stderr, "luaprof: out of memory\n");
		return -1;
	}
	if (ei->agg)
		return aggregate(run, ei, rec, event);
	run->view.rec = rec;
	run->view.event = event;
	run->view.sample_type = ei->sample_type;
	if (run->reports.n) {
		int rc = lp_report_feed(run);
		if (rc || !ei->handled) {
			lp_sample_invalidate(run->vm.L, run);
			return rc;
		}
	}
	if (!ei->handled) {
		run->view.rec = NULL;
		return 0;
	}
	run->view.spec = event >= 0 && (size_t)event < run->live.nr_specs ? &run->live.specs[event] : NULL;
	lp_trace_enter(run, ei->tp);
	int rc = lp_vm_call_handler(run, event + 2, ei->hook, ei->on_sample);
	lp_sample_invalidate(run->vm.L, run);
	return rc;
}

static void set_int(lua_State *L, const char *key, lua_Integer v)
{
	lua_pushinteger(L, v);
	lua_setfield(L, -2, key);
}

int lp_run_task_hook(struct lp_run *run, const struct lp_record *rec)
{
	enum lp_hook h = rec->type == PERF_RECORD_COMM ? LP_HOOK_COMM :
			 rec->type == PERF_RECORD_FORK ? LP_HOOK_FORK :
			 rec->type == PERF_RECORD_EXIT ? LP_HOOK_EXIT : LP_HOOK_N;
	if (h == LP_HOOK_N || run->vm.ref[h] == LUA_NOREF)
		return 0;
	lua_State *L = run->vm.L;
	lua_createtable(L, 0, 5);
	if (rec->type == PERF_RECORD_COMM) {
		set_int(L, "pid", rec->u.comm.pid);
		set_int(L, "tid", rec->u.comm.tid);
		set_int(L, "time", rec->has_sid ? (lua_Integer)rec->sid.time : 0);
		lua_pushstring(L, rec->u.comm.comm);
		lua_setfield(L, -2, "comm");
		lua_pushboolean(L, rec->u.comm.exec);
		lua_setfield(L, -2, "exec");
	} else {
		set_int(L, "pid", rec->u.task.pid);
		set_int(L, "tid", rec->u.task.tid);
		set_int(L, "ppid", rec->u.task.ppid);
		set_int(L, "ptid", rec->u.task.ptid);
		set_int(L, "time", (lua_Integer)rec->u.task.time);
	}
	lp_fields_set_strict(L, h == LP_HOOK_COMM ? &comm_fields :
			     h == LP_HOOK_FORK ? &fork_fields : &exit_fields);
	return lp_vm_call(run, h, 1);
}

/* Whether on_event (on the top) has a handler for the event called name
 * (or its name without modifiers). */
static bool handled_by(lua_State *L, const char *name)
{
	char buf[256];
	const char *bare = strip_modifiers(name, buf, sizeof buf);
	bool found = lua_getfield(L, -1, name) == LUA_TFUNCTION;
	lua_pop(L, 1);
	if (!found && bare) {
		found = lua_getfield(L, -1, bare) == LUA_TFUNCTION;
		lua_pop(L, 1);
	}
	return found;
}

int lp_run_check_handlers(struct lp_run *run, const char *const *names, size_t nr)
{
	lua_State *L = run->vm.L;
	int rc = 0;
	if (!L)
		return 0;
	if (lua_getglobal(L, "on_event") != LUA_TTABLE) {
		lua_pop(L, 1);
		return 0;
	}
	/* the events whose samples go to no hook: a key close to one of them
	 * was meant for it */
	const char **orphans = calloc(nr ? nr : 1, sizeof *orphans);
	size_t no = 0;
	for (size_t i = 0; orphans && i < nr && run->vm.ref[LP_HOOK_SAMPLE] == LUA_NOREF; i++)
		if (!handled_by(L, names[i]))
			orphans[no++] = names[i];
	for (lua_pushnil(L); lua_next(L, -2); lua_pop(L, 1)) {
		const char *key = lua_tostring(L, -2);
		bool found = false;
		for (size_t i = 0; key && i < nr && !found; i++) {
			char buf[256];
			const char *bare = strip_modifiers(names[i], buf, sizeof buf);
			found = !strcmp(key, names[i]) || (bare && !strcmp(key, bare));
		}
		if (!key || found)
			continue;
		const char *orphan = orphans ? lp_closest(key, orphans, no) : NULL;
		const char *meant = orphan ? orphan : lp_closest(key, names, nr);
		char hint[300] = "";
		if (meant)
			snprintf(hint, sizeof hint, " (did you mean '%s'?)", LP_SHOW(meant));
		if (orphan) {
			fprintf(stderr, "luaprof: on_event[\"%s\"] names no event of this run%s, and no "
				"hook takes the samples of %s: name the event as the run does\n",
				LP_SHOW(key), hint, LP_SHOW(orphan));
			rc = -1;
			lua_pop(L, 2);
			break;
		}
		fprintf(stderr, "luaprof: on_event[\"%s\"] names no event of this run%s, so it "
			"is never called (add it with -e or luaprof.setup{events=...})\n",
			LP_SHOW(key), hint);
	}
	free(orphans);
	lua_pop(L, 1);
	return rc;
}

void lp_loop_init(struct lp_run *run, struct lp_loop *loop)
{
	lp_run_init(run);
	*loop = (struct lp_loop){ .watched = -1, .live.user_ns = -1, .live.sys_ns = -1 };
	run->loop = loop;
}

void lp_loop_free(struct lp_loop *loop)
{
	for (size_t i = 0; i < loop->nr_evinfo; i++)
		lp_trace_view_free(loop->evinfo[i].tp);
	free(loop->evinfo);
	loop->evinfo = NULL;
	loop->nr_evinfo = 0;
}

uint64_t lp_run_lost(const struct lp_run *run)
{
	return run->loop->stats.lost > run->loop->stats.lost_summary ? run->loop->stats.lost : run->loop->stats.lost_summary;
}

void lp_run_set_origin(struct lp_run *run, uint64_t t)
{
	run->loop->interval.count_only = true;
	if (run->loop->interval.ns && !run->loop->interval.next) {
		run->loop->interval.first = run->loop->interval.prev = t;
		run->loop->interval.next = t + run->loop->interval.ns;
	}
}

/* The end's info: CPU times, counts and the backlog, when known. */
static void end_extras(struct lp_run *run, bool counted)
{
	lua_State *L = run->vm.L;
	if (run->loop->live.user_ns >= 0 && run->loop->live.sys_ns >= 0) {
		lua_pushinteger(L, run->loop->live.user_ns);
		lua_setfield(L, -2, "user_time");
		lua_pushinteger(L, run->loop->live.sys_ns);
		lua_setfield(L, -2, "sys_time");
	}
	if (counted)
		push_counts(run, false);
	if (run->loop->live.has_backlog) {    /* as the stderr line says it */
		lua_createtable(L, 0, 2);
		lua_pushinteger(L, (lua_Integer)run->loop->live.max_backlog);
		lua_setfield(L, -2, "samples");
		lua_pushnumber(L, (lua_Number)run->loop->live.max_lag_ns / 1e9);
		lua_setfield(L, -2, "seconds");
		lua_setfield(L, -2, "backlog");
	}
}

void lp_run_end(struct lp_run *run, uint64_t duration, int status)
{
	if (run->os_exit)               /* no further hook */
		return;
	bool counted = read_counts(run);
	/* the last interval: samples after the last boundary, or for a
	 * counting run the time since it (its counts) */
	bool rest = run->loop->interval.count_only ? run->loop->interval.last_time > run->loop->interval.prev : run->loop->interval.samples;
	if (run->loop->interval.ns && rest && run->loop->interval.next && !run->failed &&
	    tick(run, run->loop->interval.last_time, true, counted) && !run->error)
		return;
	if (run->vm.L)
		lp_trace_leave(run);
	if (run->vm.ref[LP_HOOK_END] == LUA_NOREF) {
		lp_strings_report(run);
		return;
	}
	lua_State *L = run->vm.L;
	lua_createtable(L, 0, 8);
	lua_pushinteger(L, (lua_Integer)run->loop->stats.samples);
	lua_setfield(L, -2, "samples");
	lua_pushinteger(L, (lua_Integer)lp_run_lost(run));
	lua_setfield(L, -2, "lost");
	lua_pushinteger(L, (lua_Integer)duration);
	lua_setfield(L, -2, "duration");
	if (status >= 0) {
		lua_pushinteger(L, status);
		lua_setfield(L, -2, "status");
	}
	end_extras(run, counted);
	lp_strings_push_info(L, run);
	lua_setfield(L, -2, "strings");
	if (run->error) {               /* what stopped the run: see lp_run_loop */
		lua_pushstring(L, run->error);
		lua_setfield(L, -2, "error");
		/* room to report what was gathered when it was the memory that
		 * ran out (the data is still held) */
		if (run->vm.guard.limit && run->vm.guard.limit_hit)
			run->vm.guard.limit += run->vm.guard.limit / 8;
	}
	lp_fields_set_strict(L, &end_fields);
	lp_vm_call(run, LP_HOOK_END, 1);
	lp_strings_report(run);         /* after what on_end printed */
}

/* Handles one record; 0 or -1. */
static int handle(struct lp_run *run, const struct lp_record *rec, int event)
{
	switch (rec->type) {
	case PERF_RECORD_SAMPLE:
		return deliver(run, rec, event);
	case PERF_RECORD_LOST:
		run->loop->stats.lost += rec->u.lost.lost;
		return 0;
	case PERF_RECORD_LOST_SAMPLES:
		if (rec->has_sid && !rec->sid.time)
			run->loop->stats.lost_summary += rec->u.lost_samples;
		else
			run->loop->stats.lost += rec->u.lost_samples;
		return 0;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		return rec->has_sid ? lp_switch_call(run, rec, event) : 0;
	case LP_RECORD_CAPTURE:         /* the strings of the sample after it */
		if (run->vm.L && lp_strings_record(run, rec)) {
			fprintf(stderr, "luaprof: out of memory\n");
			return -1;
		}
		return 0;
	default:
		if (lp_procs_apply(run->procs, rec) || lp_targets_fork(run, rec) ||
		    (run->vm.L && lp_idents_record(run, rec))) {
			fprintf(stderr, "luaprof: out of memory tracking processes\n");
			return -1;
		}
		return lp_run_task_hook(run, rec);
	}
}

/* Calls on_interval for the boundaries passed at time t (a record's, or
 * the alarm's); 0 or -1. */
static int advance(struct lp_run *run, uint64_t t, bool alarm)
{
	if (!run->loop->interval.ns || !t)
		return 0;
	if (ticks_until(run, t))
		return -1;
	if (!alarm)
		run->loop->interval.last_time = t;
	return 0;
}

/* Has the source watch the terminal's keys when a script takes them
 * (luaprof.term.start with on_key), and stop when it gives it back. */
static void watch_keys(struct lp_run *run, const struct lp_source *src)
{
	int fd = run->vm.L ? lp_term_input_fd(run) : -1;
	if (fd != run->loop->watched && src->watch) {
		src->watch(src->ctx, fd);
		run->loop->watched = fd;
	}
}

/* Records between two looks at the keys while records keep coming (a
 * script behind the samples never waits, so the source never says 3). */
#define KEYS_EVERY 256

static int loop(struct lp_run *run, const struct lp_source *src)
{
	struct lp_record own;
	const struct lp_record *rec = &own;
	int event, rc;
	unsigned n = 0;
	for (;;) {
		if (run->loop->interval.ns && run->loop->interval.set_alarm)
			run->loop->interval.set_alarm(run->loop->interval.alarm_ctx, run->loop->interval.next);
		watch_keys(run, src);
		rc = src->next_ref ? src->next_ref(src->ctx, &rec, &event) : src->next(src->ctx, &own, &event);
		if (rc <= 0)
			break;
		if (rc == 3) {          /* keys typed: on_key, then on */
			if (lp_term_deliver(run))
				return -1;
			if (run->exit_requested) {
				src->stop(src->ctx);
				return 0;
			}
			continue;
		}
		bool alarm = rc == 2;
		if (advance(run, alarm ? run->loop->interval.next : record_time(rec), alarm))
			return -1;
		if (!alarm && handle(run, rec, event))
			return -1;
		if (run->loop->watched >= 0 && ++n % KEYS_EVERY == 0 && lp_term_deliver(run))
			return -1;
		if (run->exit_requested) {
			src->stop(src->ctx);
			return 0;
		}
	}
	return rc;
}

/* The loop as a Lua C function, so that it runs under one lua_pcall and a
 * sample's handler is a plain lua_call: no setjmp and bookkeeping of a
 * pcall for every sample (docs/performance.md, "Measured choices in the
 * code").  Its arguments are
 * copies of the base stack's fixed slots, at the same indices, so the
 * fixed slots mean the same inside it (every hook's pcall finds the
 * message handler at LP_SLOT_MSGH), then the loop's own; it returns the
 * two slots ltrace.c changes as it goes, for the base stack. */
struct protected_loop {
	struct lp_run *run;
	const struct lp_source *src;
	int rc;
};

static int l_loop(lua_State *L)
{
	struct protected_loop *p = lua_touserdata(L, LP_SLOT_FKEYS + 1);
	lua_settop(L, LP_SLOT_FKEYS);
	luaL_checkstack(L, 2 * LUA_MINSTACK, "the loop");      /* the base stack's room */
	p->rc = loop(p->run, p->src);
	lua_pushvalue(L, LP_SLOT_FIELDS);
	lua_pushvalue(L, LP_SLOT_FKEYS);
	return 2;
}

/* loop() under one pcall.  A handler's error (os.exit's included) and any
 * error of the loop's own Lua calls unwind to it. */
static int protected_loop(struct lp_run *run, const struct lp_source *src)
{
	lua_State *L = run->vm.L;
	struct protected_loop p = { run, src, 0 };
	lua_pushcfunction(L, l_loop);
	for (int i = 1; i <= LP_SLOT_FKEYS; i++)
		lua_pushvalue(L, i);
	lua_pushlightuserdata(L, &p);
	int status = lua_pcall(L, LP_SLOT_FKEYS + 1, 2, LP_SLOT_MSGH);
	if (status == LUA_OK) {
		lua_replace(L, LP_SLOT_FKEYS);
		lua_replace(L, LP_SLOT_FIELDS);
		return p.rc;
	}
	if (lp_vm_unwound(run, status))
		return -1;
	if (run->exit_requested)        /* os.exit */
		src->stop(src->ctx);
	return 0;
}

int lp_run_loop(struct lp_run *run, const struct lp_source *src)
{
	run->src = src;
	int rc = run->vm.L ? protected_loop(run, src) : loop(run, src);
	/* a hook's error stops the run, and what was gathered is kept: on_end
	 * runs (info.error), the exit status stays 255 (issue 32) */
	if (rc < 0 && run->failed && run->error) {
		run->loop->hook_error = true;
		src->stop(src->ctx);
	}
	if (run->loop->watched >= 0 && src->watch)
		src->watch(src->ctx, -1);
	run->loop->watched = -1;
	lp_term_restore();              /* the records' end ends the live view */
	return rc;
}
