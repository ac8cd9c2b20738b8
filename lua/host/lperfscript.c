/*
 * lperfscript.c - luaprof.perfscript: a sample's call chain as `perf
 * script` prints it, for scripts/script.lua.
 *
 *   perfscript.chain(s)   the lines of s's call stack, leaf first: for each
 *                         frame "\t%16x SYM+0xOFF (DSO)\n" (a user frame's
 *                         offset in its mapped file, a kernel frame's
 *                         address; [unknown] for what has no name), names
 *                         demangled without parameters, at most
 *                         kernel.perf_event_max_stack frames: what perf
 *                         script prints under a sample's header line.  On
 *                         a stack unwound from a stack copy (--call-graph
 *                         dwarf), callers at their return address - 1 and
 *                         the functions inlined at each user frame's
 *                         address as "\t%16x FUNC+0xOFF (inlined)\n" lines,
 *                         as perf prints them (add_frame_lines).  A
 *                         corrupt chain (an entry at or above
 *                         PERF_CONTEXT_MAX that is no context marker):
 *                         "", as perf drops it whole.
 *   perfscript.frame(s)   " %16x SYM+0xOFF (DSO)": the sampled frame, as
 *                         perf prints it on the header line without a chain
 *                         (the absolute address).
 *   perfscript.chain(s, fields), perfscript.frame(s, fields)
 *                         the same with what perf script -F prints after
 *                         each address: fields = { sym =, symoff =, dso =,
 *                         srcline = } (booleans; symoff only with sym), the
 *                         source line as "\n  FILE:LINE" after the object
 *                         (lp_stack_srcline), " (inlined)" last.
 *
 * The text depends only on the stack, so it is cached per stack as s.folded
 * is (lfold.c): a stack seen before costs a hash and a comparison.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "lfold.h"
#include "linit.h"
#include "lpaux.h"
#include "lp.h"
#include "lstack.h"
#include "luaprof/dwarf.h"

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
	return lp_view_check(L, 1);
}

/* The name perf gives frame f's symbol (demangled without parameters):
 * malloc'd into *buf when it differs from f->sym; NULL when f has none. */
static const char *perf_name(const struct lp_frame *f, char **buf)
{
	*buf = f->sym && f->mangled ? lp_demangle_name(f->mangled, false) : NULL;
	return *buf ? *buf : f->sym;
}

/* What a frame's line shows besides its address: perf script's -F sym,
 * symoff, dso, srcline (its print_ip_opts). */
struct shown {
	bool sym, symoff, dso, srcline;
};

static const struct shown perf_default = { true, true, true, false };

/* The text after the address: " NAME+0xOFF (DSO)", " (inlined)" in place
 * of the object, "[unknown]" for no name (then no offset), and "\n  "
 * and the source line before " (inlined)", as sample__fprintf_callchain
 * prints them for what *o shows. */
static void add_rest(luaL_Buffer *b, const struct shown *o, const char *name, uint64_t off,
		     const char *dso, bool inlined, const char *srcline)
{
	char text[32];
	if (o->sym) {
		luaL_addchar(b, ' ');
		luaL_addstring(b, name ? name : "[unknown]");
		if (name && o->symoff) {
			snprintf(text, sizeof text, "+0x%" PRIx64, off);
			luaL_addstring(b, text);
		}
	}
	if (o->dso && !inlined) {
		luaL_addstring(b, " (");
		luaL_addstring(b, dso ? dso : "[unknown]");
		luaL_addchar(b, ')');
	}
	if (o->srcline && srcline) {
		luaL_addstring(b, "\n  ");
		luaL_addstring(b, srcline);
	}
	if (inlined)
		luaL_addstring(b, " (inlined)");
}

/* One line of a chain: "\t%16x" and the rest. */
static void add_line(luaL_Buffer *b, const struct shown *o, uint64_t addr, const char *name,
		     uint64_t off, const char *dso, bool inlined, const char *srcline)
{
	char text[24];
	snprintf(text, sizeof text, "\t%16" PRIx64, addr);
	luaL_addstring(b, text);
	add_rest(b, o, name, off, dso, inlined, srcline);
	luaL_addchar(b, '\n');
}

/* The source line perf script's srcline field prints for frame f, at its
 * own address (a frame-pointer caller's return address, as perf looks it
 * up; an unwound caller's is already the address before it): NULL where
 * it prints none (no object). */
static const char *frame_srcline(struct lp_run *run, const struct lp_frame *f,
				 const struct lp_srcframe *sf, int ns)
{
	if (!f->dso)
		return NULL;
	return lp_stack_srcline(run, f, f->vaddr, ns > 0 ? sf[0].file : NULL,
				ns > 0 ? sf[0].line : 0, false);
}

/* Frame i of the stack (run->stack.frames), as perf script prints it.
 * An unwound caller is printed at its return address - 1, where perf's
 * unwinders (libdw's, libunwind's) leave every frame but an activation
 * one.  On an unwound stack, a frame with DWARF for its address is
 * printed as perf's append_inlines gives it: one line per function there,
 * innermost first, each named by DWARF; a name that is the symbol's own
 * is the frame's line (object and all), any other one (an inlined
 * function, or the DWARF name of a symbol that has several) a line marked
 * "(inlined)", and the frame has no line of its own.  On a callchain
 * (frame pointers) perf adds no inlined frames, nor does this. */
