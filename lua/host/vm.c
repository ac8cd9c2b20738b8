/*
 * vm.c - the Lua state: creating it, loading the user's script, and calling
 * its hooks under lua_pcall with a traceback message handler kept at a fixed
 * stack slot (LP_SLOT_MSGH), so a hook call costs a rawgeti and a pcall; the
 * per-sample call finds its event's handler at a fixed slot too, and costs
 * a stack copy (a rawgeti for an on_event handler), the push of a new view
 * (a light userdata: lsample.c) and,
 * inside run.c's protected loop, a plain lua_call.  Every call is
 * bracketed by the runaway guard (guard.c), which costs two stores when
 * nothing goes wrong.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <unistd.h>

#include <lauxlib.h>
#include <lualib.h>

#include "lfold.h"
#include "lp.h"
#include "lscript.h"
#include "luaprof/luaprof.h"

/* os.exit's error object: unwinds the hook that called it, with no
 * message (its address is the mark). */
static char os_exit_mark;

/* A one-liner's error raised in luaprof's own Lua, a helper or the
 * library that the program called ("/usr/share/luaprof/helpers/
 * oneliner.lua:193: attempt to add ..."), is said at the program's line:
 * the innermost level of the stack in the program's chunk (named "-x",
 * oneliner.lua).  Returns msg, or the new message pushed. */
static const char *at_program_line(lua_State *L, const char *msg)
{
	lua_Debug ar;
	const struct lp_run *run = lp_get_run(L);
	if (!run || !run->aggs.on || !strncmp(msg, "-x:", 3))
		return msg;
	for (int level = 1; lua_getstack(L, level, &ar); level++) {
		if (!lua_getinfo(L, "Sl", &ar) || strcmp(ar.source, "=-x") || ar.currentline <= 0)
			continue;
		/* the message without its own "SOURCE:LINE: " */
		const char *p = strchr(msg, ':'), *rest = msg;
		if (p && p > msg && !memchr(msg, '\n', (size_t)(p - msg)) && p[1] >= '0' && p[1] <= '9') {
			p += strspn(p + 1, "0123456789") + 1;
			if (p[0] == ':' && p[1] == ' ')
				rest = p + 2;
		}
		return lua_pushfstring(L, "-x:%d: %s", ar.currentline, rest);
	}
	return msg;
}

/* Message handler: the error plus a traceback. */
static int msgh(lua_State *L)
{
	if (lua_touserdata(L, 1) == &os_exit_mark)
		return 1;
	const char *msg = lua_tostring(L, 1);
	if (!msg) {
		if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
			return 1;
		msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
	}
	msg = at_program_line(L, msg);
	luaL_traceback(L, L, msg, 1);
	/* the last level is run.c's protected loop when a sample's handler
	 * failed: not the script's */
	size_t n, tail = sizeof "\n\t[C]: in ?" - 1;
	const char *t = lua_tolstring(L, -1, &n);
	if (n > tail && !memcmp(t + n - tail, "\n\t[C]: in ?", tail))
		lua_pushlstring(L, t, n - tail);
	return 1;
}

void lp_run_init(struct lp_run *run)
{
	*run = (struct lp_run){ .switch_view.ref = LUA_NOREF };
	for (int h = 0; h < LP_HOOK_N; h++)
		run->vm.ref[h] = LUA_NOREF;
}

/* The global function name in the registry, or LUA_NOREF. */
static int hook_ref(lua_State *L, const char *name)
{
	if (lua_getglobal(L, name) == LUA_TFUNCTION)
		return luaL_ref(L, LUA_REGISTRYINDEX);
	lua_pop(L, 1);
	return LUA_NOREF;
}

/* os.exit([code]) in a script: ends the run at once, as in plain Lua: the
 * calling hook stops there and no further hook runs (on_end included),
 * but luaprof still ends the run its own way (the command stopped as by
 * luaprof.exit(), the recording closed) and exits with code: true or none
 * 0, false 1, else the number. */
static int l_os_exit(lua_State *L)
{
	struct lp_run *run = lp_get_run(L);
	int code = lua_isboolean(L, 1) ? !lua_toboolean(L, 1) : (int)luaL_optinteger(L, 1, 0);
	run->os_exit = true;
	run->exit_requested = 1;
	run->os_exit_code = code & 0xff;
	lua_pushlightuserdata(L, &os_exit_mark);
	return lua_error(L);
}

/* Whether a failed pcall's error (on the top) is os.exit's: then it is
 * popped. */
static bool exited(struct lp_run *run)
{
	if (!run->os_exit || lua_touserdata(run->vm.L, -1) != &os_exit_mark)
		return false;
	lua_pop(run->vm.L, 1);
	return true;
}

