/*
 * ltrace.c - tracepoint samples in Lua: s.fields and s.raw, and the system
 * call table (luaprof.syscall_name, luaprof.syscall_nr).
 *
 * s.fields is a "luaprof.Fields" view, read like a table: f.prev_pid,
 * pairs(f).  Like the Sample view it is one object per run, pointed at the
 * current sample only during the call, and it decodes a field when the
 * field is read, from the event's format (settled once per event by
 * run.c): no table is built per sample, so reading three fields of a
 * sched_switch costs three fields (a table of all seven cost twice the
 * whole replay).  Integers are exact Lua integers, signed or not as the
 * format says; char arrays and __data_loc/__rel_loc char[] are strings up
 * to their NUL; other arrays are Lua arrays (made when read); pointers are
 * integers; common_* fields are left out, as is a field whose data does not
 * lie inside the sample (it reads as nil).
 */
#include <stdint.h>
#include <string.h>

#include <lauxlib.h>

#include "lp.h"
#include "luaprof/trace.h"

#define LP_FIELDS_MT "luaprof.Fields"

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

/* The run the Fields view belongs to: one per process, like the view. */
static struct lp_run *fields_run;

/* The run of the Fields view at argument 1, checked to be in a call of a
 * tracepoint sample. */
static struct lp_run *check_fields(lua_State *L)
{
	struct lp_run *run = fields_run;
	if (lua_touserdata(L, 1) != run->fields_ud)
		luaL_typeerror(L, 1, LP_FIELDS_MT);
	if (!run->view.rec || !run->view.fmt)
		luaL_error(L, "s.fields used outside on_sample: copy the fields you need "
			      "into your own table while on_sample runs");
	return run;
}

/* The index of the non-common field called name, or -1. */
static int find(const struct lp_tp_format *fmt, const char *name)
{
	for (size_t i = 0; name && i < fmt->nr_fields; i++)
		if (!fmt->fields[i].common && !strcmp(fmt->fields[i].name, name))
			return (int)i;
	return -1;
}

/* find() through a small cache by the key string's address: Lua interns
 * short strings, so a script's "prev_pid" is the same object at every
 * sample.  Each cached key is kept alive in the anchor table (the Fields
 * view's user value), so its address cannot be taken by another string
 * while it is in the cache, and a hit needs no string comparison. */
static int find_cached(lua_State *L, const struct lp_tp_format *fmt)
{
	static struct { const char *key; const struct lp_tp_format *fmt; int idx; } cache[64];
	const char *name = lua_tostring(L, 2);
	size_t h = ((uintptr_t)name >> 4 ^ (uintptr_t)fmt >> 6) & 63;
	if (name && cache[h].key == name && cache[h].fmt == fmt)
		return cache[h].idx;
	int i = find(fmt, name);
	if (i >= 0) {
		lua_getiuservalue(L, 1, 1);
		lua_pushvalue(L, 2);
		lua_rawseti(L, -2, (lua_Integer)h + 1);
		lua_pop(L, 1);
		cache[h].key = name;
		cache[h].fmt = fmt;
		cache[h].idx = i;
	}
	return i;
}

static int l_fields_index(lua_State *L)
{
	struct lp_run *run = check_fields(L);
	const struct lp_sample *s = &run->view.rec->u.sample;
	int i = find_cached(L, run->view.fmt);
	if (i < 0 || !push_field(L, &run->view.fmt->fields[i], s->raw, s->raw_size))
		lua_pushnil(L);
	return 1;
}

/* The iterator of pairs(s.fields): the field after key, in format order. */
static int l_fields_next(lua_State *L)
{
	struct lp_run *run = check_fields(L);
	const struct lp_tp_format *fmt = run->view.fmt;
	const struct lp_sample *s = &run->view.rec->u.sample;
	size_t i = 0;
	if (!lua_isnil(L, 2)) {
		int k = find(fmt, lua_tostring(L, 2));
		if (k < 0)
			return luaL_error(L, "invalid key to 'next' of s.fields");
		i = (size_t)k + 1;
	}
	for (; i < fmt->nr_fields; i++) {
		const struct lp_tp_field *f = &fmt->fields[i];
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
	check_fields(L);
	lua_pushcfunction(L, l_fields_next);
	lua_pushvalue(L, 1);
	lua_pushnil(L);
	return 3;
}

static int l_fields_newindex(lua_State *L)
{
	return luaL_error(L, "s.fields is read-only (field '%s')", luaL_checkstring(L, 2));
}

static int l_fields_tostring(lua_State *L)
{
	struct lp_run *run = fields_run;
	const struct lp_tp_format *f = run->view.rec ? run->view.fmt : NULL;
	if (f)
		lua_pushfstring(L, "luaprof.Fields (%s:%s)", f->system, f->name);
	else
		lua_pushliteral(L, "luaprof.Fields (expired)");
	return 1;
}

static const luaL_Reg fields_meta[] = {
	{ "__index", l_fields_index },
	{ "__pairs", l_fields_pairs },
	{ "__newindex", l_fields_newindex },
	{ "__tostring", l_fields_tostring },
	{ NULL, NULL },
};

void lp_trace_open(lua_State *L, struct lp_run *run)
{
	fields_run = run;
	run->fields_ud = lua_newuserdatauv(L, 1, 1);
	lua_createtable(L, 64, 0);                      /* find_cached's anchors */
	lua_setiuservalue(L, -2, 1);
	luaL_newmetatable(L, LP_FIELDS_MT);
	luaL_setfuncs(L, fields_meta, 0);
	lua_setmetatable(L, -2);
	run->ref_fields = luaL_ref(L, LUA_REGISTRYINDEX);
}

void lp_trace_push_fields(lua_State *L, struct lp_run *run)
{
	if (run->view.fmt && run->view.rec->u.sample.raw)
		lua_rawgeti(L, LUA_REGISTRYINDEX, run->ref_fields);
	else
		lua_pushnil(L);
}

void lp_trace_push_raw(lua_State *L, struct lp_run *run)
{
	const struct lp_sample *s = &run->view.rec->u.sample;
	if (s->raw)
		lua_pushlstring(L, s->raw, s->raw_size);
	else
		lua_pushnil(L);
}

int lp_l_syscall_name(lua_State *L)
{
	const char *name = lp_syscall_name((long)luaL_checkinteger(L, 1));
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
