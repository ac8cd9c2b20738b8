/*
 * laggmap.c - the one-liners' maps (core/agg's lp_aggmap) for their front
 * end (lua/helpers/oneliner.lua), through the table luaprof -x hands it
 * (the front end's argument, lagg.c); no public module.
 *
 *   local maps = agg.maps()                the run's maps, by name
 *   local m = maps:map(NAME, OP [, MIN, MAX, STEP])
 *                                          NAME's map, made when new (OP one
 *                                          of count sum min max avg stats
 *                                          hist lhist; lhist's buckets)
 *   local count = maps:adder(OP, NAME)     the program's count(...): it adds
 *                                          to the map a first argument
 *                                          "@x" names, else to NAME's
 *   m:add(v, k...)                         (count: m:add(k...)) one value
 *   maps:text(blank)                       every map that holds entries, by
 *                                          name, as bpftrace prints them
 *                                          (after a blank line when blank),
 *                                          then cleared
 *
 * A value is an integer (a float with an integral value is one); a key
 * part an integer or a string (a boolean is its name); a nil one leaves
 * the call out.  A mistake (a map of one function taking another's, a
 * key of another shape than the map's, a value that is no integer) is a
 * Lua error, which the run says at the program's line (vm.c).  The C
 * aggregations (lagg.c's agg.new{ map = m }) add to the same maps.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "lclass.h"
#include "lp.h"
#include "luaprof/aggmap.h"
#include "luaprof/buf.h"
#include "luaprof/luaprof.h"

#define LHIST_MAX 1000          /* bpftrace's lhist buckets at most */

static const char *const ops[] = { "count", "sum", "min", "max", "hist", "avg", "stats", "lhist", NULL };
static const char *const values[] = { "count's value", "sum's value", "min's value", "max's value",
				      "hist's value", "avg's value", "stats's value", "lhist's value" };

struct map {
	struct lp_aggmap *m;
};

static const struct lp_class map_class, maps_class;

struct lp_aggmap *lp_l_checkaggmap(lua_State *L, int idx)
{
	struct map *u = lp_class_check(L, idx, &map_class);
	return u->m;
}

/* The name of the map at idx (its user value). */
static const char *map_name(lua_State *L, int idx)
{
	lua_getiuservalue(L, idx, 1);
	const char *name = lua_tostring(L, -1);
	lua_pop(L, 1);
	return name ? name : "@";
}

/* ------------------------------------------------------------ the maps */

/* The lhist buckets min, max, step, or an error naming where they came
 * from. */
static struct lp_lhist lhist_of(lua_State *L, lua_Integer min, lua_Integer max, lua_Integer step)
{
	struct lp_lhist lh;
	int rc = lp_lhist_init(&lh, min, max, step, LHIST_MAX);
	if (rc == -E2BIG)
		luaL_error(L, "lhist(v, %I, %I, %I) has more than %d buckets (bpftrace's limit)", min, max, step,
			   LHIST_MAX);
	else if (rc)
		luaL_error(L, "lhist(v, %I, %I, %I): min must be below max and step at least 1", min, max, step);
	return lh;
}

/* An error unless map name's buckets (have) are lh. */
static void same_lhist(lua_State *L, const char *name, const struct lp_lhist *have, const struct lp_lhist *lh)
{
	if (have->min != lh->min || have->max != lh->max || have->step != lh->step)
		luaL_error(L, "%s holds lhist(v, %I, %I, %I): it cannot take lhist(v, %I, %I, %I) too", name,
			   (lua_Integer)have->min, (lua_Integer)have->max, (lua_Integer)have->step,
			   (lua_Integer)lh->min, (lua_Integer)lh->max, (lua_Integer)lh->step);
}

/* Pushes the map called name (made when new, of op, lh its lhist's
 * buckets) from the maps' table at t; an error when it holds another
 * function's results or other buckets. */