/* The top-level pcall of the script (on the stack), guarded; 0, 1 when luaprof.options
 * stopped it on purpose (--help), or -1 after the one line. */
static int run_main_chunk(struct lp_run *run)
{
	/* a one-liner's front end gets its aggregations in C as its argument
	 * (local AGG = ...): the program's code, which reaches globals and
	 * require, never sees them */
	int nargs = run->aggs.on;
	if (nargs)
		lp_agg_open(run->vm.L);
	lp_guard_enter(&run->vm.guard, "the script's top level");
	int status = lua_pcall(run->vm.L, nargs, 0, LP_SLOT_MSGH);
	lp_guard_leave(&run->vm.guard);
	if (status == LUA_OK)
		return 0;
	if (exited(run))
		return 1;
	if (run->opt.stopped)       /* luaprof.options did what was asked */
		return run->opt.stopped == 1 ? 1 : -1;
	lp_guard_explain(&run->vm.guard, status, lua_tostring(run->vm.L, -1));
	return -1;
}

static void set_args(lua_State *L, const char *script, char **args, int nargs)
{
	lua_createtable(L, nargs, 1);
	lua_pushstring(L, script);
	lua_rawseti(L, -2, 0);
	for (int i = 0; i < nargs; i++) {
		lua_pushstring(L, args[i]);
		lua_rawseti(L, -2, i + 1);
	}
	lua_setglobal(L, "arg");
}

/* on_event, when the script defines it, must map event names to
 * functions: checked once the top level has run, before anything opens. */
static int check_on_event(lua_State *L)
{
	int t = lua_getglobal(L, "on_event");
	int rc = 0;
	if (t != LUA_TNIL && t != LUA_TTABLE) {
		fprintf(stderr, "luaprof: on_event must be a table of event names to functions "
				"(on_event[\"sched:sched_switch\"] = function(s) ... end), not a %s\n",
			lua_typename(L, t));
		rc = -1;
	}
	for (lua_pushnil(L); t == LUA_TTABLE && !rc && lua_next(L, -2); lua_pop(L, 1)) {
		if (lua_type(L, -2) != LUA_TSTRING || !lua_isfunction(L, -1)) {
			const char *key = luaL_tolstring(L, -2, NULL);  /* the value is now at -2 */
			fprintf(stderr, "luaprof: on_event[%s] must be a function keyed by an event "
					"name (on_event[\"sched:sched_switch\"] = function(s) ... end), "
					"not a %s\n", LP_SHOW(key), luaL_typename(L, -2));
			lua_pop(L, 1);
			rc = -1;
		}
	}
	lua_settop(L, LP_SLOT_MSGH);
	return rc;
}

/* Whether the file is a precompiled chunk (LUA_SIGNATURE, after a first
 * line of '#' as luaL_loadfilex skips it): then one line says it is
 * refused. */
static bool bytecode(const char *script)
{
	char head[sizeof LUA_SIGNATURE - 1];
	FILE *f = fopen(script, "re");
	int c = f ? getc(f) : EOF;
	if (c == '#') {
		while ((c = getc(f)) != EOF && c != '\n')
			;
		c = c == '\n' ? getc(f) : EOF;
	}
	if (c != EOF)
		ungetc(c, f);
	bool bin = f && fread(head, 1, sizeof head, f) == sizeof head &&
		   !memcmp(head, LUA_SIGNATURE, sizeof head);
	if (f)
		fclose(f);
	if (bin)
		fprintf(stderr, "luaprof: %s is precompiled Lua bytecode (luac output): luaprof "
			"runs scripts from their source text only; give the .lua file\n", script);
	return bin;
}

/* A new state for run (under the guard's allocator), which lp_get_run
 * finds from now on; -1 after the message when out of memory. */
static int new_state(struct lp_run *run, const char *script)
{
	lua_State *L = lp_guard_newstate(&run->vm.guard, run->vm.memory);
	if (!L) {
		fprintf(stderr, "luaprof: cannot create the Lua state: out of memory\n");
		return -1;
	}
	run->vm.L = L;
	run->vm.script = script;
	lp_set_run(L, run);
	lua_gc(L, LUA_GCGEN, 0, 0);
	return 0;
}

/* Lua's standard libraries as a script sees them: no LUA_PATH or
 * LUA_CPATH read, source text only (ltext.c), coroutines under the guard,
 * os.exit ending the run luaprof's way. */
static void open_std_libs(lua_State *L)
{
	lua_pushboolean(L, 1);          /* LUA_PATH and LUA_CPATH are not read */
	lua_setfield(L, LUA_REGISTRYINDEX, "LUA_NOENV");
	luaL_openlibs(L);
	lp_text_only(L);
	lp_guard_open_coroutines(L);
	lua_getglobal(L, "os");
	lua_pushcfunction(L, l_os_exit);
	lua_setfield(L, -2, "exit");
	lua_pop(L, 1);
}

