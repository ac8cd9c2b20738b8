/*
 * lperfscript.c - luaprof.perfscript: a sample's call chain as `perf
 * script` prints it, for scripts/script.lua.
 *
 *   perfscript.chain(s)   the lines of s's call stack, leaf first: for each
 *                         frame "\t%16x SYM+0xOFF (DSO)\n" (a user frame's
 *                         offset in its mapped file, a kernel frame's
 *                         address; [unknown] for what has no name), names
 *                         demangled without parameters, inlined frames
 *                         left out, at most kernel.perf_event_max_stack
 *                         frames: what perf script prints under a sample's
 *                         header line.
 *   perfscript.frame(s)   " %16x SYM+0xOFF (DSO)": the sampled frame, as
 *                         perf prints it on the header line without a chain
 *                         (the absolute address).
 *
 * The text depends only on the stack, so it is cached per stack as s.folded
 * is (lfold.c): a stack seen before costs a hash and a comparison.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <lauxlib.h>

#include "lfold.h"
#include "linit.h"
#include "lpaux.h"
#include "lp.h"
#include "lstack.h"

#define DEFAULT_MAX_STACK 127   /* the kernel's default perf_event_max_stack */

/* perf script's limit on frames: the sysctl, read once. */
static size_t max_stack(void)
{
	static size_t max;
	if (!max) {
		FILE *f = fopen("/proc/sys/kernel/perf_event_max_stack", "r");
		unsigned long v = 0;
		if (!f || fscanf(f, "%lu", &v) != 1 || !v)
			v = DEFAULT_MAX_STACK;
		if (f)
			fclose(f);
		max = v;
	}
	return max;
}

static struct lp_run *check_sample(lua_State *L)
{
	struct lp_run *run = lua_touserdata(L, lua_upvalueindex(1));
	if (lua_touserdata(L, 1) != run->view.ud || !run->view.rec)
		luaL_argerror(L, 1, "the sample on_sample was given, during that call");
	return run;
}

/* "SYM+0xOFF", or "[unknown]"; names as perf prints them (no parameters). */
static void add_symbol(luaL_Buffer *b, const struct lp_frame *f)
{
	char off[32];
	if (!f->sym) {
		luaL_addstring(b, "[unknown]");
		return;
	}
	char *name = f->mangled ? lp_demangle_name(f->mangled, false) : NULL;
	luaL_addstring(b, name ? name : f->sym);
	free(name);
	snprintf(off, sizeof off, "+0x%" PRIx64, f->symoff);
	luaL_addstring(b, off);
}

static void add_frame(luaL_Buffer *b, const struct lp_frame *f, char lead, uint64_t addr)
{
	char head[24];
	snprintf(head, sizeof head, "%c%16" PRIx64 " ", lead, addr);
	luaL_addstring(b, head);
	add_symbol(b, f);
	luaL_addstring(b, " (");
	luaL_addstring(b, f->dso ? f->dso : "[unknown]");
	luaL_addchar(b, ')');
}

static int l_chain(lua_State *L)
{
	struct lp_run *run = check_sample(L);
	struct lp_fold_stack st;
	bool keyed = lp_stack_fold_key(run, LP_FOLD_PERF_TEXT, &st);
	if (lp_fold_get(L, run, LP_FOLD_PERF_TEXT, keyed ? &st : NULL))
		return 1;
	size_t n = lp_stack_frames(run), max = max_stack();
	luaL_Buffer b;
	luaL_buffinit(L, &b);
	for (size_t i = 0; i < n && i < max; i++) {
		const struct lp_frame *f = &run->stack.frames[i];
		add_frame(&b, f, '\t', f->kernel || !f->fileoff ? f->ip : f->fileoff);
		luaL_addchar(&b, '\n');
	}
	luaL_pushresult(&b);
	lp_fold_put(L, run, LP_FOLD_PERF_TEXT);
	return 1;
}

static int l_frame(lua_State *L)
{
	struct lp_run *run = check_sample(L);
	luaL_Buffer b;
	luaL_buffinit(L, &b);
	add_frame(&b, lp_stack_leaf(run), ' ', run->view.rec->u.sample.ip);
	luaL_pushresult(&b);
	return 1;
}

int luaopen_luaprof_perfscript(lua_State *L)
{
	static const luaL_Reg funcs[] = {
		{ "chain", l_chain }, { "frame", l_frame }, { NULL, NULL },
	};
	luaL_newlibtable(L, funcs);
	lua_pushlightuserdata(L, lp_get_run(L));
	luaL_setfuncs(L, funcs, 1);
	return 1;
}
