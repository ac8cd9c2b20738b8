/*
 * ljson.c - luaprof.json: encoding Lua values as JSON.
 *
 *   luaprof.json.encode(value [, { sort_keys = true, indent = 2 }]) -> string
 *   luaprof.json.array(t)     marks t as an array (so {} encodes as [])
 *   luaprof.json.null         encodes as null (nil cannot sit in a table)
 *
 * Integers are written exactly (all 64 bits), other numbers the shortest
 * way that reads back the same; NaN and infinities are refused.  A table
 * whose keys are exactly 1..n (n > 0) is an array, any other an object
 * whose keys must be strings or integers (written as strings).  Strings
 * are escaped by lp_json_string (invalid UTF-8 becomes U+FFFD).  Object
 * keys come in table order, or sorted (byte order) with sort_keys, so the
 * same value always gives the same text.  Cycles and nesting deeper than
 * 200 are errors.
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "lclass.h"
#include "linit.h"
#include "lpaux.h"
#include "luaprof/buf.h"

#define ARRAY_MT LP_CLASS_NAME("json", "Array")
#define MAX_DEPTH 200

struct enc {
	lua_State *L;
	struct lp_buf *b;
	bool sort_keys;
	int indent;
	int seen;               /* stack index of the table of tables being encoded */
};

static void value(struct enc *e, int idx, int depth);

static void newline(struct enc *e, int depth)
{
	if (!e->indent)
		return;
	lp_buf_add(e->b, "\n", 1);
	for (int i = 0; i < depth * e->indent; i++)
		lp_buf_add(e->b, " ", 1);
}

static void number(struct enc *e, int idx)
{
	if (lua_isinteger(e->L, idx)) {
		lp_buf_printf(e->b, "%lld", (long long)lua_tointeger(e->L, idx));
		return;
	}
	double d = lua_tonumber(e->L, idx);
	if (!isfinite(d))
		lp_argerror(e->L, 1, "NaN and infinities cannot be written in JSON");
	lp_json_double(e->b, d);
}

/* The array length of the table at idx, or -1 when it is an object. */
static lua_Integer array_len(lua_State *L, int idx)
{
	if (luaL_getmetafield(L, idx, "__name") != LUA_TNIL) {
		bool arr = !strcmp(lua_tostring(L, -1) ? lua_tostring(L, -1) : "", ARRAY_MT);
		lua_pop(L, 1);
		if (arr)
			return (lua_Integer)lua_rawlen(L, idx);
	}
	lua_Integer n = (lua_Integer)lua_rawlen(L, idx), keys = 0;
	if (n == 0)
		return -1;
	lua_pushnil(L);
	while (lua_next(L, idx)) {
		lua_pop(L, 1);
		keys++;
	}
	return keys == n ? n : -1;
}

static void array(struct enc *e, int idx, lua_Integer n, int depth)
{
	lp_buf_add(e->b, "[", 1);
	for (lua_Integer i = 1; i <= n; i++) {
		if (i > 1)
			lp_buf_add(e->b, ",", 1);
		newline(e, depth + 1);
		lua_rawgeti(e->L, idx, i);
		value(e, lua_gettop(e->L), depth + 1);
		lua_pop(e->L, 1);
	}
	if (n)
		newline(e, depth);
	lp_buf_add(e->b, "]", 1);
}

/* Pushes the object's key names (an array, sorted when asked) and a table
 * name -> key; returns how many. */
static int keys_of(struct enc *e, int idx)
{
	lua_State *L = e->L;
	int n = 0;
	lua_newtable(L);
	lua_newtable(L);
	lua_pushnil(L);
	while (lua_next(L, idx)) {
		lua_pop(L, 1);
		if (lua_type(L, -1) == LUA_TSTRING)
			lua_pushvalue(L, -1);
		else if (lua_isinteger(L, -1))
			lua_pushfstring(L, "%I", (LUAI_UACINT)lua_tointeger(L, -1));
		else
			lp_argerror(L, 1, "an object key must be a string or an integer, "
				    "not %s", luaL_typename(L, -1));
		lua_pushvalue(L, -1);
		if (lua_rawget(L, -4) != LUA_TNIL)
			lp_argerror(L, 1, "keys %s and \"%s\" are the same in JSON",
				    lua_tostring(L, -2), lua_tostring(L, -2));
		lua_pop(L, 1);
		lua_pushvalue(L, -1);
		lua_rawseti(L, -5, ++n);        /* names[n] = name */
		lua_pushvalue(L, -2);
		lua_rawset(L, -4);              /* orig[name] = key */
	}
	if (e->sort_keys && n > 1)
		lp_sort_sequence(L, -2);
	return n;
}