/* The script's require path, and whether missing fields are said:
 * luaprof's own scripts read s.cpu and the like knowing they may be nil,
 * and a one-liner's compiler says it at start: no notes. */
static void set_script(struct lp_run *run, const char *script)
{
	lp_script_set_path(run->vm.L, script);
	if (run->aggs.on || lp_script_is_shipped(script))
		run->view.noted = ~(uint64_t)0;
}

/* The global luaprof and its modules, arg, and the sample view; the
 * message handler pushed at LP_SLOT_MSGH. */
static void open_luaprof(lua_State *L, struct lp_run *run, const char *script, char **args,
			 int nargs)
{
	lua_pushcfunction(L, msgh);             /* stays at LP_SLOT_MSGH */
	luaL_requiref(L, "luaprof", luaopen_luaprof, 1);
	lua_pop(L, 1);
	set_args(L, script, args, nargs);
	lp_sample_open(L, run);
}

/* Loads the script's source; -1 after the one line when it cannot. */
static int load_script(struct lp_run *run, const char *script)
{
	lua_State *L = run->vm.L;
	int status = luaL_loadfilex(L, script, "t");    /* source text only: ltext.c */
	if (status == LUA_ERRFILE) {
		/* Lua's "cannot open|read PATH: REASON" quotes the path whole */
		const char *msg = lua_tostring(L, -1), *why = msg ? strrchr(msg, ':') : NULL;
		bool verb = msg && !strncmp(msg, "cannot ", 7);
		fprintf(stderr, "luaprof: cannot %.*s %s: %s\n", verb ? (int)strcspn(msg + 7,
			" ") : 4,
			verb ? msg + 7 : "open", LP_SHOW(script),
			why ? why + 1 + (why[1] == ' ') : "unreadable");
		return -1;
	}
	if (status != LUA_OK) {
		run->vm.guard.hook = "loading the script";
		if (status != LUA_ERRSYNTAX || !bytecode(script))
			lp_guard_explain(&run->vm.guard, status, lua_tostring(L, -1));
		return -1;
	}
	return 0;
}

/* What the top level left settles: on_event's shape, the options, the
 * hooks; 0, or as lp_options_check, or -1 after a message. */
static int check_top_level(struct lp_run *run)
{
	if (check_on_event(run->vm.L))
		return -1;
	int rc = lp_options_check(run);
	if (rc)
		return rc;
	if (run->opt.mode == LP_MODE_RUN && !run->aggs.on && lp_hooks_check(run))
		return -1;
	return 0;
}

/* The hooks' functions in the registry, and the per-sample call's fixed
 * slots pushed above LP_SLOT_MSGH. */
static void set_hooks(struct lp_run *run)
{
	lua_State *L = run->vm.L;
	for (int h = 0; h < LP_HOOK_N; h++)
		run->vm.ref[h] = hook_ref(L, lp_hook_names[h]);
	lua_rawgeti(L, LUA_REGISTRYINDEX, run->vm.ref[LP_HOOK_SAMPLE]);  /* LP_SLOT_ON_SAMPLE */
	lua_rawgeti(L, LUA_REGISTRYINDEX, run->vm.ref_view);       /* LP_SLOT_VIEW: its cache */
	lua_newtable(L);                                        /* LP_SLOT_HANDLERS */
	lua_pushnil(L);                                         /* LP_SLOT_FIELDS */
	lua_pushnil(L);                                         /* LP_SLOT_FKEYS */
}

int lp_vm_open(struct lp_run *run, const char *script, char **args, int nargs)
{
	if (new_state(run, script))
		return -1;
	open_std_libs(run->vm.L);
	set_script(run, script);
	open_luaprof(run->vm.L, run, script, args, nargs);
	if (lp_guard_start(&run->vm.guard, run->vm.timeout)) {
		fprintf(stderr, "luaprof: cannot start the --script-timeout watchdog thread\n");
		return -1;
	}
	if (load_script(run, script))
		return -1;
	int rc = run_main_chunk(run);
	if (rc)
		return rc;
	run->vm.started = true;
	if ((rc = check_top_level(run)))
		return rc;
	set_hooks(run);
	return 0;
}

/* Keeps the first error's line for on_end's info.error: what
 * lp_guard_explain says, without the traceback. */
