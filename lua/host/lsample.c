/*
 * lsample.c - "luaprof.view.Sample": the view of one sample handed to on_sample.
 *
 * Each call gets a view of its own with no allocation: a light userdata
 * whose value is new (lp_view_next), the metatable being the one of all
 * light userdata in the state, set here.  It points at the current record
 * only while its handler runs; a view kept past its call is told from the
 * current one by its value, and reading it then, in a later call or
 * another hook, raises an error in every call (issue 32: a kept s used to
 * show the current sample).  The switch record view of on_switch is one
 * too (lswitch.c), told apart by its value's tag.  Its __index computes
 * every field when read (l_index), s.args included (a registry read: the
 * Sample's __index used to be a table holding s.args while a
 * tracepoint's samples were handled, which a kept view would have read
 * too).  The name is mapped to a small integer
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
 * that address (a strcmp per frame name: docs/performance.md, "Measured
 * choices in the code"); s.args
 * is a tracepoint's table of its own (ltrace.c) or a probe's arguments
 * (lprobe.c, as s.retval and s.values).  Reading a name that is none of these is an error naming
 * the valid ones (lfields.c); a field this sample has no value for is nil.
 * A field the event's samples do not carry (s.cpu without PERF_SAMPLE_CPU,
 * perf record without -a), nil, and s.stack without a call chain, the
 * sampled frame alone, are said once on stderr at their first read, with
 * the script's line (notice_missing).
 */
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>

#include "lclass.h"
#include "lfields.h"
#include "lp.h"
#include "lstack.h"
#include "luaprof/luaprof.h"

enum field {
	F_EVENT = 1, F_PID, F_TID, F_CPU, F_COMM, F_TIME, F_PERIOD, F_IP,
	F_SYM, F_DSO, F_SYMOFF, F_KERNEL, F_STACK, F_FOLDED, F_ADDR, F_ID,
	F_RAW, F_FILE, F_LINE, F_HAS_CALLCHAIN,
	F_ARGS, F_RETVAL, F_VALUES, F_MANGLED, F_OFFSET, F_STR,
	F_UID, F_GID, F_PROCESS_COMM, F_CGROUP, F_CGROUP_PATH, F_USTACK, F_KSTACK,
};

static const char *const field_names[] = {
	"event", "pid", "tid", "cpu", "comm", "time", "period", "ip",
	"sym", "dso", "symoff", "kernel", "stack", "folded", "addr", "id",
	"raw", "file", "line", "has_callchain",
	"args", "retval", "values", "mangled", "offset", "str",
	"uid", "gid", "process_comm", "cgroup", "cgroup_path", "ustack", "kstack",
};

#define NR_FIELDS (sizeof field_names / sizeof field_names[0])

static const struct lp_fieldset sample_fields = LP_FIELDSET("s", "a sample", field_names);

/* Argument 1 is not the current sample's view: a switch record's (its
 * own __index), or an expired view (an error, saying whose). */
static int not_current(lua_State *L, struct lp_run *run)
{
	unsigned tag = lp_view_tag(L, 1);
	if (tag == LP_VIEW_SWITCH && run->switch_view.index)
		return run->switch_view.index(L, run);
	if (tag == LP_VIEW_SAMPLE || tag == LP_VIEW_EVENT)
		return lp_view_expired(L, tag, 0);
	return luaL_typeerror(L, 1, LP_SAMPLE_MT);
}

/* Says once (per field, per run) that field f of the current sample is
 * missing from its event's samples: why, and the script's line. */
static void notice_missing(lua_State *L, struct lp_run *run, enum field f, const char *why)
{
	if (run->view.noted & ((uint64_t)1 << f))
		return;
	run->view.noted |= (uint64_t)1 << f;
	const char *event = run->src->event_name(run->src->ctx, run->view.event);
	luaL_where(L, 1);
	fprintf(stderr, "luaprof: %ss.%s %s: the samples of %s carry %s\n", lua_tostring(L, -1),
		field_names[f - 1],
		f == F_STACK || f == F_FOLDED || f == F_USTACK || f == F_KSTACK ?
		"holds the sampled frame alone" :
		"is nil", event ? LP_SHOW(event) : "this event", why);
	lua_pop(L, 1);
}

