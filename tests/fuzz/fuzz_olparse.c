/*
 * fuzz_olparse.c - the one-liner compiler's front (lua/helpers/olparse.lua
 * and olplan.lua) on any program text: the parser returns the clauses or
 * raises its own error, a table whose position lies inside the text (or
 * just past its end), never a Lua error of its own; on what parses, the
 * free-name walk and the planner (with no events to describe, as when
 * replaying) end the same way, and so does the explain text.  The parser
 * is Lua: it runs in one Lua state made at the first input, loaded from
 * the checkout's lua/helpers (found from this binary, BUILD/fuzz/ or
 * BUILD/fuzzer/, else from the current directory).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lualib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Returns true when src was handled as it must be, false for a bug. */
static const char check_lua[] =
	"local P, PL = require 'olparse', require 'olplan'\n"
	"local function own(e, src)\n"
	"  return P.is_error(e) and math.type(e.pos) == 'integer' and e.pos >= 1 and e.pos <= #src + 1\n"
	"end\n"
	"return function(src)\n"
	"  local ok, prog = pcall(P.program, src)\n"
	"  if not ok then return own(prog, src) end\n"
	"  for _, c in ipairs(prog.clauses) do\n"
	"    if c.cond then P.free_names(c.cond) end\n"
	"    P.free_names(c.body)\n"
	"  end\n"
	"  local plan\n"
	"  ok, plan = pcall(PL.plan, prog, { globals = _G, c = true, replay = true })\n"
	"  if not ok then return own(plan, src) end\n"
	"  return type(PL.explain(plan)) == 'string'\n"
	"end\n";

static lua_State *L;
static int check_ref = LUA_NOREF;

/* The helpers' directory: beside the binary's build directory, else the
 * current directory's lua/helpers. */
static void helper_path(char *out, size_t size)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = '\0';
		for (int up = 0; up < 3; up++) {
			char *slash = strrchr(exe, '/');
			if (!slash)
				break;
			*slash = '\0';
			snprintf(out, size, "%s/lua/helpers/olparse.lua", exe);
			if (!access(out, R_OK)) {
				snprintf(out, size, "%s/lua/helpers/?.lua", exe);
				return;
			}
		}
	}
	snprintf(out, size, "lua/helpers/?.lua");
}

static void setup(void)
{
	char path[PATH_MAX + 32];
	L = luaL_newstate();
	if (!L)
		abort();
	luaL_openlibs(L);
	helper_path(path, sizeof path);
	lua_getglobal(L, "package");
	lua_pushstring(L, path);
	lua_setfield(L, -2, "path");
	lua_pop(L, 1);
	if (luaL_loadstring(L, check_lua) || lua_pcall(L, 0, 1, 0)) {
		fprintf(stderr, "fuzz_olparse: cannot load the parser (%s): %s\n", path,
			lua_tostring(L, -1));
		abort();
	}
	check_ref = luaL_ref(L, LUA_REGISTRYINDEX);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)        /* a one-liner is a command-line argument */
		return 0;
	if (!L)
		setup();
	lua_rawgeti(L, LUA_REGISTRYINDEX, check_ref);
	lua_pushlstring(L, (const char *)data, size);
	if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
		fprintf(stderr, "fuzz_olparse: %s\n", lua_tostring(L, -1));
		abort();
	}
	if (!lua_toboolean(L, -1)) {
		fprintf(stderr, "fuzz_olparse: a Lua error of the parser's own, or an error outside "
				"the text, for %zu bytes: %.*s\n", size, (int)size, (const char *)data);
		abort();
	}
	lua_pop(L, 1);
	lua_gc(L, LUA_GCSTEP, 0);
	return 0;
}
