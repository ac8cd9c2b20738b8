/*
 * lhooks.c - a script's hooks checked before the first sample (issue 32):
 * the mistakes that used to run the command, print nothing and exit 0.
 *
 * Once the top level has run, the globals are what luaprof will call:
 *   - a global function whose name is close to a hook's but is none
 *     (on_samples, On_sample) is refused, with the hook meant;
 *   - a hook declared local (local function on_sample), which luaprof
 *     cannot see, and that the script itself never reads (a local the
 *     script hands to on_event is no mistake), is refused;
 *   - a script whose only hook that sees the run is on_interval, with no
 *     interval set, is refused (lp_hooks_check_run, once the command line
 *     and luaprof.setup have settled the interval and the output).
 * Each is one line, "FILE:LINE:COL: ..." where it has a place in the
 * script, and the run stops before the command starts (exit 255).  A
 * script with no hook at all is a Lua program of its own (the examples of
 * the report library are): one line says nothing of the run reaches it,
 * and the run goes on; on_start alone reads the run's info (a recording's
 * build-ids), which is enough for some.
 *
 * The places come from the script's source, parsed by the one-liners'
 * Lua parser (lua/helpers/olparse.lua, via hookpos.lua) in a Lua state of
 * its own, made only when there is something to say or a hook's name
 * follows a "local" in the text: a run of a correct script pays for a
 * look at its globals and a scan of its text, no parse.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "lfields.h"
#include "lp.h"
#include "lscript.h"
#include "luaprof/luaprof.h"

#define SOURCE_MAX (16u << 20)  /* a larger script is not scanned */

const char *const lp_hook_names[LP_HOOK_N] = {
	"on_start", "on_sample", "on_end", "on_interval",
	"on_comm", "on_fork", "on_exit", "on_switch", "on_key",
};

/* What a name of the script is, and where: from hookpos.lua. */
struct place {
	bool found;
	bool local;             /* declared local (else assigned as a global) */
	bool read;              /* read somewhere as an expression */
	int line, col;
};

/* The script's source text (malloc'd, NUL-terminated), or NULL. */
static char *read_source(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	while (buf) {
		n += fread(buf + n, 1, cap - n - 1, f);
		if (n < cap - 1 || cap >= SOURCE_MAX)
			break;
		char *more = realloc(buf, cap * 2);
		if (!more) {
			free(buf);
			buf = NULL;
		}
		buf = more;
		cap *= 2;
	}
	if (buf && (ferror(f) || n >= SOURCE_MAX - 1)) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (buf) {
		buf[n] = '\0';
		*len = n;
	}
	return buf;
}

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Whether the word of n bytes ending just before src + i is kw. */
static bool word_before(const char *src, size_t i, const char *kw)
{
	size_t n = strlen(kw);
	return i >= n && !memcmp(src + i - n, kw, n) && (i == n || !ident_char(src[i - n - 1]));
}

/* Index just before the spaces that end at src + i. */
static size_t skip_space_back(const char *src, size_t i)
{
	while (i && isspace((unsigned char)src[i - 1]))
		i--;
	return i;
}

/* Whether the text may declare name local: the word appears in a
 * "local [function] NAME" or "local A, B <const>, NAME" (comments and
 * strings included: hookpos.lua's parse decides). */
static bool may_be_local(const char *src, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = strstr(src, name); p; p = strstr(p + 1, name)) {
		size_t i = (size_t)(p - src);
		if ((i && ident_char(src[i - 1])) || ident_char(p[n]))
			continue;
		i = skip_space_back(src, i);
		if (word_before(src, i, "function"))
			i = skip_space_back(src, i - 8);
		while (i && src[i - 1] == ',') {        /* an earlier name of the list */
			i = skip_space_back(src, i - 1);
			if (i && src[i - 1] == '>') {   /* its <const> or <close> */
				while (i && src[i - 1] != '<')
					i--;
				i = skip_space_back(src, i ? i - 1 : 0);
			}
			while (i && ident_char(src[i - 1]))
				i--;
			i = skip_space_back(src, i);
		}
		if (word_before(src, i, "local"))
			return true;
	}
	return false;
}

/* Pushes hookpos.lua's function, in a new state of its own (*out); false
 * when it cannot (no helpers' directory: the checks then go without
 * places). */