static void keep_error(struct lp_run *run, int status, const char *msg)
{
	const struct lp_guard *g = &run->vm.guard;
	char line[512];
	if (run->error)
		return;
	if (status == LUA_ERRMEM && g->limit_hit)
		snprintf(line, sizeof line, "%s: out of memory: the script's Lua data reached the "
			 "--script-memory limit of %zu MB", g->hook, g->limit >> 20);
	else if (status == LUA_ERRMEM)
		snprintf(line, sizeof line, "%s: out of memory", g->hook);
	else {
		const char *end = msg ? strstr(msg, "\nstack traceback:") : NULL;
		snprintf(line, sizeof line, "%.*s", end ? (int)(end - msg) : (int)sizeof line,
			 msg ? msg : "(error object is not a string)");
	}
	run->error = strdup(line);
}

/* Reports the error lua_pcall left (status) on top of the stack and pops
 * it; always -1. */
static int call_failed(struct lp_run *run, int status)
{
	const char *msg = lua_tostring(run->vm.L, -1);
	lp_guard_explain(&run->vm.guard, status, msg);
	keep_error(run, status, msg);
	lua_pop(run->vm.L, 1);
	run->failed = true;
	return -1;
}

/* A hook wrote to standard output and the write failed.  A pipe or socket
 * whose reader has gone (`luaprof run ... | head`) ends the run as
 * luaprof.exit() does, quietly, and the command is left to finish on its
 * own (run->output_closed); anything else (a full disk) is luaprof's
 * failure, with one line.  Returns 0 or -1. */
static int output_failed(struct lp_run *run)
{
	int err = errno;                /* most often the failed write's */
	struct stat st;
	run->exit_requested = 1;
	if (!fstat(STDOUT_FILENO, &st) && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) {
		run->output_closed = true;
		return 0;
	}
	if (!run->output_failed)
		fprintf(stderr, "luaprof: writing the standard output failed: %s\n",
			err ? strerror(err) : "write error");
	run->output_failed = run->failed = true;
	return -1;
}

/* 0 after a hook call that went well (the output may have failed), or
 * the failure. */
static int call_done(struct lp_run *run, int status)
{
	if (status != LUA_OK)
		return exited(run) ? 0 : call_failed(run, status);
	if (__builtin_expect(ferror_unlocked(stdout) && !run->output_closed && !run->output_failed, 0))
		return output_failed(run);
	return 0;
}

int lp_vm_flush(struct lp_run *run)
{
	if (run->output_closed)
		return 0;
	errno = 0;
	if (!fflush(stdout) && !ferror(stdout) && !run->output_failed)
		return 0;
	return output_failed(run);
}

int lp_vm_call(struct lp_run *run, enum lp_hook h, int nargs)
{
	lua_State *L = run->vm.L;
	lp_trace_leave(run);            /* no s.args outside its sample's call */
	lua_rawgeti(L, LUA_REGISTRYINDEX, run->vm.ref[h]);
	lua_insert(L, -1 - nargs);
	lp_guard_enter(&run->vm.guard, lp_hook_names[h]);
	int status = lua_pcall(L, nargs, 0, LP_SLOT_MSGH);
	lp_guard_leave(&run->vm.guard);
	return call_done(run, status);
}

int lp_vm_call_handler(struct lp_run *run, int idx, const char *name, bool on_sample)
{
	lua_State *L = run->vm.L;
	if (on_sample)
		lua_pushvalue(L, LP_SLOT_ON_SAMPLE);
	else
		lua_rawgeti(L, LP_SLOT_HANDLERS, idx);
	run->view.ud = lp_view_next(run, on_sample ? LP_VIEW_SAMPLE : LP_VIEW_EVENT);
	lua_pushlightuserdata(L, (void *)(uintptr_t)run->view.ud);
	lp_guard_enter(&run->vm.guard, name);
	lua_call(L, 1, 0);     /* an error unwinds run.c's protected loop */
	lp_guard_leave(&run->vm.guard);
	return call_done(run, LUA_OK);
}

int lp_vm_unwound(struct lp_run *run, int status)
{
	if (atomic_load_explicit(&run->vm.guard.calls, memory_order_relaxed) & 1)
		lp_guard_leave(&run->vm.guard);         /* the error left a hook's call */
	lp_sample_invalidate(run->vm.L, run);
	lp_trace_unwound(run);
	return call_done(run, status);
}

/* The state is closed under the guard (its __gc finalizers may loop),
 * then the watchdog stopped. */
void lp_vm_close(struct lp_run *run)
{
	if (run->vm.L)
		lp_guard_close(&run->vm.guard, run->vm.L);
	lp_guard_stop(&run->vm.guard);
	run->vm.L = NULL;
	free(run->error);
	run->error = NULL;
	lp_agg_regs_free(run);
	lp_reports_free(run);
	lp_fold_free(run);
	lp_stack_free(run);
	lp_strings_free(run);
	lp_idents_free(run);
}
