/*
 * lopts.c - luaprof.options{...}: a script describes itself and declares
 * its options; their values come from the command line.
 *
 *   local opt = luaprof.options{
 *     description = "the hottest functions by self samples",   -- one line
 *     help = [[Longer text for --help.]],                        -- optional
 *     { "limit",  "integer", 20,    "rows to print" },
 *     { "output", "string",  "out.svg", "the file to write" },
 *     { "icicle", "boolean", false, "draw the root at the top" },
 *     { "sort",   "list",    "sym", "sort keys", choices = { "sym", "dso" } },
 *   }
 *   -- opt.limit, opt.output, opt.icicle, opt.sort (a list: {"sym"})
 *
 * Each option is { name, type, default, help [, choices = {...}]
 * [, min = N] [, max = N] }; types
 * are string, integer, number, boolean and list (comma-separated values,
 * repeatable).  On the command line they follow the script's name as
 * --name=value (--name / --no-name for booleans).  A script option may not
 * take the name of one of luaprof's own long options (--output, --duration,
 * ...), and after the script's name a long option is luaprof's only when
 * its name is exactly one of those (no abbreviations), so the two can
 * never be mistaken for each other.  A mistake stops the run before anything starts,
 * with the list of valid options; `luaprof run SCRIPT --help` prints the
 * description, help and options.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "settings.h"
#include "lclass.h"
#include "lp.h"
#include "luaprof/buf.h"
#include "luaprof/luaprof.h"
#include "luaprof/optval.h"

#define SCRIPT_NAME(run) ((run)->vm.name ? (run)->vm.name : (run)->vm.script)
/* The script's name as messages show it (lp_show). */
#define SHOWN_NAME(run) LP_SHOW(SCRIPT_NAME(run))

/* Option i of the spec at index 1, its fields pushed: name, type, default,
 * help (4 values). */
static void push_option(lua_State *L, int i)
{
	lua_rawgeti(L, 1, i);
	int o = lua_gettop(L);
	for (int k = 1; k <= 4; k++)
		lua_rawgeti(L, o, k);
	lua_remove(L, o);
}

static const char *metavar(int type)
{
	switch (type) {
	case LP_OPT_INTEGER: return "N";
	case LP_OPT_NUMBER: return "X";
	case LP_OPT_LIST: return "A,B,...";
	default: return "TEXT";
	}
}

/* Appends the list at idx joined with sep (elements as tostring). */
static void add_joined(lua_State *L, struct lp_buf *b, int idx, const char *sep)
{
	idx = lua_absindex(L, idx);
	for (lua_Integer i = 1; i <= (lua_Integer)lua_rawlen(L, idx); i++) {
		lua_rawgeti(L, idx, i);
		lp_buf_puts(b, i > 1 ? sep : "");
		lp_buf_puts(b, luaL_tolstring(L, -1, NULL));
		lua_pop(L, 2);
	}
}

/* Appends one line of the usage text for option i. */
static void usage_line(lua_State *L, struct lp_buf *b, int i)
{
	char left[128];
	push_option(L, i);
	const char *name = lua_tostring(L, -4);
	int type = lp_opt_type(lua_tostring(L, -3));
	if (type == LP_OPT_BOOLEAN)
		snprintf(left, sizeof left, "--%s, --no-%s", name, name);
	else
		snprintf(left, sizeof left, "--%s=%s", name, metavar(type));
	lp_buf_printf(b, "  %-26s %s", left, lua_tostring(L, -1));
	lua_rawgeti(L, 1, i);
	if (lua_getfield(L, -1, "choices") == LUA_TTABLE) {
		lp_buf_puts(b, "; one of: ");
		add_joined(L, b, -1, ", ");
	}
	lua_pop(L, 2);
	if (lua_istable(L, -2) && lua_rawlen(L, -2)) {
		lp_buf_puts(b, " (default ");
		add_joined(L, b, -2, ",");
		lp_buf_puts(b, ")");
	} else if (!lua_istable(L, -2) && !lua_isnil(L, -2)) {
		lp_buf_printf(b, " (default %s)", luaL_tolstring(L, -2, NULL));
		lua_pop(L, 1);
	}
	lua_pop(L, 4);
	lp_buf_puts(b, "\n");
}

