/*
 * lclass.c - the classes of the bindings' objects (lclass.h): one way to
 * make a metatable, to make an object and to check one, so every binding
 * names its types alike and says a wrong or closed argument alike,
 * through luaL_argerror, which names the user's argument.
 */
#include <stdarg.h>
#include <string.h>

#include "lclass.h"

void lp_class_new(lua_State *L, const struct lp_class *c, int nup)
{
	if (!luaL_newmetatable(L, c->name)) {   /* sets __name */
		lua_pop(L, nup + 1);
		return;
	}
	lua_insert(L, -(nup + 1));              /* the metatable below the upvalues */
	if (c->methods) {
		lua_newtable(L);
		for (int i = 0; i < nup; i++)
			lua_pushvalue(L, -(nup + 1));
		luaL_setfuncs(L, c->methods, nup);
		lua_setfield(L, -(nup + 2), "__index");
	}
	if (c->meta)
		luaL_setfuncs(L, c->meta, nup); /* pops the upvalues */
	else
		lua_pop(L, nup);
	lua_pop(L, 1);
}

void *lp_class_alloc(lua_State *L, const struct lp_class *c, size_t size, int nuv)
{
	void *p = lua_newuserdatauv(L, size, nuv);
	memset(p, 0, size);
	luaL_setmetatable(L, c->name);
	return p;
}

void *lp_class_test(lua_State *L, int idx, const struct lp_class *c)
{
	return luaL_testudata(L, idx, c->name);
}

void *lp_class_check_any(lua_State *L, int idx, const struct lp_class *c)
{
	void *p = luaL_testudata(L, idx, c->name);
	if (!p)
		luaL_typeerror(L, idx, c->name);
	return p;
}

void *lp_class_check(lua_State *L, int idx, const struct lp_class *c)
{
	void *p = lp_class_check_any(L, idx, c);
	if (c->closable && !*(void **)((char *)p + c->handle))
		lp_argerror(L, idx, "%s is closed", c->name);
	return p;
}

int lp_argerror(lua_State *L, int arg, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	const char *msg = lua_pushvfstring(L, fmt, ap);
	va_end(ap);
	return luaL_argerror(L, arg, msg);
}

/* "KEY: T expected, got U" of argument arg, as luaL_typeerror says it. */
static int field_typeerror(lua_State *L, int idx, int arg, const char *key, const char *t)
{
	const char *got = luaL_getmetafield(L, idx, "__name") == LUA_TSTRING ?
			  lua_tostring(L, -1) : luaL_typename(L, idx);
	return lp_argerror(L, arg, "%s: %s expected, got %s", key, t, got);
}

void lp_checkfield_type(lua_State *L, int idx, int arg, const char *key, int t)
{
	if (lua_type(L, idx) != t)
		field_typeerror(L, idx, arg, key, lua_typename(L, t));
}

const char *lp_checkfield_string(lua_State *L, int idx, int arg, const char *key)
{
	const char *s = lua_tostring(L, idx);
	if (!s)
		field_typeerror(L, idx, arg, key, lua_typename(L, LUA_TSTRING));
	return s;
}

lua_Integer lp_checkfield_integer(lua_State *L, int idx, int arg, const char *key)
{
	int ok;
	lua_Integer v = lua_tointegerx(L, idx, &ok);
	if (!ok && lua_isnumber(L, idx))
		lp_argerror(L, arg, "%s: number has no integer representation", key);
	else if (!ok)
		field_typeerror(L, idx, arg, key, lua_typename(L, LUA_TNUMBER));
	return v;
}

lua_Number lp_checkfield_number(lua_State *L, int idx, int arg, const char *key)
{
	int ok;
	lua_Number v = lua_tonumberx(L, idx, &ok);
	if (!ok)
		field_typeerror(L, idx, arg, key, lua_typename(L, LUA_TNUMBER));
	return v;
}

int lp_checkfield_option(lua_State *L, int idx, int arg, const char *key, const char *def,
			 const char *const list[])
{
	const char *name = def && lua_isnil(L, idx) ? def : lp_checkfield_string(L, idx, arg, key);
	for (int i = 0; list[i]; i++)
		if (!strcmp(list[i], name))
			return i;
	return lp_argerror(L, arg, "%s: invalid option '%s'", key, name);
}

int lp_nomem(lua_State *L)
{
	return luaL_error(L, "out of memory");
}
