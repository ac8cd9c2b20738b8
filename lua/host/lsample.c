/*
 * lsample.c - "luaprof.Sample": the view of one sample handed to on_sample.
 *
 * There is exactly one Sample userdata per run.  It points at the current
 * record only while on_sample runs; reading it at any other time raises an
 * error.  Its __index computes every field when read (l_index), but while
 * a tracepoint's samples are handled it is a table holding s.args
 * (ltrace.c's show_fields switches it: reading s.args is then a table
 * read, no call into C), whose own __index is l_index; going through that
 * table for every other field cost 6% of a replay counting s.sym, so it
 * is there only while s.args is.  The name is mapped to a small integer
 * through an upvalue table (one hash lookup; the names read before are
 * found by their Lua strings' addresses, which the table's keys keep
 * alive and Lua's interning makes one per name), and fields that cost
 * something (symbols, the stack, the folded string, a tracepoint's raw
 * data, a probe's arguments, a group's values) are cached for the rest of
 * the call, the tables and strings in the userdata's user values.  The
 * names of frames (s.sym, s.dso, s.mangled) are pushed from a cache of
 * their Lua strings kept by the name's address (the resolver's names live
 * as long as it does, one pointer one name): a hit is an array read, where
 * lua_pushstring compares the whole name with the string Lua keeps for
 * that address (its strcmp was 3% of a replay counting s.sym); s.args
 * is a tracepoint's table of its own (ltrace.c) or a probe's arguments
 * (lprobe.c, as s.retval and s.values).  Reading a name that is none of these is an error naming
 * the valid ones (lfields.c); a field this sample has no value for is nil.
 */
#include <string.h>

#include <lauxlib.h>

#include "lfields.h"
#include "lp.h"
#include "lstack.h"
#include "luaprof/luaprof.h"

enum field {
	F_EVENT = 1, F_PID, F_TID, F_CPU, F_COMM, F_TIME, F_PERIOD, F_IP,
	F_SYM, F_DSO, F_SYMOFF, F_KERNEL, F_STACK, F_FOLDED, F_ADDR, F_ID,
	F_RAW, F_FILE, F_LINE, F_HAS_CALLCHAIN,
	F_ARGS, F_RETVAL, F_VALUES, F_MANGLED, F_OFFSET, F_STR,
	F_UID, F_GID, F_PROCESS_COMM, F_CGROUP, F_CGROUP_PATH,
};

static const char *const field_names[] = {
	"event", "pid", "tid", "cpu", "comm", "time", "period", "ip",
	"sym", "dso", "symoff", "kernel", "stack", "folded", "addr", "id",
	"raw", "file", "line", "has_callchain",
	"args", "retval", "values", "mangled", "offset", "str",
	"uid", "gid", "process_comm", "cgroup", "cgroup_path",
};

#define NR_FIELDS (sizeof field_names / sizeof field_names[0])

static const struct lp_fieldset sample_fields = LP_FIELDSET("s", "a sample", field_names);

/* The run, from l_index's second upvalue; argument 1 must be the view's
 * __index table (l_index is that table's __index), which one pointer
 * comparison checks. */
static struct lp_run *check_view(lua_State *L)
{
	struct lp_run *run = lua_touserdata(L, lua_upvalueindex(2));
	const void *self = lua_topointer(L, 1);
	if (self != run->vm.view_index && self != run->view.ud)
		luaL_typeerror(L, 1, LP_SAMPLE_MT);
	if (!run->view.rec)
		luaL_error(L, "sample used outside on_sample: copy the fields you need "
			      "into your own table while on_sample runs");
	return run;
}

static void push_comm(lua_State *L, struct lp_run *run)
{
	struct lp_thread *t = lp_view_thread(run);
	t ? (void)lua_pushstring(L, t->comm) : lua_pushnil(L);
}

/* The process's name: its main thread's (that thread's comm follows the
 * process's execs; a thread's own name, s.comm, may differ). */
static void push_process_comm(lua_State *L, struct lp_run *run)
{
	const struct lp_thread *t = lp_procs_find(run->procs, run->view.rec->u.sample.pid);
	if (t && t->pid == run->view.rec->u.sample.pid)
		lua_pushstring(L, t->comm);
	else
		push_comm(L, run);      /* the main thread is not known: the thread's */
}

static void push_event(lua_State *L, struct lp_run *run)
{
	const char *name = run->src->event_name(run->src->ctx, run->view.event);
	name ? (void)lua_pushstring(L, name) : lua_pushnil(L);
}