static struct map *get_map(lua_State *L, int t, const char *name, int op, const struct lp_lhist *lh)
{
	t = lua_absindex(L, t);
	if (lua_getfield(L, t, name) == LUA_TUSERDATA) {
		struct map *u = lua_touserdata(L, -1);
		if ((int)lp_aggmap_op(u->m) != op)
			luaL_error(L, "%s holds %s(): it cannot take %s() too", name, ops[lp_aggmap_op(u->m)], ops[op]);
		if (op == LP_AGG_LHIST)
			same_lhist(L, name, lp_aggmap_lhist(u->m), lh);
		return u;
	}
	lua_pop(L, 1);
	struct map *u = lp_class_alloc(L, &map_class, sizeof *u, 1);
	lua_pushstring(L, name);
	lua_setiuservalue(L, -2, 1);
	if (!(u->m = lp_aggmap_new((unsigned)op, lh)))
		luaL_error(L, "cannot make the map %s: %s", name, strerror(errno));
	lua_pushvalue(L, -1);
	lua_setfield(L, t, name);
	return u;
}

/* The integer at idx for what ("hist's value", "lhist's min"): a float
 * with an integral value is one; anything else an error. */
static lua_Integer integer_arg(lua_State *L, int idx, const char *what)
{
	int ok;
	lua_Integer v = lua_tointegerx(L, idx, &ok);
	if (ok && lua_type(L, idx) == LUA_TNUMBER)
		return v;
	if (lua_type(L, idx) == LUA_TSTRING)
		luaL_error(L, "%s \"%s\" is a string: it must be an integer", what, lua_tostring(L, idx));
	luaL_error(L, "%s %s is not an integer", what, luaL_tolstring(L, idx, NULL));
	return 0;
}

/* Key part idx as the map takes it; false for nil (the call is left out). */
static bool key_arg(lua_State *L, int idx, const char *op, struct lp_aggkey *k)
{
	int ok;
	k->str = NULL;
	switch (lua_type(L, idx)) {
	case LUA_TNIL:
		return false;
	case LUA_TSTRING:
		k->str = lua_tolstring(L, idx, &k->len);
		return true;
	case LUA_TBOOLEAN:
		k->str = lua_toboolean(L, idx) ? "true" : "false";
		k->len = strlen(k->str);
		return true;
	case LUA_TNUMBER:
		k->num = lua_tointegerx(L, idx, &ok);
		if (ok)
			return true;
		/* fall through */
	default:
		luaL_error(L, "%s's key %s is not an integer or a string (bpftrace's keys are): "
			   "math.floor(x) or tostring(x) makes one", op, luaL_tolstring(L, idx, NULL));
		return false;
	}
}

/* The error of lp_aggmap_add's rc for map u (at idx) taking op's key
 * parts from stack index k0 on (nr of them). */
static int shape_error(lua_State *L, int idx, int op, int rc, unsigned bad, int k0, unsigned nr)
{
	const char *name = map_name(L, idx);
	struct lp_aggmap *m = lp_l_checkaggmap(L, idx);
	if (rc == -ENOMEM)
		return lp_nomem(L);
	if (rc == -E2BIG)
		return luaL_error(L, "%s() takes %d keys at most, not %d", ops[op], LP_AGGMAP_MAX_KEYS, (int)nr);
	if (rc == -ERANGE)
		return luaL_error(L, "%s is keyed by %d value%s, this %s() by %d: a map keeps one shape of key "
			"(name the maps apart: %s(\"@other\", ...))", name, (int)bad, bad == 1 ? "" : "s", ops[op],
			(int)nr, ops[op]);
	bool str = lp_aggmap_key_is_str(m, bad);
	const char *q = str ? "" : "\"";
	return luaL_error(L, "%s's key %d is %s, this %s() gives %s (%s%s%s): a map's keys keep their kinds "
		"(name the maps apart: %s(\"@other\", ...))", name, (int)bad + 1, str ? "a string" : "an integer",
		ops[op], str ? "an integer" : "a string", q, luaL_tolstring(L, k0 + (int)bad, NULL), q, ops[op]);
}

/* Adds the arguments from 'first' on (value, lhist's buckets, keys) to
 * map u at idx for op; lhist's buckets checked by the caller. */
