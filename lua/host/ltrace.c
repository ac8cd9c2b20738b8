/*
 * ltrace.c - tracepoint samples in Lua: s.args and s.raw, and the system
 * call table (luaprof.syscall_name, luaprof.syscall_nr).
 *
 * s.args is a Lua table, one per tracepoint event for the whole run (no
 * table is built per sample), holding the fields of the sample being
 * handled.  Reading a field is a plain table read, with no call into C:
 * before each sample of the event is handled, the fields the script has
 * read so far (its "hot" fields) are decoded into the table; a field read
 * for the first time is decoded by the table's __index (C), and is hot
 * from then on.  The table being shown and its field names sit in fixed
 * slots of the base stack (LP_SLOT_FIELDS, LP_SLOT_FKEYS), so decoding a
 * hot field costs a rawgeti, a push and a rawset: less than a C
 * metamethod call per field read (a "view" userdata) or the table and
 * names reached through the registry, and far less than a table of all
 * the fields made per sample.
 *
 * The table is emptied as soon as no sample of its event is being handled:
 * before a sample of another event, before any other hook (on_comm,
 * on_interval, on_end, ...), and at the end.  A kept s.args read then
 * reaches the __index, which raises an error (it is valid only during its
 * call; within a later call of the same event it shows that call's
 * sample, like s itself).  Assigning a field it does not hold is an
 * error; pairs() gives every field, decoded, in the format's order.
 * Values are decoded with the event's format (settled once per event by
 * run.c): integers exact Lua integers, signed or not as the format says;
 * char arrays and __data_loc/__rel_loc char[] strings up to their NUL;
 * other arrays Lua arrays, made only when read (an array is hot only to
 * be cleared before each sample); pointers integers; common_* fields are
 * left out, as is a field whose data does not lie inside the sample (it
 * reads as nil).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "lclass.h"
#include "lfields.h"
#include "lp.h"
#include "luaprof/event.h"
#include "luaprof/luaprof.h"
#include "luaprof/trace.h"

#define LP_FIELDS_MT LP_CLASS_NAME("view", "Fields")
#define FILL_HEADROOM (256u << 10)      /* see fill_room */

/* s.args of one tracepoint event. */
struct lp_tpview {
	const struct lp_tp_format *fmt;
	int ref_t;              /* the table */
	int ref_k;              /* field names: k[i + 1] = fmt->fields[i].name */
	uint16_t *hot;          /* fields decoded into the table before each sample */
	size_t nr_hot;
	bool filled;            /* the table holds a sample's hot fields */
	bool has_argv;          /* args.argv (lcapture.c): sched:sched_process_exec,
				 * syscalls:sys_exit_execve and sys_exit_execveat */
	int ret;                /* the field ret of those, or -1 */
	bool argv_set;          /* the table holds this sample's argv */
};