/* A cached Lua value in user value slot `slot` of the view (l_index's
 * third upvalue), or build it with fn. */
static void push_cached(lua_State *L, struct lp_run *run, int slot,
			void (*fn)(lua_State *L, struct lp_run *run))
{
	if (run->view.cached & (1u << slot)) {
		lua_getiuservalue(L, lua_upvalueindex(3), slot);
		return;
	}
	fn(L, run);
	lua_pushvalue(L, -1);
	lua_setiuservalue(L, lua_upvalueindex(3), slot);
	run->view.cached |= 1u << slot;
}

/* The slot of name in the cache of names' strings (view.names and l_index's
 * fourth upvalue, an array of as many strings). */
static size_t name_slot(const char *name)
{
	return (size_t)(((uintptr_t)name * 0x9e3779b97f4a7c15ull) >> 32) & (LP_VIEW_NAMES - 1);
}

/* Pushes a name the resolver owns as a Lua string, or nil for NULL. */
static void push_name(lua_State *L, struct lp_run *run, const char *name)
{
	if (!name) {
		lua_pushnil(L);
		return;
	}
	size_t i = name_slot(name);
	if (run->view.names[i] == name) {
		lua_rawgeti(L, lua_upvalueindex(4), (lua_Integer)i + 1);
		return;
	}
	lua_pushstring(L, name);
	lua_pushvalue(L, -1);
	lua_rawseti(L, lua_upvalueindex(4), (lua_Integer)i + 1);
	run->view.names[i] = name;
}

static void push_frame_field(lua_State *L, struct lp_run *run, enum field f)
{
	const struct lp_frame *fr = lp_stack_leaf(run);
	switch (f) {
	case F_SYM: push_name(L, run, fr->sym); break;
	case F_MANGLED: push_name(L, run, fr->mangled); break;
	case F_OFFSET:
		/* as a stack frame's offset: user frames in a mapped file only */
		fr->fileoff && !fr->kernel ? lua_pushinteger(L, (lua_Integer)fr->fileoff) : lua_pushnil(L);
		break;
	case F_DSO: push_name(L, run, fr->dso); break;
	case F_SYMOFF: fr->sym ? lua_pushinteger(L, (lua_Integer)fr->symoff) : lua_pushnil(L); break;
	default: lua_pushboolean(L, fr->kernel); break;
	}
}

/* The field the key at index 2 names, or 0: found by the key string's
 * address among those read before, else in l_index's first upvalue. */
static int field_of(lua_State *L, struct lp_run *run)
{
	const char *key = lua_tostring(L, 2);   /* a number becomes one: harmless */
	if (!key)
		return 0;
	struct lp_view_key *k = &run->view.keys[((uintptr_t)key >> 4) & (LP_VIEW_KEYS - 1)];
	if (k->key == key)
		return k->field;
	lua_pushvalue(L, 2);
	int f = lua_rawget(L, lua_upvalueindex(1)) == LUA_TNUMBER ? (int)lua_tointeger(L, -1) : 0;
	lua_pop(L, 1);
	if (f)                  /* key is the table's own string, alive as long as it */
		*k = (struct lp_view_key){ key, f };
	return f;
}

