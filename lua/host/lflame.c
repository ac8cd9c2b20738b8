/*
 * lflame.c - luaprof.flamegraph: an interactive SVG flame graph from
 * folded stacks (core/format/flame.c draws it).
 *
 *   luaprof.flamegraph.write(path, stacks [, opts])
 *   luaprof.flamegraph.svg(stacks [, opts]) -> string
 *
 * stacks: a luaprof.map or a table of folded stack -> count.  opts: title,
 * subtitle, countname ("samples"), width (1200), frame_height (16),
 * minwidth (0.1 pixel), icicle (false), base (another stacks table: a
 * differential graph coloured by the change from it).
 */
#include <lauxlib.h>

#include "lclass.h"
#include "linit.h"
#include "lpaux.h"
#include "luaprof/flame.h"


struct box {
	struct lp_flame *f;
	struct lp_buf out;
	const char *title, *subtitle, *countname;
};

static void free_box(struct box *b)
{
	lp_flame_free(b->f);
	b->f = NULL;
	lp_buf_free(&b->out);
}

static const struct lp_class box_class;

static int box_gc(lua_State *L)
{
	free_box(lp_class_check_any(L, 1, &box_class));
	return 0;
}

/* A graph being built, freed by __gc should an error cut it. */
static const luaL_Reg box_meta[] = { { "__gc", box_gc }, { NULL, NULL } };
static const struct lp_class box_class = {
	.name = LP_CLASS_NAME("flamegraph", "Buffer"), .meta = box_meta,
};

static int add_count(void *ctx, const char *k, size_t n, double count)
{
	return lp_flame_add(ctx, k, n, count, 0);
}

static int add_base(void *ctx, const char *k, size_t n, double count)
{
	return lp_flame_add(ctx, k, n, 0, count);
}

static const char *opt_string(lua_State *L, int opts, const char *key)
{
	lua_getfield(L, opts, key);
	const char *s = lua_isnil(L, -1) ? NULL : lp_checkfield_string(L, -1, opts, key);
	lua_pop(L, 1);          /* opts keeps the string alive */
	return s;
}

static double opt_number(lua_State *L, int opts, const char *key, double min, double max)
{
	lua_getfield(L, opts, key);
	double v = lua_isnil(L, -1) ? 0 : lp_checkfield_number(L, -1, opts, key);
	lua_pop(L, 1);
	if (v != 0 && (v < min || v > max))
		lp_argerror(L, opts, "%s must be between %I and %I", key, (lua_Integer)min,
			    (lua_Integer)max);
	return v;
}

/* Builds the SVG of the stacks at idx with the options at idx + 1 into a
 * box left on the stack. */
static struct box *build(lua_State *L, int idx)
{
	struct box *b = lp_class_alloc(L, &box_class, sizeof *b, 0);
	if (!(b->f = lp_flame_new()))
		lp_nomem(L);
	struct lp_flame_opts o = { 0 };
	int opts = idx + 1;
	if (!lua_isnoneornil(L, opts)) {
		luaL_checktype(L, opts, LUA_TTABLE);
		o.title = opt_string(L, opts, "title");
		o.subtitle = opt_string(L, opts, "subtitle");
		o.countname = opt_string(L, opts, "countname");
		o.width = (unsigned)opt_number(L, opts, "width", 200, 100000);
		o.frame_height = (unsigned)opt_number(L, opts, "frame_height", 8, 100);
		o.minwidth = opt_number(L, opts, "minwidth", 0, 1000);
		o.icicle = lua_getfield(L, opts, "icicle") != LUA_TNIL && lua_toboolean(L, -1);
		if (lua_getfield(L, opts, "base") != LUA_TNIL) {
			o.diff = true;
			lp_stacks_each(L, -1, add_base, b->f, "flamegraph: base");
		}
		lua_pop(L, 2);
	}
	lp_stacks_each(L, idx, add_count, b->f, "flamegraph");
	if (lp_flame_svg(b->f, &o, &b->out))
		lp_nomem(L);
	return b;
}

static int l_svg(lua_State *L)
{
	lua_settop(L, 2);
	struct box *b = build(L, 1);
	lua_pushlstring(L, b->out.p, b->out.len);
	free_box(b);
	return 1;
}

static int l_write(lua_State *L)
{
	const char *path = luaL_checkstring(L, 1);
	lua_settop(L, 3);
	struct box *b = build(L, 2);
	lp_lib_write_file(L, path, b->out.p, b->out.len);
	free_box(b);
	return 0;
}

static const luaL_Reg funcs[] = {
	{ "svg", l_svg }, { "write", l_write }, { NULL, NULL },
};

int luaopen_luaprof_flamegraph(lua_State *L)
{
	lp_class_new(L, &box_class, 0);
	luaL_newlib(L, funcs);
	return 1;
}