static bool open_hookpos(lua_State **out)
{
	const char *dir = lp_script_helperdir();
	lua_State *L = dir ? luaL_newstate() : NULL;
	if (!L)
		return false;
	lp_set_run(L, NULL);            /* no run: no binding is opened here */
	luaL_openlibs(L);
	lua_getglobal(L, "package");
	lua_pushfstring(L, "%s/?.lua", dir);
	lua_setfield(L, -2, "path");
	lua_pop(L, 1);
	lua_pushfstring(L, "%s/hookpos.lua", dir);
	if (luaL_loadfilex(L, lua_tostring(L, -1), "t") || lua_pcall(L, 0, 1, 0) ||
	    !lua_isfunction(L, -1)) {
		lua_close(L);
		return false;
	}
	*out = L;
	return true;
}

/* The places of names[0..n-1] in the source src (places[i] for names[i]);
 * those not found stay !found. */
static void find_places(const char *src, size_t len, const char *const *names, size_t n,
			struct place *places)
{
	lua_State *L;
	memset(places, 0, n * sizeof *places);
	if (!open_hookpos(&L))
		return;
	lua_pushlstring(L, src, len);
	lua_createtable(L, (int)n, 0);
	for (size_t i = 0; i < n; i++) {
		lua_pushstring(L, names[i]);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	if (lua_pcall(L, 2, 1, 0) == LUA_OK && lua_istable(L, -1)) {
		for (size_t i = 0; i < n; i++) {
			if (lua_getfield(L, -1, names[i]) == LUA_TTABLE) {
				struct place *p = &places[i];
				p->found = true;
				lua_getfield(L, -1, "local");
				p->local = lua_toboolean(L, -1);
				lua_getfield(L, -2, "read");
				p->read = lua_toboolean(L, -1);
				lua_getfield(L, -3, "line");
				p->line = (int)lua_tointeger(L, -1);
				lua_getfield(L, -4, "col");
				p->col = (int)lua_tointeger(L, -1);
				lua_pop(L, 4);
			}
			lua_pop(L, 1);
		}
	}
	lua_close(L);
}

/* "FILE:LINE:COL" of place p (of the global function at the top of L's
 * stack when p has none: FILE:LINE it was defined at), into buf. */
static const char *where(lua_State *L, const char *script, const struct place *p, char *buf,
			 size_t size)
{
	lua_Debug ar;
	if (p && p->found && p->line > 0) {
		snprintf(buf, size, "%s:%d:%d", script, p->line, p->col);
	} else if (lua_isfunction(L, -1)) {
		lua_pushvalue(L, -1);
		if (lua_getinfo(L, ">S", &ar) && ar.linedefined > 0 && !strcmp(ar.what, "Lua"))
			snprintf(buf, size, "%s:%d", script, ar.linedefined);
		else
			snprintf(buf, size, "%s", script);
	} else {
		snprintf(buf, size, "%s", script);
	}
	return buf;
}

/* The names a hook may be misspelt as: the hooks and on_event. */
static const char *const *hook_candidates(size_t *n)
{
	static const char *names[LP_HOOK_N + 1];
	for (int h = 0; h < LP_HOOK_N; h++)
		names[h] = lp_hook_names[h];
	names[LP_HOOK_N] = "on_event";
	*n = LP_HOOK_N + 1;
	return names;
}

/* Whether name is a hook's or on_event. */
static bool is_hook(const char *name)
{
	size_t n;
	const char *const *c = hook_candidates(&n);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(name, c[i]))
			return true;
	return false;
}

/* The global most likely a misspelt hook (a function named close to a
 * hook, or a table close to on_event), the one defined first; pushed with
 * *meant set, or nothing pushed and NULL returned. */
static const char *misspelt(lua_State *L, const char **meant)
{
	size_t nc;
	const char *const *cands = hook_candidates(&nc);
	const char *found = NULL;
	int found_line = 0;
	lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_GLOBALS);
	for (lua_pushnil(L); lua_next(L, -2); lua_pop(L, 1)) {
		const char *name = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
		int t = lua_type(L, -1);
		if (!name || (t != LUA_TFUNCTION && t != LUA_TTABLE) || strncasecmp(name, "on", 2) ||
		    is_hook(name))
			continue;
		/* a function for a hook, a table for on_event (the last) */
		const char *c = t == LUA_TTABLE ? lp_closest(name, &cands[nc - 1], 1) :
				lp_closest(name, cands, nc - 1);
		if (!c)
			continue;
		lua_Debug ar;
		int line = 0;
		if (t == LUA_TFUNCTION) {
			lua_pushvalue(L, -1);
			line = lua_getinfo(L, ">S", &ar) ? ar.linedefined : 0;
		}
		if (!found || line < found_line) {
			found = name;           /* a key of the globals: alive while it is */
			found_line = line;
			*meant = c;
		}
	}
	if (found)
		lua_getfield(L, -1, found);
	lua_remove(L, found ? -2 : -1);
	return found;
}