static int l_index(lua_State *L)
{
	struct lp_run *run = check_view(L);
	const struct lp_sample *s = &run->view.rec->u.sample;
	int f = field_of(L, run);
	switch (f) {
	case F_EVENT: push_event(L, run); break;
	case F_PID: lua_pushinteger(L, (int32_t)s->pid); break;   /* -1 as perf prints it */
	case F_TID: lua_pushinteger(L, (int32_t)s->tid); break;
	case F_CPU:     /* nil when the samples do not carry it, as perf's per-thread ones */
		if (run->view.sample_type & PERF_SAMPLE_CPU)
			lua_pushinteger(L, s->cpu);
		else
			lua_pushnil(L);
		break;
	case F_COMM: push_comm(L, run); break;
	case F_TIME: lua_pushinteger(L, (lua_Integer)s->time); break;
	case F_PERIOD: lua_pushinteger(L, (lua_Integer)s->period); break;
	case F_IP: lua_pushinteger(L, (lua_Integer)s->ip); break;
	case F_ADDR:    /* nil when the samples do not carry an address */
		if (run->view.sample_type & PERF_SAMPLE_ADDR)
			lua_pushinteger(L, (lua_Integer)s->addr);
		else
			lua_pushnil(L);
		break;
	case F_ID: lua_pushinteger(L, (lua_Integer)s->id); break;
	case F_SYM: case F_DSO: case F_SYMOFF: case F_KERNEL: case F_MANGLED: case F_OFFSET:
		push_frame_field(L, run, (enum field)f);
		break;
	case F_STACK: push_cached(L, run, 1, lp_stack_push); break;
	case F_FOLDED: push_cached(L, run, 2, lp_stack_push_folded); break;
	case F_RAW: push_cached(L, run, 3, lp_trace_push_raw); break;
	case F_FILE: lp_stack_push_leaf_source(L, run, false); break;
	case F_LINE: lp_stack_push_leaf_source(L, run, true); break;
	case F_HAS_CALLCHAIN:
		lua_pushboolean(L, (run->view.sample_type & PERF_SAMPLE_CALLCHAIN) != 0);
		break;
	case F_ARGS:    /* a tracepoint's fields (when not in __index's table) or a probe's */
		if (run->vm.tp_shown)
			lp_trace_push_fields(L, run);
		else
			push_cached(L, run, 4, lp_probe_push_args);
		break;
	case F_RETVAL: lp_probe_push_retval(L, run); break;
	case F_VALUES: push_cached(L, run, 5, lp_probe_push_values); break;
	case F_STR: lua_pushcfunction(L, lp_strings_method); break;    /* s:str(addr [, max]) */
	case F_UID: lp_idents_push(L, run, LP_IDENT_UID); break;
	case F_GID: lp_idents_push(L, run, LP_IDENT_GID); break;
	case F_PROCESS_COMM: push_process_comm(L, run); break;
	case F_CGROUP: lp_idents_push(L, run, LP_IDENT_CGROUP); break;
	case F_CGROUP_PATH: lp_idents_push(L, run, LP_IDENT_CGROUP_PATH); break;
	default: return lp_fields_error(L, &sample_fields, 2);  /* a typo: s.symm */
	}
	return 1;
}

static int l_newindex(lua_State *L)
{
	return luaL_error(L, "sample fields are read-only (field '%s')",
			  LP_SHOW(luaL_checkstring(L, 2)));
}

static int l_tostring(lua_State *L)
{
	struct lp_run *run = *(struct lp_run **)luaL_checkudata(L, 1, LP_SAMPLE_MT);
	if (!run->view.rec)
		lua_pushliteral(L, "luaprof.Sample (expired)");
	else
		lua_pushfstring(L, "luaprof.Sample (tid %d, time %I)", (int)run->view.rec->u.sample.tid,
				(lua_Integer)run->view.rec->u.sample.time);
	return 1;
}

void lp_sample_open(lua_State *L, struct lp_run *run)
{
	struct lp_run **ud = lua_newuserdatauv(L, sizeof *ud, 5);
	*ud = run;
	run->view.ud = ud;
	luaL_newmetatable(L, LP_SAMPLE_MT);
	lua_createtable(L, 0, 1);               /* __index: s.args, then l_index */
	run->vm.view_index = lua_topointer(L, -1);
	lua_createtable(L, 0, 1);
	lua_createtable(L, 0, NR_FIELDS);
	for (size_t i = 0; i < NR_FIELDS; i++) {
		lua_pushinteger(L, (lua_Integer)i + 1);
		lua_setfield(L, -2, field_names[i]);
	}
	lua_pushlightuserdata(L, run);
	lua_pushvalue(L, -6);                   /* the view */
	lua_createtable(L, LP_VIEW_NAMES, 0);   /* the names' strings */
	lua_pushcclosure(L, l_index, 4);
	lua_pushvalue(L, -1);
	run->vm.ref_view_get = luaL_ref(L, LUA_REGISTRYINDEX);
	lua_setfield(L, -2, "__index");
	lua_setmetatable(L, -2);
	run->vm.ref_view_index = luaL_ref(L, LUA_REGISTRYINDEX);
	lua_rawgeti(L, LUA_REGISTRYINDEX, run->vm.ref_view_get);       /* no s.args yet */
	lua_setfield(L, -2, "__index");
	lua_pushcfunction(L, l_newindex);
	lua_setfield(L, -2, "__newindex");
	lua_pushcfunction(L, l_tostring);
	lua_setfield(L, -2, "__tostring");
	lua_setmetatable(L, -2);
	run->vm.ref_view = luaL_ref(L, LUA_REGISTRYINDEX);
}

void lp_sample_invalidate(lua_State *L, struct lp_run *run)
{
	(void)L;
	run->view.rec = NULL;
	run->view.spec = NULL;
	run->view.thread = NULL;
	run->view.have_frame = false;
	run->view.addrs = NULL;
	run->view.cached = 0;
}
