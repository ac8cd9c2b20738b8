/*
 * lclass.h - internal to lua/host: the one way a binding makes a class of
 * Lua objects and checks them (lclass.c), as Lua's liolib.c does for its
 * files: a metatable in the registry named "luaprof.MODULE.Type" (its
 * __name, which type errors show), the methods as its __index table, the
 * metamethods beside them.
 */
#ifndef LP_LCLASS_H
#define LP_LCLASS_H

#include <stdbool.h>
#include <stddef.h>

#include <lua.h>
#include <lauxlib.h>

/* The one naming style of the classes' metatables. */
#define LP_CLASS_NAME(module, type) "luaprof." module "." type

struct lp_class {
	const char *name;               /* LP_CLASS_NAME(...) */
	const luaL_Reg *methods;        /* the __index table, or NULL for none */
	const luaL_Reg *meta;           /* __gc, __close, __tostring, __len ...; or NULL */
	/* the object holds a pointer, at offset handle (offsetof), that its
	 * close (or __gc) sets to NULL: lp_class_check refuses it then */
	bool closable;
	size_t handle;
};

/* Makes the metatable of c in the registry (once per state: a second call
 * makes nothing): __name, the metamethods and __index, a table of the
 * methods.  The nup values on the top of the stack are upvalues of every
 * function, as luaL_setfuncs takes them; they are popped.  Leaves nothing
 * on the stack. */
void lp_class_new(lua_State *L, const struct lp_class *c, int nup);

/* Pushes a new full userdata of c: size bytes, zeroed, nuv user values,
 * c's metatable (made by lp_class_new before).  Returns its memory. */
void *lp_class_alloc(lua_State *L, const struct lp_class *c, size_t size, int nuv);

/* The object of c at idx, as luaL_checkudata: any other value raises a
 * type error at the user's argument ("bad argument #1 to 'add'
 * (luaprof.hist.Hist expected, got nil)"); a closed one (closable)
 * raises "bad argument #1 to 'add' (luaprof.push.Sender is closed)". */
void *lp_class_check(lua_State *L, int idx, const struct lp_class *c);

/* The same, a closed object accepted: for the close itself and __gc. */
void *lp_class_check_any(lua_State *L, int idx, const struct lp_class *c);

/* The object of c at idx, or NULL for any other value (closed or not). */
void *lp_class_test(lua_State *L, int idx, const struct lp_class *c);

/* The one way a binding says an argument is wrong: luaL_argerror with a
 * formatted message (lua_pushfstring's formats), which names the
 * function and the user's argument ("bad argument #1 to 'setup' (freq
 * must be a positive integer)"; for a method, "calling 'add' on bad
 * self" when arg is 1).  Does not return. */
int lp_argerror(lua_State *L, int arg, const char *fmt, ...);

/* The one error of a binding whose own allocation (outside Lua's) failed:
 * "out of memory", with the script's line.  Does not return. */
int lp_nomem(lua_State *L);

/* Checks of a value inside a table argument (an option, an element): the
 * value at idx, named key ("period", "labels[2]") in the message, is
 * part of argument arg, whose position the error gives ("bad argument #1
 * to 'pprof' (labels: table expected, got number)"), where luaL_check*
 * on a stack slot would name a position the user never wrote.
 * lp_checkfield_type checks its type is t; _string, _integer and
 * _number return it as such; _option returns its index in list (def
 * when the value is nil; def NULL: required), as luaL_checkoption. */
void lp_checkfield_type(lua_State *L, int idx, int arg, const char *key, int t);
const char *lp_checkfield_string(lua_State *L, int idx, int arg, const char *key);
lua_Integer lp_checkfield_integer(lua_State *L, int idx, int arg, const char *key);
lua_Number lp_checkfield_number(lua_State *L, int idx, int arg, const char *key);
int lp_checkfield_option(lua_State *L, int idx, int arg, const char *key, const char *def,
			 const char *const list[]);

#endif
