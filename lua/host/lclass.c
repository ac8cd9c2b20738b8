/*
 * lclass.c - the classes of the bindings' objects (lclass.h): one way to
 * make a metatable, to make an object and to check one, so every binding
 * names its types alike and says a wrong or closed argument alike,
 * through luaL_argerror, which names the user's argument.
 */
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
	if (c->closable && !*(void **)p)
		luaL_argerror(L, idx, lua_pushfstring(L, "%s is closed", c->name));
	return p;
}