static int add_args(lua_State *L, int idx, struct map *u, int op, int first)
{
	int top = lua_gettop(L), k0 = first;
	lua_Integer v = 0;
	if (op != LP_AGG_COUNT) {
		if (first > top || lua_isnil(L, first))
			return 0;       /* a missing value: left out */
		v = integer_arg(L, first, values[op]);
		k0 = first + (op == LP_AGG_LHIST ? 4 : 1);
	}
	unsigned nr = top >= k0 ? (unsigned)(top - k0 + 1) : 0, bad = 0;
	struct lp_aggkey keys[LP_AGGMAP_MAX_KEYS];
	if (nr > LP_AGGMAP_MAX_KEYS)
		return shape_error(L, idx, op, -E2BIG, 0, k0, nr);
	for (unsigned j = 0; j < nr; j++)
		if (!key_arg(L, k0 + (int)j, ops[op], &keys[j]))
			return 0;       /* a missing key: left out */
	int rc = lp_aggmap_add(u->m, keys, nr, (int64_t)v, &bad);
	if (rc)
		return shape_error(L, idx, op, rc, bad, k0, nr);
	return 0;
}

/* lhist's buckets from the arguments at b (min, max, step). */
static struct lp_lhist lhist_args(lua_State *L, int b)
{
	lua_Integer min = integer_arg(L, b, "lhist's min"), max = integer_arg(L, b + 1, "lhist's max");
	return lhist_of(L, min, max, integer_arg(L, b + 2, "lhist's step"));
}

/* The program's count(...), sum(...), ...: upvalues the maps' table, the
 * op, the default map's name, the default map (once made), and the last
 * "@name" a call gave and its map (a call naming the map it named last
 * finds it without a lookup). */
static int l_adder_call(lua_State *L)
{
	int op = (int)lua_tointeger(L, lua_upvalueindex(2)), first = 1;
	size_t len;
	const char *s = lua_type(L, 1) == LUA_TSTRING ? lua_tolstring(L, 1, &len) : NULL;
	bool named = s && len && s[0] == '@';
	if (named)
		first = 2;
	struct lp_lhist lh = { 0 };
	if (op == LP_AGG_LHIST) {
		if (first > lua_gettop(L) || lua_isnil(L, first))
			return 0;       /* a missing value: left out */
		lh = lhist_args(L, first + 1);
	}
	int idx = lua_upvalueindex(named ? 6 : 4);
	const char *name = named ? s : lua_tostring(L, lua_upvalueindex(3));
	struct map *u = lua_touserdata(L, idx);
	if (u && (!named || lua_rawequal(L, 1, lua_upvalueindex(5)))) {
		if (op == LP_AGG_LHIST)
			same_lhist(L, name, lp_aggmap_lhist(u->m), &lh);
	} else {
		u = get_map(L, lua_upvalueindex(1), name, op, &lh);
		lua_replace(L, idx);
		if (named) {
			lua_pushvalue(L, 1);
			lua_replace(L, lua_upvalueindex(5));
		}
	}
	return add_args(L, idx, u, op, first);
}

/* maps:adder(op, name) */
static int l_adder(lua_State *L)
{
	lp_class_check(L, 1, &maps_class);
	int op = luaL_checkoption(L, 2, NULL, ops);
	luaL_checkstring(L, 3);
	lua_getiuservalue(L, 1, 1);
	lua_pushinteger(L, op);
	lua_pushvalue(L, 3);
	lua_pushnil(L);
	lua_pushnil(L);
	lua_pushnil(L);
	lua_pushcclosure(L, l_adder_call, 6);
	return 1;
}