/* Pushes the usage text of the spec at index 1 (full: with the
 * description and help). */
static void push_usage(lua_State *L, struct lp_run *run, bool full)
{
	struct lp_buf b = { 0 };
	lua_Integer n = (lua_Integer)lua_rawlen(L, 1);
	lp_buf_printf(&b, "usage: luaprof run %s%s [luaprof options] [-- CMD [ARGS...]]\n",
		      SCRIPT_NAME(run), n ? " [script options]" : "");
	if (full) {
		lua_getfield(L, 1, "description");
		lp_buf_printf(&b, "\n%s\n", lua_tostring(L, -1));
		if (lua_getfield(L, 1, "help") == LUA_TSTRING) {
			size_t len;
			const char *h = lua_tolstring(L, -1, &len);
			lp_buf_printf(&b, "\n%s%s", h, len && h[len - 1] == '\n' ? "" : "\n");
		}
		lua_pop(L, 2);
	}
	lp_buf_puts(&b, n ? "\nscript options:\n" : "\nThis script takes no options.\n");
	for (lua_Integer i = 1; i <= n; i++)
		usage_line(L, &b, (int)i);
	lp_buf_puts(&b, "\nluaprof's own options (-e, -F, -g, -p, -a, -d, -i, -o, -I, -A): "
		    "luaprof run --help\n");
	lua_pushlstring(L, b.p ? b.p : "", b.len);
	lp_buf_free(&b);
}

/* ---------------------------------------------------- the declaration */

static void bad_spec(lua_State *L, int i, const char *what)
{
	lp_argerror(L, 1, "option %d: %s (each option is { name, type, default, "
		    "help [, choices = {...}] })", i, what);
}

static bool value_fits(lua_State *L, int idx, int type)
{
	switch (type) {
	case LP_OPT_INTEGER: return lua_isinteger(L, idx);
	case LP_OPT_NUMBER: return lua_type(L, idx) == LUA_TNUMBER;
	case LP_OPT_BOOLEAN: return lua_isboolean(L, idx);
	case LP_OPT_STRING: return lua_type(L, idx) == LUA_TSTRING;
	default: return lua_type(L, idx) == LUA_TSTRING || lua_istable(L, idx);
	}
}

/* Whether the string at idx is among option i's choices (true when it has
 * none). */
static bool in_choices(lua_State *L, int i, int idx)
{
	idx = lua_absindex(L, idx);
	lua_rawgeti(L, 1, i);
	bool ok = true;
	if (lua_getfield(L, -1, "choices") == LUA_TTABLE) {
		ok = false;
		for (lua_Integer k = 1; !ok && k <= (lua_Integer)lua_rawlen(L, -1); k++) {
			lua_rawgeti(L, -1, k);
			ok = lua_rawequal(L, -1, idx);
			lua_pop(L, 1);
		}
	}
	lua_pop(L, 2);
	return ok;
}

/* Whether name (n bytes) is one of luaprof's own long options. */
static bool run_own_option(lua_State *L, const char *name, size_t n)
{
	const struct lp_cli *cli = lp_get_run(L)->cli;
	return cli && cli->own_option && cli->own_option(name, n);
}