static void add_frame_lines(luaL_Buffer *b, struct lp_run *run, size_t i, const struct shown *o)
{
	const struct lp_frame *f = &run->stack.frames[i];
	uint64_t addr = f->kernel || !f->fileoff ? f->ip : f->fileoff, off = f->symoff;
	const struct lp_srcframe *sf = NULL;
	char *buf;
	const char *name = perf_name(f, &buf);
	if (run->stack.frame_caller[i])
		addr--, off--;
	bool inl = run->view.unwound && name && !f->kernel;
	int ns = inl || (o->srcline && !f->kernel) ? lp_stack_srcframes_at(run, i, &sf) : 0;
	const char *src = o->srcline ? frame_srcline(run, f, sf, ns) : NULL;
	for (int j = 0; inl && j < ns; j++) {
		const char *own = sf[j].name ? sf[j].name : j + 1 < ns ? "??" : name;
		/* each of append_inlines' lines has its addr2line record's line:
		 * the innermost's at the address, the others' at their calls */
		if (o->srcline && j)
			src = lp_stack_srcline(run, f, f->vaddr, sf[j].file,
					       sf[j].line, false);
		add_line(b, o, addr, own, off, f->dso, strcmp(own, name) != 0, src);
	}
	if (!inl || !ns)
		add_line(b, o, addr, name, off, f->dso, false, src);
	free(buf);
}

/* How many of the n frames perf script prints: at most max, and on an
 * unwound stack at most max of the callchain's kernel part and max user
 * frames unwound (perf limits each to the sysctl). */
static size_t printed_frames(const struct lp_run *run, size_t n, size_t max)
{
	if (!run->view.unwound)
		return n < max ? n : max;
	size_t kernel = 0, user = 0;
	for (size_t i = 0; i < n; i++) {
		size_t *c = run->stack.frames[i].kernel ? &kernel : &user;
		if (++*c > max)
			return i;
	}
	return n;
}

/* The fields table at idx ({ sym =, symoff =, dso =, srcline = }
 * booleans) into *o; perf script's default when it is absent.  False when
 * it is the default. */
static bool read_shown(lua_State *L, int idx, struct shown *o)
{
	*o = perf_default;
	if (lua_isnoneornil(L, idx))
		return false;
	luaL_checktype(L, idx, LUA_TTABLE);
	static const char *const keys[] = { "sym", "symoff", "dso", "srcline" };
	bool *v[] = { &o->sym, &o->symoff, &o->dso, &o->srcline };
	for (int i = 0; i < 4; i++) {
		lua_getfield(L, idx, keys[i]);
		*v[i] = lua_toboolean(L, -1);
		lua_pop(L, 1);
	}
	return true;
}

static int l_chain(lua_State *L)
{
	struct lp_run *run = check_sample(L);
	struct lp_fold_stack st;
	struct shown o;
	bool chosen = read_shown(L, 2, &o), keyed = !chosen &&
					      lp_stack_fold_key(run, LP_FOLD_PERF_TEXT, &st);
	if (!chosen && lp_fold_get(L, run, LP_FOLD_PERF_TEXT, keyed ? &st : NULL))
		return 1;
	size_t n = lp_stack_frames(run);
	/* perf discards a corrupt chain whole: no line under the header */
	n = run->stack.corrupt ? 0 : printed_frames(run, n, max_stack());
	luaL_Buffer b;
	luaL_buffinit(L, &b);
	for (size_t i = 0; i < n; i++)
		add_frame_lines(&b, run, i, &o);
	luaL_pushresult(&b);
	if (!chosen)
		lp_fold_put(L, run, LP_FOLD_PERF_TEXT);
	return 1;
}

static int l_frame(lua_State *L)
{
	struct lp_run *run = check_sample(L);
	const struct lp_frame *f = lp_stack_leaf(run);
	struct shown o;
	read_shown(L, 2, &o);
	char *buf, text[24];
	const char *name = perf_name(f, &buf), *src = NULL;
	const struct lp_srcframe *sf = NULL;
	if (o.srcline) {
		int ns = f->kernel ? 0 : lp_stack_leaf_srcframes(run, &sf);
		src = frame_srcline(run, f, sf, ns);
	}
	luaL_Buffer b;
	luaL_buffinit(L, &b);
	snprintf(text, sizeof text, " %16" PRIx64, run->view.rec->u.sample.ip);
	luaL_addstring(&b, text);
	add_rest(&b, &o, name, f->symoff, f->dso, false, src);
	free(buf);
	luaL_pushresult(&b);
	return 1;
}

int luaopen_luaprof_perfscript(lua_State *L)
{
	static const luaL_Reg funcs[] = {
		{ "chain", l_chain }, { "frame", l_frame }, { NULL, NULL },
	};
	luaL_newlib(L, funcs);
	return 1;
}