/* maps:map(name, op [, min, max, step]) */
static int l_map(lua_State *L)
{
	lp_class_check(L, 1, &maps_class);
	const char *name = luaL_checkstring(L, 2);
	int op = luaL_checkoption(L, 3, NULL, ops);
	struct lp_lhist lh = { 0 };
	if (op == LP_AGG_LHIST)
		lh = lhist_of(L, luaL_checkinteger(L, 4), luaL_checkinteger(L, 5), luaL_checkinteger(L, 6));
	lua_getiuservalue(L, 1, 1);
	get_map(L, -1, name, op, &lh);
	return 1;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* maps:text(blank): every map's text, by name; the maps cleared. */
static int l_text(lua_State *L)
{
	lp_class_check(L, 1, &maps_class);
	bool blank = lua_toboolean(L, 2);
	lua_settop(L, 2);
	lua_getiuservalue(L, 1, 1);             /* 3: name -> map */
	lua_newtable(L);                        /* 4: the names, anchored */
	lua_Integer n = 0;
	for (lua_pushnil(L); lua_next(L, 3); lua_pop(L, 1)) {
		lua_pushvalue(L, -2);
		lua_rawseti(L, 4, ++n);
	}
	const char **names = lua_newuserdatauv(L, (size_t)n * sizeof *names + 1, 0);
	for (lua_Integer i = 1; i <= n; i++) {
		lua_rawgeti(L, 4, i);
		names[i - 1] = lua_tostring(L, -1);
		lua_pop(L, 1);
	}
	qsort(names, (size_t)n, sizeof *names, by_name);
	struct lp_buf out = { 0 };
	for (lua_Integer i = 0; i < n; i++) {
		lua_getfield(L, 3, names[i]);
		struct map *u = lua_touserdata(L, -1);
		lua_pop(L, 1);
		if (blank && !out.len && lp_aggmap_count(u->m))
			lp_buf_add(&out, "\n", 1);
		lp_aggmap_text(u->m, names[i], &out);
		lp_aggmap_clear(u->m);
	}
	if (out.err) {
		lp_buf_free(&out);
		return lp_nomem(L);
	}
	lua_pushlstring(L, out.p ? out.p : "", out.len);
	lp_buf_free(&out);
	return 1;
}

static int l_maps(lua_State *L)
{
	lp_class_alloc(L, &maps_class, 1, 1);
	lua_newtable(L);
	lua_setiuservalue(L, -2, 1);
	return 1;
}

/* ------------------------------------------------------------- one map */

/* m:add(v, k...) */
static int l_add(lua_State *L)
{
	struct map *u = lp_class_check(L, 1, &map_class);
	int op = (int)lp_aggmap_op(u->m);
	if (op == LP_AGG_LHIST) {
		if (lua_gettop(L) < 2 || lua_isnil(L, 2))
			return 0;
		struct lp_lhist lh = lhist_args(L, 3);
		same_lhist(L, map_name(L, 1), lp_aggmap_lhist(u->m), &lh);
	}
	return add_args(L, 1, u, op, 2);
}

/* m:text(): the map as bpftrace prints it (not cleared). */
static int l_map_text(lua_State *L)
{
	struct lp_aggmap *m = lp_l_checkaggmap(L, 1);
	struct lp_buf out = { 0 };
	if (lp_aggmap_text(m, map_name(L, 1), &out)) {
		lp_buf_free(&out);
		return lp_nomem(L);
	}
	lua_pushlstring(L, out.p ? out.p : "", out.len);
	lp_buf_free(&out);
	return 1;
}

static int l_clear(lua_State *L)
{
	lp_aggmap_clear(lp_l_checkaggmap(L, 1));
	return 0;
}

static int l_len(lua_State *L)
{
	lua_pushinteger(L, (lua_Integer)lp_aggmap_count(lp_l_checkaggmap(L, 1)));
	return 1;
}

static int l_gc(lua_State *L)
{
	struct map *u = lp_class_check_any(L, 1, &map_class);
	lp_aggmap_free(u->m);
	u->m = NULL;
	return 0;
}

static const luaL_Reg map_meths[] = {
	{ "add", l_add }, { "text", l_map_text }, { "clear", l_clear }, { NULL, NULL },
};
static const luaL_Reg map_meta[] = { { "__gc", l_gc }, { "__len", l_len }, { NULL, NULL } };
static const struct lp_class map_class = {
	.name = LP_CLASS_NAME("oneliner", "Map"), .methods = map_meths, .meta = map_meta,
	.closable = true, .handle = offsetof(struct map, m),
};

static const luaL_Reg maps_meths[] = {
	{ "map", l_map }, { "adder", l_adder }, { "text", l_text }, { NULL, NULL },
};
static const struct lp_class maps_class = {
	.name = LP_CLASS_NAME("oneliner", "Maps"), .methods = maps_meths,
};

void lp_aggmap_register(lua_State *L)
{
	lp_class_new(L, &map_class, 0);
	lp_class_new(L, &maps_class, 0);
	lua_pushcfunction(L, l_maps);
	lua_setfield(L, -2, "maps");
}