static void check_option(lua_State *L, int i, int names)
{
	if (lua_rawgeti(L, 1, i) != LUA_TTABLE)
		bad_spec(L, i, "not a table");
	lua_pop(L, 1);
	push_option(L, i);
	size_t n;
	const char *name = lua_tolstring(L, -4, &n);
	if (!name || !lp_opt_name_ok(name, n) || !strcmp(name, "help"))
		bad_spec(L, i, "the name must be lower-case letters, digits, '-' and '_', not 'help'");
	if (run_own_option(L, name, n))
		bad_spec(L, i, lua_pushfstring(L, "--%s is luaprof's own option: choose another name",
					       name));
	if (lua_getfield(L, names, name) != LUA_TNIL)
		bad_spec(L, i, "a second option of that name");
	lua_pop(L, 1);
	lua_pushboolean(L, 1);
	lua_setfield(L, names, name);
	int type = lua_isstring(L, -3) ? lp_opt_type(lua_tostring(L, -3)) : -1;
	if (type < 0)
		bad_spec(L, i, "the type must be string, integer, number, boolean or list");
	if (!lua_isnil(L, -2) && !value_fits(L, -2, type))
		bad_spec(L, i, "the default does not have the option's type");
	if (type == LP_OPT_STRING && !lua_isnil(L, -2) && !in_choices(L, i, -2))
		bad_spec(L, i, "the default is not one of the choices");
	if (!lua_isstring(L, -1))
		bad_spec(L, i, "the help text is missing");
	lua_pop(L, 4);
}

static void check_spec(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	lua_getfield(L, 1, "description");
	if (!lua_isstring(L, -1) || strchr(lua_tostring(L, -1), '\n'))
		lp_argerror(L, 1, "description must be a one-line string");
	lua_getfield(L, 1, "help");
	if (!lua_isnil(L, -1) && !lua_isstring(L, -1))
		lp_argerror(L, 1, "help must be a string");
	lua_pop(L, 2);
	lua_newtable(L);
	int names = lua_gettop(L);
	for (lua_Integer i = 1; i <= (lua_Integer)lua_rawlen(L, 1); i++)
		check_option(L, (int)i, names);
	lua_pop(L, 1);
}

/* Splits the string at idx on commas into a new list. */
static void push_list(lua_State *L, const char *s)
{
	const char *start;
	size_t len;
	lua_newtable(L);
	for (lua_Integer k = 1; lp_opt_list_next(&s, &start, &len); k++) {
		lua_pushlstring(L, start, len);
		lua_rawseti(L, -2, k);
	}
}

/* The values table: every option's default (lists copied). */
static void push_defaults(lua_State *L)
{
	lua_newtable(L);
	for (lua_Integer i = 1; i <= (lua_Integer)lua_rawlen(L, 1); i++) {
		push_option(L, (int)i);
		int type = lp_opt_type(lua_tostring(L, -3));
		if (type == LP_OPT_LIST && lua_type(L, -2) == LUA_TSTRING) {
			push_list(L, lua_tostring(L, -2));
		} else if (type == LP_OPT_LIST) {
			lua_newtable(L);
			for (lua_Integer k = 1; lua_istable(L, -3) && k <= (lua_Integer)lua_rawlen(L, -3); k++) {
				lua_rawgeti(L, -3, k);
				lua_rawseti(L, -2, k);
			}
		} else if (type == LP_OPT_BOOLEAN && lua_isnil(L, -2)) {
			lua_pushboolean(L, 0);
		} else {
			lua_pushvalue(L, -2);
		}
		lua_setfield(L, -6, lua_tostring(L, -5));
		lua_pop(L, 4);
	}
}

/* ----------------------------------------------- the command line's values */

/* Stops the script: prints msg (when not NULL) and the short usage to
 * stderr, or the full usage to stdout for --help. */
static int stop(lua_State *L, struct lp_run *run, const char *msg)
{
	push_usage(L, run, msg == NULL);
	if (msg)
		fprintf(stderr, "luaprof: %s\n%s", msg, lua_tostring(L, -1));
	else
		fputs(lua_tostring(L, -1), stdout);
	fflush(stdout);
	run->opt.stopped = msg ? 2 : 1;
	return luaL_error(L, "stopped");
}

/* luaprof.usage_error(msg): a script's own check of what it was given
 * failed (a required option missing, a value its declaration cannot
 * check).  At the top level it stops the run before anything starts, as a
 * bad option does: one line naming the script, exit 255; later it is an
 * ordinary error. */