static void object(struct enc *e, int idx, int depth)
{
	lua_State *L = e->L;
	int n = keys_of(e, idx), orig = lua_gettop(L), names = orig - 1;
	lp_buf_add(e->b, "{", 1);
	for (int i = 1; i <= n; i++) {
		if (i > 1)
			lp_buf_add(e->b, ",", 1);
		newline(e, depth + 1);
		size_t kn;
		lua_rawgeti(L, names, i);
		const char *k = lua_tolstring(L, -1, &kn);
		lp_json_string(e->b, k, kn);
		lp_buf_add(e->b, e->indent ? ": " : ":", e->indent ? 2 : 1);
		lua_rawget(L, orig);
		lua_rawget(L, idx);
		value(e, lua_gettop(L), depth + 1);
		lua_pop(L, 1);
	}
	if (n)
		newline(e, depth);
	lp_buf_add(e->b, "}", 1);
	lua_pop(L, 2);
}

static void table(struct enc *e, int idx, int depth)
{
	lua_State *L = e->L;
	if (depth >= MAX_DEPTH)
		lp_argerror(L, 1, "nested deeper than %d tables", MAX_DEPTH);
	/* each level keeps a few slots (the table, its key names) below the
	 * next: a C function is given only LUA_MINSTACK of them */
	luaL_checkstack(L, 16, "json.encode: nested too deep");
	lua_pushvalue(L, idx);
	if (lua_rawget(L, e->seen) != LUA_TNIL)
		lp_argerror(L, 1, "a table contains itself");
	lua_pop(L, 1);
	lua_pushvalue(L, idx);
	lua_pushboolean(L, 1);
	lua_rawset(L, e->seen);
	lua_Integer n = array_len(L, idx);
	if (n >= 0)
		array(e, idx, n, depth);
	else
		object(e, idx, depth);
	lua_pushvalue(L, idx);
	lua_pushnil(L);
	lua_rawset(L, e->seen);
}

static void value(struct enc *e, int idx, int depth)
{
	lua_State *L = e->L;
	size_t n;
	const char *s;
	switch (lua_type(L, idx)) {
	case LUA_TNIL: lp_buf_add(e->b, "null", 4); break;
	case LUA_TBOOLEAN:
		lua_toboolean(L, idx) ? lp_buf_add(e->b, "true", 4) : lp_buf_add(e->b, "false", 5);
		break;
	case LUA_TNUMBER: number(e, idx); break;
	case LUA_TSTRING:
		s = lua_tolstring(L, idx, &n);
		lp_json_string(e->b, s, n);
		break;
	case LUA_TTABLE: table(e, idx, depth); break;
	case LUA_TLIGHTUSERDATA:
		if (!lua_touserdata(L, idx)) {
			lp_buf_add(e->b, "null", 4);
			break;
		}
		/* fall through */
	default:
		lp_argerror(L, 1, "cannot encode a %s", luaL_typename(L, idx));
	}
	if (e->b->err)
		lp_nomem(L);
}

static const struct lp_class buffer_class;

static int box_gc(lua_State *L)
{
	lp_buf_free(lp_class_check_any(L, 1, &buffer_class));
	return 0;
}

/* The encoder's output, freed by __gc should an error cut the encoding. */
static const luaL_Reg buffer_meta[] = { { "__gc", box_gc }, { NULL, NULL } };
static const struct lp_class buffer_class = {
	.name = LP_CLASS_NAME("json", "Buffer"), .meta = buffer_meta,
};

/* json.array's tables: a mark, no method. */
static const struct lp_class array_class = { .name = ARRAY_MT };

static int l_encode(lua_State *L)
{
	luaL_checkany(L, 1);
	struct enc e = { .L = L };
	if (lua_istable(L, 2)) {
		e.sort_keys = lua_getfield(L, 2, "sort_keys") != LUA_TNIL && lua_toboolean(L, -1);
		lua_getfield(L, 2, "indent");
		e.indent = lua_isnil(L, -1) ? 0 : (int)lp_checkfield_integer(L, -1, 2, "indent");
		luaL_argcheck(L, e.indent >= 0 && e.indent <= 16, 2, "indent is 0 to 16");
		lua_pop(L, 2);
	}
	lua_settop(L, 1);
	e.b = lp_class_alloc(L, &buffer_class, sizeof *e.b, 0);
	lua_newtable(L);
	e.seen = lua_gettop(L);
	value(&e, 1, 0);
	lua_pushlstring(L, e.b->p ? e.b->p : "", e.b->len);
	lp_buf_free(e.b);
	return 1;
}

static int l_array(lua_State *L)
{
	if (lua_isnoneornil(L, 1))
		lua_newtable(L);
	luaL_checktype(L, 1, LUA_TTABLE);
	lua_settop(L, 1);
	luaL_setmetatable(L, ARRAY_MT);
	return 1;
}

static const luaL_Reg funcs[] = {
	{ "encode", l_encode }, { "array", l_array }, { NULL, NULL },
};

int luaopen_luaprof_json(lua_State *L)
{
	lp_class_new(L, &buffer_class, 0);
	lp_class_new(L, &array_class, 0);
	luaL_newlib(L, funcs);
	lua_pushlightuserdata(L, NULL);
	lua_setfield(L, -2, "null");
	return 1;
}