/* The hook names the script's globals lack whose text may declare them
 * local, into out (at most LP_HOOK_N); their number. */
static size_t missing_locals(lua_State *L, const char *src, const char **out)
{
	size_t n = 0;
	for (int h = 0; h < LP_HOOK_N; h++) {
		lua_getglobal(L, lp_hook_names[h]);
		if (lua_isnil(L, -1) && may_be_local(src, lp_hook_names[h]))
			out[n++] = lp_hook_names[h];
		lua_pop(L, 1);
	}
	return n;
}

int lp_hooks_check(struct lp_run *run)
{
	lua_State *L = run->vm.L;
	const char *script = run->vm.script, *meant = NULL;
	char at[4096 + 32];
	size_t len = 0;
	char *src = read_source(script, &len);
	const char *name = misspelt(L, &meant);
	const char *locals[LP_HOOK_N];
	size_t nl = src ? missing_locals(L, src, locals) : 0;
	struct place places[LP_HOOK_N + 1];
	const char *asked[LP_HOOK_N + 1];
	memcpy(asked, locals, nl * sizeof *asked);
	if (name)
		asked[nl] = name;
	if (src && (name || nl))
		find_places(src, len, asked, nl + (name != NULL), places);
	free(src);
	for (size_t i = 0; i < nl; i++) {
		if (!places[i].found || !places[i].local || places[i].read)
			continue;
		fprintf(stderr, "luaprof: %s: %s is declared local, so luaprof never calls it: a hook "
				"is a global function (function %s(...) ... end, without 'local')\n",
			where(L, script, &places[i], at, sizeof at), locals[i], locals[i]);
		if (name)
			lua_pop(L, 1);
		return -1;
	}
	if (!name)
		return 0;
	fprintf(stderr, "luaprof: %s: %s is not a hook, so luaprof never calls it (did you mean "
			"%s?)\n", where(L, script, &places[nl], at, sizeof at), LP_SHOW(name), meant);
	lua_pop(L, 1);
	return -1;
}

/* Whether on_event is a table with an entry. */
static bool has_handlers(lua_State *L)
{
	bool any = false;
	if (lua_getglobal(L, "on_event") == LUA_TTABLE) {
		lua_pushnil(L);
		if ((any = lua_next(L, -2) != 0))
			lua_pop(L, 2);
	}
	lua_pop(L, 1);
	return any;
}

int lp_hooks_check_run(struct lp_run *run, bool interval, bool recording)
{
	lua_State *L = run->vm.L;
	const int *ref = run->vm.ref;
	if (recording || has_handlers(L) || run->reports.n)
		return 0;       /* -o: the recording is the run's answer */
	bool any = false;
	for (int h = 0; h < LP_HOOK_N; h++) {
		if (h != LP_HOOK_START && h != LP_HOOK_INTERVAL && ref[h] != LUA_NOREF)
			return 0;
		any |= ref[h] != LUA_NOREF;
	}
	if (!any) {             /* a Lua program of its own (its top level has run) */
		fprintf(stderr, "luaprof: %s defines no hook, so nothing of this run reaches it "
				"(on_sample, on_event, on_end: see Hooks in docs/scripting.md)\n",
			run->vm.script);
		return 0;
	}
	if (interval || ref[LP_HOOK_INTERVAL] == LUA_NOREF)
		return 0;       /* on_start alone reads the run's info: enough for some */
	char at[4096 + 32];
	size_t len;
	const char *name = lp_hook_names[LP_HOOK_INTERVAL];
	struct place p = { .found = false };
	char *src = read_source(run->vm.script, &len);
	if (src)
		find_places(src, len, &name, 1, &p);
	free(src);
	lua_rawgeti(L, LUA_REGISTRYINDEX, ref[LP_HOOK_INTERVAL]);
	fprintf(stderr, "luaprof: %s: on_interval is the script's only hook that sees the run, "
			"and no interval is set, so it would never be called: give -I MS, or "
			"luaprof.setup{interval = MS}\n", where(L, run->vm.script, &p, at, sizeof at));
	lua_pop(L, 1);
	return -1;
}