int lp_usage_error(lua_State *L)
{
	struct lp_run *run = lp_get_run(L);
	const char *msg = luaL_checkstring(L, 1);
	if (run->vm.started || !run->cli)
		return luaL_error(L, "%s", msg);
	fprintf(stderr, "luaprof: %s: %s (see luaprof run %s --help)\n", SHOWN_NAME(run), msg,
		SHOWN_NAME(run));
	run->opt.stopped = 2;
	return luaL_error(L, "stopped");
}

/* The option named name: its index, or 0. */
static int find(lua_State *L, const char *name)
{
	for (lua_Integer i = 1; i <= (lua_Integer)lua_rawlen(L, 1); i++) {
		lua_rawgeti(L, 1, i);
		lua_rawgeti(L, -1, 1);
		bool same = !strcmp(lua_tostring(L, -1), name);
		lua_pop(L, 2);
		if (same)
			return (int)i;
	}
	return 0;
}

static int opt_type(lua_State *L, int i)
{
	lua_rawgeti(L, 1, i);
	lua_rawgeti(L, -1, 2);
	int t = lp_opt_type(lua_tostring(L, -1));
	lua_pop(L, 2);
	return t;
}

/* The message for a number (at idx, the top) outside option i's min and
 * max ("from MIN to MAX", "at least MIN", "at most MAX"), or NULL when it
 * is inside them (or the option has neither).  The message stays on the
 * stack, above the number, for the error raised with it. */
static const char *out_of_range(lua_State *L, int i, int idx)
{
	idx = lua_absindex(L, idx);
	lua_rawgeti(L, 1, i);
	bool has_min = lua_getfield(L, -1, "min") == LUA_TNUMBER;
	bool has_max = lua_getfield(L, -2, "max") == LUA_TNUMBER;
	bool low = has_min && lua_compare(L, idx, -2, LUA_OPLT);
	bool high = has_max && lua_compare(L, -1, idx, LUA_OPLT);
	if (!low && !high) {
		lua_settop(L, idx);
		return NULL;
	}
	const char *min = has_min ? lua_tostring(L, -2) : NULL;
	const char *max = has_max ? lua_tostring(L, -1) : NULL;
	if (min && max)
		return lua_pushfstring(L, "from %s to %s", min, max);
	return min ? lua_pushfstring(L, "at least %s", min) : lua_pushfstring(L, "at most %s", max);
}

static const char *convert(lua_State *L, int i, int type, const char *text)
{
	int64_t iv;
	double dv;
	bool bv;
	switch (type) {
	case LP_OPT_INTEGER:
		if (lp_opt_integer(text, &iv))
			return "an integer such as 10, -3, 0x1f or 5K";
		lua_pushinteger(L, iv);
		return out_of_range(L, i, -1);
	case LP_OPT_NUMBER:
		if (lp_opt_number(text, &dv))
			return "a number such as 0.5 or 1e3";
		lua_pushnumber(L, dv);
		return out_of_range(L, i, -1);
	case LP_OPT_BOOLEAN:
		if (lp_opt_boolean(text, &bv))
			return "true or false (yes/no, on/off, 1/0)";
		lua_pushboolean(L, bv);
		return NULL;
	default:
		lua_pushstring(L, text);
		if (!in_choices(L, i, -1)) {
			lua_pop(L, 1);
			return "one of the choices listed below";
		}
		return NULL;
	}
}

/* Appends the elements of text to the list option i holds in values
 * (replacing the default the first time). */
