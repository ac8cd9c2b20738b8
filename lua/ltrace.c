/*
 * ltrace.c - tracepoint samples in Lua: s.fields and s.raw, and the system
 * call table (luaprof.syscall_name, luaprof.syscall_nr).
 *
 * s.fields is built when first read in a call (lsample.c caches it for the
 * rest of the call), from the event's format, which the loop settled once
 * (run.c): integers are exact Lua integers, signed or not as the format
 * says; char arrays and __data_loc/__rel_loc char[] are strings up to
 * their NUL; other arrays are Lua arrays; pointers are integers; common_*
 * fields are left out.  A field whose data does not lie inside the sample
 * is left out too.
 */
#include <lauxlib.h>

#include "lp.h"
#include "luaprof/trace.h"

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

void lp_trace_push_fields(lua_State *L, struct lp_run *run)
{
	const struct lp_tp_format *fmt = run->view.fmt;
	const struct lp_sample *s = &run->view.rec->u.sample;
	if (!fmt || !s->raw) {
		lua_pushnil(L);
		return;
	}
	lua_createtable(L, 0, (int)fmt->nr_fields);
	for (size_t i = 0; i < fmt->nr_fields; i++) {
		const struct lp_tp_field *f = &fmt->fields[i];
		if (!f->common && push_field(L, f, s->raw, s->raw_size))
			lua_setfield(L, -2, f->name);
	}
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

int lp_l_syscall_nr(lua_State *L)
{
	long nr = lp_syscall_nr(luaL_checkstring(L, 1));
	nr >= 0 ? lua_pushinteger(L, nr) : lua_pushnil(L);
	return 1;
}