static void push_array(lua_State *L, const struct lp_tp_field *f, const uint8_t *p, size_t len)
{
	size_t n = len / f->elem_size;
	lua_createtable(L, n < 1u << 20 ? (int)n : 0, 0);
	for (size_t i = 0; i < n; i++) {
		lua_pushinteger(L, (lua_Integer)lp_tp_elem(f, p, i));
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
}

/* Pushes field f's value; false (nothing pushed) when its data is not
 * inside the sample. */
static bool push_field(lua_State *L, const struct lp_tp_field *f, const void *raw, size_t size)
{
	uint64_t v;
	const char *s;
	const uint8_t *p;
	size_t len;
	switch (f->kind) {
	case LP_TP_INT:
		if (lp_tp_read_int(f, raw, size, &v))
			return false;
		lua_pushinteger(L, (lua_Integer)v);
		return true;
	case LP_TP_STRING:
		if (lp_tp_read_string(f, raw, size, &s, &len))
			return false;
		lua_pushlstring(L, s, len);
		return true;
	default:
		if (lp_tp_read_bytes(f, raw, size, &p, &len))
			return false;
		if (f->kind == LP_TP_ARRAY)
			push_array(L, f, p, len);
		else
			lua_pushlstring(L, (const char *)p, len);
		return true;
	}
}

/* The index of the non-common field called name, or -1. */
static int find(const struct lp_tp_format *fmt, const char *name)
{
	for (size_t i = 0; name && i < fmt->nr_fields; i++)
		if (!fmt->fields[i].common && !strcmp(fmt->fields[i].name, name))
			return (int)i;
	return -1;
}

/* The view of a metamethod's first upvalue, checked to be in a call of a
 * sample of its event; *run its run. */
static struct lp_tpview *check_shown(lua_State *L, struct lp_run **run)
{
	struct lp_tpview *tv = lua_touserdata(L, lua_upvalueindex(1));
	*run = lp_get_run(L);
	if (!(*run)->view.rec || (*run)->vm.tp_shown != tv)
		lp_view_expired(L, LP_VIEW_ARGS, 0);
	return tv;
}

/* Pushes hot field i of sample s; false (nothing pushed) for an array,
 * which is made only when read, or when its data is not inside s. */
static bool push_hot(lua_State *L, const struct lp_tpview *tv, size_t i,
		     const struct lp_sample *s)
{
	const struct lp_tp_field *f = &tv->fmt->fields[i];
	return f->kind != LP_TP_ARRAY && push_field(L, f, s->raw, s->raw_size);
}

/* Decodes tv's hot fields of sample s into its table (at LP_SLOT_FIELDS,
 * its names at LP_SLOT_FKEYS), or clears them (s NULL: the format, which
 * may be gone with the source at the end, is not read then). */
static void fill(lua_State *L, struct lp_tpview *tv, const struct lp_sample *s)
{
	if (tv->argv_set) {     /* made when read, for its sample only */
		lua_pushliteral(L, "argv");
		lua_pushnil(L);
		lua_rawset(L, LP_SLOT_FIELDS);
		tv->argv_set = false;
	}
	for (size_t j = 0; j < tv->nr_hot; j++) {
		lua_rawgeti(L, LP_SLOT_FKEYS, (lua_Integer)tv->hot[j] + 1);
		if (!s || !push_hot(L, tv, tv->hot[j], s))
			lua_pushnil(L);
		lua_rawset(L, LP_SLOT_FIELDS);
	}
	tv->filled = s != NULL;
}

#define MAX_LISTED 64     /* fields an error lists */

/* Raises the error of s.args.KEY (KEY at index 2) that is no field of tv's
 * tracepoint, as s.KEY's: the closest name, then every field. */
static int no_field(lua_State *L, const struct lp_tpview *tv)
{
	const struct lp_tp_format *fmt = tv->fmt;
	const char *names[MAX_LISTED];
	size_t n = 0;
	for (size_t i = 0; i < fmt->nr_fields && n < MAX_LISTED; i++)
		if (!fmt->fields[i].common)
			names[n++] = fmt->fields[i].name;
	const char *key = luaL_tolstring(L, 2, NULL);
	const char *meant = lua_type(L, 2) == LUA_TSTRING ? lp_closest(key, names, n) : NULL;
	luaL_Buffer b;
	luaL_buffinit(L, &b);
	luaL_where(L, 1);
	luaL_addvalue(&b);
	if (lua_type(L, 2) == LUA_TSTRING)
		lua_pushfstring(L, "s.args.%s: %s:%s has no field '%s'", LP_SHOW(key), fmt->system,
				fmt->name, LP_SHOW(key));
	else
		lua_pushfstring(L, "s.args[%s]: a tracepoint's fields are named (s.args.%s): %s:%s "
				"has no field %s", LP_SHOW(key), n ? names[0] : "NAME", fmt->system,
				fmt->name, LP_SHOW(key));
	luaL_addvalue(&b);
	if (meant) {
		lua_pushfstring(L, " (did you mean '%s'?)", meant);
		luaL_addvalue(&b);
	}
	luaL_addstring(&b, n ? "; its fields are: " : "; it has no fields");
	for (size_t i = 0; i < n; i++) {
		luaL_addstring(&b, names[i]);
		luaL_addstring(&b, i + 1 < n ? ", " : "");
	}
	luaL_pushresult(&b);
	return lua_error(L);
}

/* Whether the format has a field called name, common ones included. */
static bool known(const struct lp_tp_format *fmt, const char *name)
{
	for (size_t i = 0; name && i < fmt->nr_fields; i++)
		if (!strcmp(fmt->fields[i].name, name))
			return true;
	return false;
}

/* __index: a field read for the first time in this call.  It is decoded,
 * kept in the table for the rest of the call, and decoded before each
 * sample from now on.  A name the format does not have is an error, as
 * s's are (lfields.c); a common_* field, left out, and one whose data is
 * not inside the sample, read as nil. */
static int l_fields_index(lua_State *L)
{
	struct lp_run *run;
	struct lp_tpview *tv = check_shown(L, &run);
	const struct lp_sample *s = &run->view.rec->u.sample;
	const char *key = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : NULL;
	int i = find(tv->fmt, key);
	if (i < 0 && tv->has_argv && key && !strcmp(key, "argv")) {
		uint64_t ret = 0;
		if (tv->ret >= 0 && lp_tp_read_int(&tv->fmt->fields[tv->ret], s->raw, s->raw_size, &ret))
			ret = 0;
		/* a failed exec's arguments, or the new program's */
		lp_strings_push_argv(L, run, (int64_t)ret < 0);
		lua_pushvalue(L, 2);
		lua_pushvalue(L, -2);
		lua_rawset(L, 1);
		tv->argv_set = tv->filled = true;
		return 1;
	}
	if (i < 0 && !known(tv->fmt, key))
		return no_field(L, tv);
	if (i < 0 || !push_field(L, &tv->fmt->fields[i], s->raw, s->raw_size)) {
		lua_pushnil(L);
		return 1;
	}
	size_t j = 0;
	while (j < tv->nr_hot && tv->hot[j] != i)
		j++;
	if (j == tv->nr_hot)
		tv->hot[tv->nr_hot++] = (uint16_t)i;
	lua_pushvalue(L, 2);
	lua_pushvalue(L, -2);
	lua_rawset(L, 1);
	tv->filled = true;
	return 1;
}

/* The iterator of pairs(s.args): the field after key, in format order. */
static int l_fields_next(lua_State *L)
{
	struct lp_run *run;
	struct lp_tpview *tv = check_shown(L, &run);
	const struct lp_sample *s = &run->view.rec->u.sample;
	size_t i = 0;
	if (!lua_isnil(L, 2)) {
		int k = lua_type(L, 2) == LUA_TSTRING ? find(tv->fmt, lua_tostring(L, 2)) : -1;
		if (k < 0)
			return luaL_error(L, "invalid key to 'next' of s.args");
		i = (size_t)k + 1;
	}
	for (; i < tv->fmt->nr_fields; i++) {
		const struct lp_tp_field *f = &tv->fmt->fields[i];
		lua_pushstring(L, f->name);
		if (!f->common && push_field(L, f, s->raw, s->raw_size))
			return 2;
		lua_pop(L, 1);
	}
	lua_pushnil(L);
	return 1;
}

static int l_fields_pairs(lua_State *L)
{
	struct lp_run *run;
	check_shown(L, &run);
	lua_pushvalue(L, lua_upvalueindex(2));  /* l_fields_next */
	lua_pushvalue(L, 1);
	lua_pushnil(L);
	return 3;
}

static int l_fields_newindex(lua_State *L)
{
	return luaL_error(L, "s.args is read-only (field '%s')", LP_SHOW(luaL_checkstring(L, 2)));
}

static int l_fields_tostring(lua_State *L)
{
	struct lp_tpview *tv = lua_touserdata(L, lua_upvalueindex(1));
	struct lp_run *run = lp_get_run(L);
	if (run->view.rec && run->vm.tp_shown == tv)
		lua_pushfstring(L, LP_FIELDS_MT " (%s:%s)", tv->fmt->system, tv->fmt->name);
	else
		lua_pushliteral(L, LP_FIELDS_MT " (expired)");
	return 1;
}

/* The metamethods of an event's s.args: upvalue 1 its struct lp_tpview,
 * 2 the iterator of pairs (l_fields_next, upvalue 1 the same). */
static const luaL_Reg fields_fns[] = {
	{ "__index", l_fields_index }, { "__tostring", l_fields_tostring },
	{ "__newindex", l_fields_newindex }, { "__pairs", l_fields_pairs }, { NULL, NULL },
};

/* The metatable of an event's table, for the table on top: one per event
 * (its format), so not a class of the registry's (lclass.h), but named
 * in their style. */
static void fields_meta(lua_State *L, struct lp_tpview *tv)
{
	lua_createtable(L, 0, 6);
	lua_pushlightuserdata(L, tv);
	lua_pushlightuserdata(L, tv);
	lua_pushcclosure(L, l_fields_next, 1);
	luaL_setfuncs(L, fields_fns, 2);
	lua_pushliteral(L, LP_FIELDS_MT);       /* getmetatable gives this, not the table */
	lua_setfield(L, -2, "__metatable");
	lua_setmetatable(L, -2);
}

struct lp_tpview *lp_trace_view_new(lua_State *L, const struct lp_tp_format *fmt)
{
	struct lp_tpview *tv = calloc(1, sizeof *tv);
	if (!tv || !(tv->hot = calloc(fmt->nr_fields ? fmt->nr_fields : 1, sizeof *tv->hot))) {
		free(tv);
		return NULL;
	}
	tv->fmt = fmt;
	char event[160];
	snprintf(event, sizeof event, "%s:%s", fmt->system ? fmt->system : "", fmt->name ? fmt->name : "");
	tv->has_argv = lp_capture_exec_event(event);
	tv->ret = tv->has_argv ? find(fmt, "ret") : -1;
	lua_createtable(L, (int)fmt->nr_fields, 0);     /* the names */
	for (size_t i = 0; i < fmt->nr_fields; i++) {
		lua_pushstring(L, fmt->fields[i].name);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	tv->ref_k = luaL_ref(L, LUA_REGISTRYINDEX);
	lua_createtable(L, 0, (int)fmt->nr_fields);
	fields_meta(L, tv);
	tv->ref_t = luaL_ref(L, LUA_REGISTRYINDEX);
	return tv;
}

void lp_trace_view_free(struct lp_tpview *tv)
{
	if (tv)
		free(tv->hot);
	free(tv);
}

void lp_trace_leave(struct lp_run *run)
{
	struct lp_tpview *tv = run->vm.tp_shown;
	if (!tv)
		return;
	lua_State *L = run->vm.L;
	if (tv->filled)
		fill(L, tv, NULL);
	lua_pushnil(L);
	lua_replace(L, LP_SLOT_FIELDS);
	lua_pushnil(L);
	lua_replace(L, LP_SLOT_FKEYS);
	run->vm.tp_shown = NULL;
}

void lp_trace_unwound(struct lp_run *run)
{
	struct lp_tpview *tv = run->vm.tp_shown;
	if (!tv)
		return;
	lua_State *L = run->vm.L;
	lua_rawgeti(L, LUA_REGISTRYINDEX, tv->ref_t);
	lua_replace(L, LP_SLOT_FIELDS);
	lua_rawgeti(L, LUA_REGISTRYINDEX, tv->ref_k);
	lua_replace(L, LP_SLOT_FKEYS);
	lp_trace_leave(run);
}

/* Makes tv the s.args shown (lp_trace_push_fields): its table and names
 * in their slots. */
static void show(struct lp_run *run, struct lp_tpview *tv)
{
	lua_State *L = run->vm.L;
	lp_trace_leave(run);
	lua_rawgeti(L, LUA_REGISTRYINDEX, tv->ref_t);
	lua_replace(L, LP_SLOT_FIELDS);
	lua_rawgeti(L, LUA_REGISTRYINDEX, tv->ref_k);
	lua_replace(L, LP_SLOT_FKEYS);
	run->vm.tp_shown = tv;
}

/* Whether the Lua state has room under --script-memory for what a fill
 * may allocate (strings it makes, the table's keys again after a
 * collection).  The fill runs outside any protected call, where running
 * out would abort; with less room, the hot fields are left to __index,
 * inside the handler's call, where it is the call's error. */
static bool fill_room(const struct lp_run *run)
{
	const struct lp_guard *g = &run->vm.guard;
	return !g->limit || g->limit - g->bytes >= FILL_HEADROOM;
}

void lp_trace_enter(struct lp_run *run, struct lp_tpview *tv)
{
	const struct lp_sample *s = &run->view.rec->u.sample;
	if (!tv || !s->raw) {
		lp_trace_leave(run);
		return;
	}
	if (tv != run->vm.tp_shown)
		show(run, tv);
	if (tv->nr_hot || tv->argv_set)
		fill(run->vm.L, tv, fill_room(run) ? s : NULL);
}

void lp_trace_push_fields(lua_State *L, struct lp_run *run)
{
	if (run->vm.tp_shown)
		lua_rawgeti(L, LUA_REGISTRYINDEX, run->vm.tp_shown->ref_t);
	else
		lua_pushnil(L);
}

void lp_trace_push_raw(lua_State *L, struct lp_run *run)
{
	const struct lp_sample *s = &run->view.rec->u.sample;
	const struct lp_event_spec *e = run->view.spec;
	/* a probe made a tracefs event (evdyn.c) has the kernel's record of
	 * it: not a tracepoint's, and not there when the probe is the PMU's */
	if (s->raw && !(e && e->probe))
		lua_pushlstring(L, s->raw, s->raw_size);
	else
		lua_pushnil(L);
}

/* luaprof.syscall_name(nr [, "audit"]): the kernel's name of call nr, or
 * with "audit" libaudit's (perf's Python scripts'), or nil. */
int lp_l_syscall_name(lua_State *L)
{
	static const char *const tables[] = { "kernel", "audit", NULL };
	long nr = (long)luaL_checkinteger(L, 1);
	const char *name = luaL_checkoption(L, 2, "kernel", tables) ? lp_syscall_audit_name(nr)
								    : lp_syscall_name(nr);
	name ? (void)lua_pushstring(L, name) : lua_pushnil(L);
	return 1;
}

/* luaprof.errno_name(nr): "ENOENT" for 2 (or -2, as a system call returns
 * it), or nil. */
int lp_l_errno_name(lua_State *L)
{
	lua_Integer nr = luaL_checkinteger(L, 1);
	const char *name = nr >= -4096 && nr <= 4096 ? lp_errno_name((int)(nr < 0 ? -nr : nr)) : NULL;
	name ? (void)lua_pushstring(L, name) : lua_pushnil(L);
	return 1;
}

int lp_l_syscall_nr(lua_State *L)
{
	long nr = lp_syscall_nr(luaL_checkstring(L, 1));
	nr >= 0 ? lua_pushinteger(L, nr) : lua_pushnil(L);
	return 1;
}