static const char *add_list(lua_State *L, int i, const char *name, const char *text, int values,
			    int given)
{
	if (lua_getfield(L, given, name) == LUA_TNIL) {
		lua_newtable(L);
		lua_setfield(L, values, name);
	}
	lua_pop(L, 1);
	lua_pushboolean(L, 1);
	lua_setfield(L, given, name);
	lua_getfield(L, values, name);
	push_list(L, text);
	for (lua_Integer k = 1; k <= (lua_Integer)lua_rawlen(L, -1); k++) {
		lua_rawgeti(L, -1, k);
		if (!in_choices(L, i, -1))
			return lua_pushfstring(L, "chosen from the list below ('%s' is not in it)",
					       LP_SHOW(lua_tostring(L, -1)));
		lua_rawseti(L, -3, (lua_Integer)lua_rawlen(L, -3) + 1);
	}
	lua_pop(L, 2);
	return NULL;
}

/* Applies one "--name[=value]" to the values table. */
static void apply(lua_State *L, struct lp_run *run, const char *arg, int values, int given)
{
	char name[LP_OPT_NAME_MAX + 1];
	const char *text, *err = NULL;
	int i, type = -1;
	if (lp_opt_split(arg, name, &text))
		stop(L, run, lua_pushfstring(L, "%s: '%s' is not an option of the script (use "
					      "--name=value)", SHOWN_NAME(run), LP_SHOW(arg)));
	if ((i = find(L, name)))
		type = opt_type(L, i);
	else if (!strncmp(name, "no-", 3) && !text && (i = find(L, name + 3)) &&
		 opt_type(L, i) == LP_OPT_BOOLEAN) {
		/* --no-NAME: NAME = false */
		text = "false";
		type = LP_OPT_BOOLEAN;
		memmove(name, name + 3, strlen(name + 3) + 1);
	}
	if (type < 0)
		stop(L, run, lua_pushfstring(L, "%s: unknown option '--%s'", SHOWN_NAME(run),
		     name));
	if (!text && type != LP_OPT_BOOLEAN)
		stop(L, run, lua_pushfstring(L, "%s: --%s needs a value: --%s=%s", SHOWN_NAME(run),
		     name,
					     name, metavar(type)));
	if (type == LP_OPT_LIST)
		err = add_list(L, i, name, text, values, given);
	else if (!(err = convert(L, i, type, text ? text : "true")))
		lua_setfield(L, values, name);
	if (err)
		stop(L, run, lua_pushfstring(L, "%s: --%s=%s: the value must be %s",
		     SHOWN_NAME(run),
					     name, LP_SHOW(text), err));
}

int lp_options(lua_State *L)
{
	struct lp_run *run = lp_get_run(L);
	if (run->vm.started)
		return luaL_error(L, "luaprof.options must be called at the script's top level");
	if (run->opt.declared)
		return luaL_error(L, "luaprof.options is called once, with every option");
	run->opt.declared = true;
	check_spec(L);
	lua_settop(L, 1);
	if (run->opt.mode == LP_MODE_DESCRIBE) {
		lua_getfield(L, 1, "description");
		free(run->opt.description);
		run->opt.description = strdup(lua_tostring(L, -1));
		run->opt.stopped = 1;
		return luaL_error(L, "stopped");
	}
	if (run->opt.mode == LP_MODE_HELP)
		return stop(L, run, NULL);
	push_defaults(L);
	lua_newtable(L);        /* the list options given so far */
	for (int k = 0; k < run->opt.argc; k++)
		apply(L, run, run->opt.argv[k], 2, 3);
	lua_settop(L, 2);
	return 1;
}

int lp_options_check(struct lp_run *run)
{
	if (run->opt.declared)
		return 0;
	if (run->opt.mode == LP_MODE_HELP) {
		printf("usage: luaprof run %s [luaprof options] [-- CMD [ARGS...]]\n\n"
		       "%s declares no description and no options (luaprof.options).\n\n"
		       "luaprof's own options: luaprof run --help\n", SCRIPT_NAME(run), SCRIPT_NAME(run));
		return 1;
	}
	if (run->opt.argc) {
		fprintf(stderr, "luaprof: %s: unknown option '%s': the script declares no options "
			"(see luaprof run %s --help)\n", SHOWN_NAME(run), LP_SHOW(run->opt.argv[0]),
			SHOWN_NAME(run));
		return -1;
	}
	return 0;
}