/* Pushes v when the event's samples carry bit, else nil, said once. */
static void push_carried(lua_State *L, struct lp_run *run, enum field f, uint64_t bit,
			 lua_Integer v, const char *why)
{
	if (run->view.sample_type & bit) {
		lua_pushinteger(L, v);
		return;
	}
	lua_pushnil(L);
	notice_missing(L, run, f, why);
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

/* A cached Lua value in user value slot `slot` of the cache (l_index's
 * third upvalue), or build it with fn. */
static void push_cached(lua_State *L, struct lp_run *run, int slot,
			void (*fn)(lua_State *L, struct lp_run *run))
{
	if (run->view.cached & (1u << slot)) {
		lua_getiuservalue(L, lua_upvalueindex(2), slot);
		return;
	}
	fn(L, run);
	lua_pushvalue(L, -1);
	lua_setiuservalue(L, lua_upvalueindex(2), slot);
	run->view.cached |= 1u << slot;
}

/* s.ustack or s.kstack (f): both made from one walk of the stack the
 * first time either is read (count(ustack, kstack) reads both), and
 * cached in slots 6 and 7. */
static void push_stack_text(lua_State *L, struct lp_run *run, enum field f)
{
	if (!(run->view.cached & (1u << 6))) {
		lp_stack_push_texts(L, run);
		lua_setiuservalue(L, lua_upvalueindex(2), 7);
		lua_setiuservalue(L, lua_upvalueindex(2), 6);
		run->view.cached |= 1u << 6 | 1u << 7;
	}
	lua_getiuservalue(L, lua_upvalueindex(2), f == F_USTACK ? 6 : 7);
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
		lua_rawgeti(L, lua_upvalueindex(3), (lua_Integer)i + 1);
		return;
	}
	lua_pushstring(L, name);
	lua_pushvalue(L, -1);
	lua_rawseti(L, lua_upvalueindex(3), (lua_Integer)i + 1);
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

#define NO_TID "no pid or tid"
#define NO_CHAIN "no call chain (sample with -g, or luaprof.setup{call_graph = true})"

static int l_index(lua_State *L)
{
	struct lp_run *run = lp_get_run(L);
	if (!lp_view_is_current(run, lua_touserdata(L, 1)))
		return not_current(L, run);
	const struct lp_sample *s = &run->view.rec->u.sample;
	int f = field_of(L, run);
	switch (f) {
	case F_EVENT: push_event(L, run); break;
	/* -1 as perf prints it */
	case F_PID: push_carried(L, run, F_PID, PERF_SAMPLE_TID, (int32_t)s->pid, NO_TID); break;
	case F_TID: push_carried(L, run, F_TID, PERF_SAMPLE_TID, (int32_t)s->tid, NO_TID); break;
	case F_CPU:     /* as perf's per-thread recordings */
		push_carried(L, run, F_CPU, PERF_SAMPLE_CPU, s->cpu,
			     "no CPU (perf record without -a leaves it out)");
		break;
	case F_COMM: push_comm(L, run); break;
	case F_TIME:
		push_carried(L, run, F_TIME, PERF_SAMPLE_TIME, (lua_Integer)s->time, "no time");
		break;
	case F_PERIOD: lua_pushinteger(L, (lua_Integer)s->period); break;
	case F_IP:
		push_carried(L, run, F_IP, PERF_SAMPLE_IP, (lua_Integer)s->ip, "no address");
		break;
	case F_ADDR:    /* watchpoints' (mem:), perf record -d's */
		push_carried(L, run, F_ADDR, PERF_SAMPLE_ADDR, (lua_Integer)s->addr,
			     "no data address (watchpoints, mem:, and perf record -d have one)");
		break;
	case F_ID: lua_pushinteger(L, (lua_Integer)s->id); break;
	case F_SYM: case F_DSO: case F_SYMOFF: case F_KERNEL: case F_MANGLED: case F_OFFSET:
		push_frame_field(L, run, (enum field)f);
		break;
	case F_STACK:
	case F_FOLDED:
		if (!(run->view.sample_type & PERF_SAMPLE_CALLCHAIN))
			notice_missing(L, run, (enum field)f, NO_CHAIN);
		push_cached(L, run, f == F_STACK ? 1 : 2,
			    f == F_STACK ? lp_stack_push : lp_stack_push_folded);
		break;
	case F_USTACK:
	case F_KSTACK:
		if (!(run->view.sample_type & PERF_SAMPLE_CALLCHAIN))
			notice_missing(L, run, (enum field)f, NO_CHAIN);
		push_stack_text(L, run, (enum field)f);
		break;
	case F_RAW: push_cached(L, run, 3, lp_trace_push_raw); break;
	case F_FILE: lp_stack_push_leaf_source(L, run, false); break;
	case F_LINE: lp_stack_push_leaf_source(L, run, true); break;
	case F_HAS_CALLCHAIN:
		lua_pushboolean(L, (run->view.sample_type & PERF_SAMPLE_CALLCHAIN) != 0);
		break;
	case F_ARGS:    /* a tracepoint's fields or a probe's */
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
	if (lp_view_tag(L, 1) == LP_VIEW_SWITCH)
		return luaL_error(L, "a switch record is read-only (copy its fields into a table "
				     "of your own)");
	return luaL_error(L, "sample fields are read-only (field '%s')",
			  LP_SHOW(luaL_checkstring(L, 2)));
}

static int l_tostring(lua_State *L)
{
	struct lp_run *run = lp_get_run(L);
	unsigned tag = lp_view_tag(L, 1);
	if (tag == LP_VIEW_SWITCH && run->switch_view.tostring)
		return run->switch_view.tostring(L, run);
	if (!tag)
		lua_pushfstring(L, "userdata: %p", lua_touserdata(L, 1));
	else if (!lp_view_is_current(run, lua_touserdata(L, 1)))
		lua_pushliteral(L, LP_SAMPLE_MT " (expired)");
	else
		lua_pushfstring(L, LP_SAMPLE_MT " (tid %d, time %I)", (int)run->view.rec->u.sample.tid,
				(lua_Integer)run->view.rec->u.sample.time);
	return 1;
}

/* Every metamethod's upvalues: 1 the field names -> enum field, 2 the
 * call's cache (a userdata, its user values), 3 the frame names' Lua
 * strings. */
static const luaL_Reg view_meta[] = {
	{ "__index", l_index }, { "__newindex", l_newindex }, { "__tostring", l_tostring },
	{ NULL, NULL },
};

static const struct lp_class view_class = { .name = LP_SAMPLE_MT, .meta = view_meta };

void lp_sample_open(lua_State *L, struct lp_run *run)
{
	lua_newuserdatauv(L, 1, 7);             /* the fields cached in a call */
	lua_pushlightuserdata(L, NULL);         /* its metatable is every light userdata's */
	lua_createtable(L, 0, NR_FIELDS);
	for (size_t i = 0; i < NR_FIELDS; i++) {
		lua_pushinteger(L, (lua_Integer)i + 1);
		lua_setfield(L, -2, field_names[i]);
	}
	lua_pushvalue(L, -3);                   /* the cache */
	lua_createtable(L, LP_VIEW_NAMES, 0);   /* the names' strings */
	lp_class_new(L, &view_class, 3);
	luaL_setmetatable(L, LP_SAMPLE_MT);
	lua_pop(L, 1);
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
