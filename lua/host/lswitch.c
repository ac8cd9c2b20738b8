/*
 * lswitch.c - "luaprof.view.Switch": the view of one context switch record
 * (PERF_RECORD_SWITCH, SWITCH_CPU_WIDE) handed to on_switch.
 *
 * Switches come by the ten thousand a second system-wide, so, as for
 * samples, no table is made per record: each call gets a light userdata
 * of its own value (lp_view_next, tagged LP_VIEW_SWITCH), which shares
 * the Sample's metatable (lsample.c hands a switch view to switch_index,
 * registered in run->switch_view); it points at the current record only while on_switch
 * runs (a view kept and read later, in any later call, raises an error),
 * and each field is computed when read, its name mapped to a small
 * integer through a table (one hash lookup); another name is an error
 * naming the valid ones (lfields.c).
 */
#include <lauxlib.h>

#include "lfields.h"
#include "lp.h"

enum field {
	F_PID = 1, F_TID, F_TIME, F_CPU, F_OUT, F_PREEMPT,
	F_NEXT_PID, F_NEXT_TID, F_PREV_PID, F_PREV_TID,
};

static const char *const field_names[] = {
	"pid", "tid", "time", "cpu", "out", "preempt",
	"next_pid", "next_tid", "prev_pid", "prev_tid",
};

#define NR_FIELDS (sizeof field_names / sizeof field_names[0])

static const struct lp_fieldset switch_fields =
	LP_FIELDSET("t", "a switch record (on_switch)", field_names);

/* Pushes v, or nil when !has. */
static void push_opt(lua_State *L, bool has, lua_Integer v)
{
	has ? lua_pushinteger(L, v) : lua_pushnil(L);
}

/* The field named by the key at index 2 (0: none), through the table of
 * names made at the run's first switch record. */
static int field_of(lua_State *L, struct lp_run *run)
{
	lua_rawgeti(L, LUA_REGISTRYINDEX, run->switch_view.ref);
	lua_pushvalue(L, 2);
	lua_rawget(L, -2);
	int f = (int)lua_tointeger(L, -1);
	lua_pop(L, 2);
	return f;
}

/* __index of a switch view (argument 1), from the Sample's. */
static int switch_index(lua_State *L, struct lp_run *run)
{
	if (lua_touserdata(L, 1) != run->switch_view.ud || !run->switch_view.rec)
		return lp_view_expired(L, LP_VIEW_SWITCH, 0);
	const struct lp_record *r = run->switch_view.rec;
	const struct lp_switch *sw = &r->u.sw;
	switch ((enum field)field_of(L, run)) {
	case F_PID: lua_pushinteger(L, (int32_t)r->sid.pid); break;   /* -1 as perf prints it */
	case F_TID: lua_pushinteger(L, (int32_t)r->sid.tid); break;
	case F_TIME: lua_pushinteger(L, (lua_Integer)r->sid.time); break;
	case F_CPU: push_opt(L, run->switch_view.has_cpu, r->sid.cpu); break;
	case F_OUT: lua_pushboolean(L, sw->out); break;
	case F_PREEMPT: lua_pushboolean(L, sw->preempt); break;
	case F_NEXT_PID: push_opt(L, sw->cpu_wide && sw->out, (int32_t)sw->pid); break;
	case F_NEXT_TID: push_opt(L, sw->cpu_wide && sw->out, (int32_t)sw->tid); break;
	case F_PREV_PID: push_opt(L, sw->cpu_wide && !sw->out, (int32_t)sw->pid); break;
	case F_PREV_TID: push_opt(L, sw->cpu_wide && !sw->out, (int32_t)sw->tid); break;
	default: return lp_fields_error(L, &switch_fields, 2);  /* a typo: t.ot */
	}
	return 1;
}

static int switch_tostring(lua_State *L, struct lp_run *run)
{
	const struct lp_record *r = run->switch_view.rec;
	if (!r || lua_touserdata(L, 1) != run->switch_view.ud)
		lua_pushliteral(L, "luaprof.view.Switch (expired)");
	else
		lua_pushfstring(L, "luaprof.view.Switch (tid %d %s, time %I)", (int)r->sid.tid,
				r->u.sw.out ? "out" : "in", (lua_Integer)r->sid.time);
	return 1;
}

/* The table of field names, made at the run's first switch record. */
static void make_names(lua_State *L, struct lp_run *run)
{
	if (run->switch_view.ref != LUA_NOREF)
		return;
	lua_createtable(L, 0, NR_FIELDS);
	for (size_t i = 0; i < NR_FIELDS; i++) {
		lua_pushinteger(L, (lua_Integer)i + 1);
		lua_setfield(L, -2, field_names[i]);
	}
	run->switch_view.ref = luaL_ref(L, LUA_REGISTRYINDEX);
	run->switch_view.index = switch_index;
	run->switch_view.tostring = switch_tostring;
}

int lp_switch_call(struct lp_run *run, const struct lp_record *rec, int event)
{
	if (run->vm.ref[LP_HOOK_SWITCH] == LUA_NOREF)
		return 0;
	lua_State *L = run->vm.L;
	uint64_t st = event >= 0 && run->src->sample_type ?
		      run->src->sample_type(run->src->ctx, event) : 0;
	make_names(L, run);
	run->switch_view.ud = lp_view_next(run, LP_VIEW_SWITCH);
	lua_pushlightuserdata(L, (void *)(uintptr_t)run->switch_view.ud);
	run->switch_view.rec = rec;
	run->switch_view.has_cpu = st & PERF_SAMPLE_CPU;
	int rc = lp_vm_call(run, LP_HOOK_SWITCH, 1);
	run->switch_view.rec = NULL;
	return rc;
}
