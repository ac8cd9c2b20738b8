/*
 * lswitch.c - "luaprof.Switch": the view of one context switch record
 * (PERF_RECORD_SWITCH, SWITCH_CPU_WIDE) handed to on_switch.
 *
 * Switches come by the ten thousand a second system-wide, so, as for
 * samples, there is one Switch userdata per run, no table per record: it
 * points at the current record only while on_switch runs (reading it
 * later raises an error), and each field is computed when read, its name
 * mapped to a small integer through an upvalue table (one hash lookup);
 * another name is an error naming the valid ones (lfields.c).
 */
#include <lauxlib.h>

#include "lfields.h"
#include "lp.h"

#define LP_SWITCH_MT "luaprof.Switch"

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

/* The run, from l_index's second upvalue, once argument 1 is its view. */
static struct lp_run *check_view(lua_State *L)
{
	struct lp_run *run = lua_touserdata(L, lua_upvalueindex(2));
	if (lua_touserdata(L, 1) != run->switch_view.ud)
		luaL_typeerror(L, 1, LP_SWITCH_MT);
	if (!run->switch_view.rec)
		luaL_error(L, "switch record used outside on_switch: copy the fields you need "
			      "into your own table while on_switch runs");
	return run;
}

/* Pushes v, or nil when !has. */
static void push_opt(lua_State *L, bool has, lua_Integer v)
{
	has ? lua_pushinteger(L, v) : lua_pushnil(L);
}

static int l_index(lua_State *L)
{
	struct lp_run *run = check_view(L);
	const struct lp_record *r = run->switch_view.rec;
	const struct lp_switch *sw = &r->u.sw;
	lua_pushvalue(L, 2);
	lua_rawget(L, lua_upvalueindex(1));
	switch ((enum field)lua_tointeger(L, -1)) {
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

static int l_newindex(lua_State *L)
{
	return luaL_error(L, "a switch record is read-only (copy its fields into a table of "
			     "your own)");
}

static int l_tostring(lua_State *L)
{
	struct lp_run *run = lua_touserdata(L, lua_upvalueindex(1));
	const struct lp_record *r = run->switch_view.rec;
	if (!r)
		lua_pushliteral(L, "luaprof.Switch (expired)");
	else
		lua_pushfstring(L, "luaprof.Switch (tid %d %s, time %I)", (int)r->sid.tid,
				r->u.sw.out ? "out" : "in", (lua_Integer)r->sid.time);
	return 1;
}

/* The view, made at the run's first switch record, in the registry. */
static void push_view(lua_State *L, struct lp_run *run)
{
	if (run->switch_view.ref != LUA_NOREF) {
		lua_rawgeti(L, LUA_REGISTRYINDEX, run->switch_view.ref);
		return;
	}
	run->switch_view.ud = lua_newuserdatauv(L, 1, 0);
	luaL_newmetatable(L, LP_SWITCH_MT);
	lua_createtable(L, 0, NR_FIELDS);
	for (size_t i = 0; i < NR_FIELDS; i++) {
		lua_pushinteger(L, (lua_Integer)i + 1);
		lua_setfield(L, -2, field_names[i]);
	}
	lua_pushlightuserdata(L, run);
	lua_pushcclosure(L, l_index, 2);
	lua_setfield(L, -2, "__index");
	lua_pushcfunction(L, l_newindex);
	lua_setfield(L, -2, "__newindex");
	lua_pushlightuserdata(L, run);
	lua_pushcclosure(L, l_tostring, 1);
	lua_setfield(L, -2, "__tostring");
	lua_setmetatable(L, -2);
	lua_pushvalue(L, -1);
	run->switch_view.ref = luaL_ref(L, LUA_REGISTRYINDEX);
}

int lp_switch_call(struct lp_run *run, const struct lp_record *rec, int event)
{
	if (run->vm.ref[LP_HOOK_SWITCH] == LUA_NOREF)
		return 0;
	lua_State *L = run->vm.L;
	uint64_t st = event >= 0 && run->src->sample_type ?
		      run->src->sample_type(run->src->ctx, event) : 0;
	push_view(L, run);
	run->switch_view.rec = rec;
	run->switch_view.has_cpu = st & PERF_SAMPLE_CPU;
	int rc = lp_vm_call(run, LP_HOOK_SWITCH, 1);
	run->switch_view.rec = NULL;
	return rc;
}
