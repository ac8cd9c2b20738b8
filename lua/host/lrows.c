/*
 * lrows.c - luaprof.report: perf report's rows (core/agg/rows.c) for
 * scripts, fed in C.
 *
 *   local rep = luaprof.report{ sort = { "sym", "dso" }, children = true,
 *                               demangle = "short", feed = "all" }
 *   rep:events()        -> the events' names with samples, sorted
 *   rep:rows(event)     -> { samples =, total =, { cells = { ... }, self =,
 *                            children =, samples =, place = }, ... }
 *                          (rows in the order they were made)
 *   rep:rows(event, { order = "self" | "children", limit = N })
 *                       -> the same, the first N rows in perf report's order
 *   rep:comm(tid)       -> the thread's command at its last sample (sort pid)
 *   rep:add(s)          -> feed = "script": adds s, the sample being handled
 *
 * With feed = "all" (the default) the run adds every sample to the report
 * itself, before any on_sample: a script that only reports needs no
 * handler, and no Lua runs per sample.  The frames are resolved as
 * s.stack's, source lines looked up only for the srcline key or the
 * inlined functions of DWARF-unwound stacks.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "lclass.h"
#include "linit.h"
#include "lp.h"
#include "lpaux.h"
#include "lstack.h"
#include "luaprof/dwarf.h"
#include "luaprof/rows.h"

struct lp_report_reg {
	struct lp_feeder feeder;        /* first: feed = "all" registers it (lfeed.c) */
	struct lp_rows_spec spec;
	bool feed_all;
	struct lp_rows **by_event;      /* per event + 1 (NULL: not yet) */
	size_t nr_by_event;
	struct lp_rows **tables;        /* per event name, in the order first seen */
	char **names;
	size_t nr_tables;
	struct lp_rows_frame *frames;   /* scratch: the stack */
	size_t cap_frames;
};

static const char *const keys[] = { "sym", "dso", "comm", "pid", "tid", "process", "srcline", NULL };
static const char *const demangles[] = { "short", "full", "none", NULL };
static const char *const feeds[] = { "all", "script", NULL };

static const struct lp_class report_class;

static struct lp_report_reg *check(lua_State *L)
{
	return lp_class_check(L, 1, &report_class);
}

static void reg_free(struct lp_report_reg *g)
{
	for (size_t i = 0; i < g->nr_tables; i++) {
		lp_rows_free(g->tables[i]);
		free(g->names[i]);
	}
	free(g->tables);
	free(g->names);
	free(g->by_event);
	free(g->frames);
	memset(g, 0, sizeof *g);
}

/* The table of event (index, name: NULL as "?"), made when new. */
static struct lp_rows *table_of(struct lp_report_reg *g, int event, const char *name)
{
	size_t e = (size_t)(event + 1);
	if (e < g->nr_by_event && g->by_event[e])
		return g->by_event[e];
	if (e >= g->nr_by_event) {
		struct lp_rows **v = realloc(g->by_event, (e + 1) * sizeof *v);
		if (!v)
			return NULL;
		memset(v + g->nr_by_event, 0, (e + 1 - g->nr_by_event) * sizeof *v);
		g->by_event = v;
		g->nr_by_event = e + 1;
	}
	if (!name)
		name = "?";
	for (size_t i = 0; i < g->nr_tables; i++)
		if (!strcmp(g->names[i], name))
			return g->by_event[e] = g->tables[i];
	struct lp_rows **t = realloc(g->tables, (g->nr_tables + 1) * sizeof *t);
	if (!t)
		return NULL;
	g->tables = t;
	char **n = realloc(g->names, (g->nr_tables + 1) * sizeof *n);
	if (!n)
		return NULL;
	g->names = n;
	struct lp_rows *r = lp_rows_new(&g->spec);
	char *copy = strdup(name);
	if (!r || !copy) {
		lp_rows_free(r);
		free(copy);
		return NULL;
	}
	g->tables[g->nr_tables] = r;
	g->names[g->nr_tables++] = copy;
	return g->by_event[e] = r;
}

/* perf report's name for a data object's frame: NAME+0xOFF (its
 * _hist_entry__sym_snprintf for STT_OBJECT; an unwound caller's at its
 * return address - 1), interned for the run. */
static const char *object_name(struct lp_run *run, const struct lp_frame *f, bool caller)
{
	struct lp_srclines *sl = lp_stack_lines(run);
	char b[512];
	snprintf(b, sizeof b, "%s+0x%" PRIx64, f->sym, f->symoff - caller);
	return sl ? lp_srclines_intern(sl, b) : f->sym;
}

/* A frame as a row sees it.  A BPF program's (a KSYMBOL map's) is at
 * its offset in the program, where perf's symbol for it starts at 0: two
 * programs of one name (loaded twice) are one row, as in perf. */
static struct lp_rows_frame row_frame(struct lp_run *run, const struct lp_frame *f, bool caller)
{
	return (struct lp_rows_frame){
		.sym = f->object && f->sym ? object_name(run, f, caller) : f->sym,
		.mangled = f->object ? NULL : f->mangled, .dso = f->dso, .kernel = f->kernel,
		.ip = f->ksymbol ? f->symoff : f->ip,
		.offset = f->fileoff && !f->kernel ? f->fileoff : 0,
		.symoff = f->symoff,
	};
}

static bool with(const struct lp_report_reg *g, enum lp_rows_key k)
{
	for (unsigned i = 0; i < g->spec.nr_keys; i++)
		if (g->spec.keys[i] == k)
			return true;
	return false;
}

static bool frames_room(struct lp_report_reg *g, size_t n)
{
	if (n <= g->cap_frames)
		return true;
	size_t c = g->cap_frames ? g->cap_frames * 2 : 256;
	while (c < n)
		c *= 2;
	struct lp_rows_frame *v = realloc(g->frames, c * sizeof *v);
	if (!v)
		return false;
	g->frames = v;
	g->cap_frames = c;
	return true;
}

/* The current sample's stack as s.stack has it, into g->frames; how many,
 * or -1 when out of memory.  Source lines only when a row needs them. */
static long stack_of(struct lp_run *run, struct lp_report_reg *g, bool srcline)
{
	size_t n = lp_stack_frames(run), k = 0;
	bool unwound = run->view.unwound;
	for (size_t i = 0; i < n; i++) {
		const struct lp_frame *f = &run->stack.frames[i];
		const struct lp_srcframe *sf = NULL;
		int ns = srcline || unwound ? lp_stack_srcframes(run, i, &sf) : 0;
		if (!frames_room(g, k + (size_t)(ns > 0 ? ns : 1)))
			return -1;
		for (int j = 0; unwound && j < ns - 1; j++) {
			struct lp_rows_frame *x = &g->frames[k++];
			*x = row_frame(run, f, false);
			x->sym = sf[j].func;
			x->mangled = sf[j].mangled;
			x->symoff = 0;
			x->inlined = true;
			x->file = sf[j].file;
			x->line = sf[j].line;
		}
		struct lp_rows_frame *x = &g->frames[k++];
		*x = row_frame(run, f, run->stack.frame_caller[i]);
		x->caller = run->stack.frame_caller[i];
		if (ns) {
			x->file = sf[ns - 1].file;
			x->line = sf[ns - 1].line;
		}
		if (srcline)
			x->srcline = lp_stack_srcline(run, f, f->vaddr - x->caller, x->file, x->line,
							true);
	}
	return (long)k;
}

/* Adds the current sample (run->view) to g: 0, or -1 when out of memory. */
static int add_sample(struct lp_run *run, struct lp_report_reg *g)
{
	const struct lp_sample *smp = &run->view.rec->u.sample;
	struct lp_rows *r = table_of(g, run->view.event,
				     run->src->event_name(run->src->ctx, run->view.event));
	if (!r)
		return -1;
	bool srcline = with(g, LP_ROWS_SRCLINE);
	struct lp_rows_frame leaf = row_frame(run, lp_stack_leaf(run), false);
	if (srcline) {
		const struct lp_srcframe *sf;
		if (lp_stack_leaf_srcframes(run, &sf) > 0) {
			leaf.file = sf[0].file;
			leaf.line = sf[0].line;
		}
		leaf.srcline = lp_stack_srcline(run, lp_stack_leaf(run), lp_stack_leaf(run)->vaddr,
					       leaf.file, leaf.line, true);
	}
	struct lp_thread *t = lp_view_thread(run);
	struct lp_rows_sample s = { .period = smp->period, .pid = (int32_t)smp->pid,
				    .tid = (int32_t)smp->tid, .comm = t ? t->comm : NULL,
				    .leaf = &leaf };
	if (g->spec.children) {
		long n = stack_of(run, g, srcline);
		if (n < 0)
			return -1;
		s.stack = g->frames;
		s.nr = (size_t)n;
	}
	return lp_rows_add(r, &s) ? -1 : 0;
}

static int feed(struct lp_run *run, struct lp_feeder *f)
{
	return add_sample(run, (struct lp_report_reg *)f);
}

/* Reads the options table at 1 into g. */
static void read_spec(lua_State *L, struct lp_report_reg *g)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	g->spec.nr_keys = 1;
	g->spec.keys[0] = LP_ROWS_SYM;
	if (lua_getfield(L, 1, "sort") != LUA_TNIL) {
		lp_checkfield_type(L, -1, 1, "sort", LUA_TTABLE);
		lua_Integer n = luaL_len(L, -1);
		if (n < 1 || n > LP_ROWS_MAX_KEYS)
			lp_argerror(L, 1, "sort= takes 1 to %d keys", LP_ROWS_MAX_KEYS);
		g->spec.nr_keys = (uint8_t)n;
		for (lua_Integer i = 1; i <= n; i++) {
			lua_geti(L, -1, i);
			g->spec.keys[i - 1] = (uint8_t)lp_checkfield_option(L, -1, 1, "sort", NULL, keys);
			lua_pop(L, 1);
			for (lua_Integer j = 1; j < i; j++)
				if (g->spec.keys[j - 1] == g->spec.keys[i - 1])
					lp_argerror(L, 1, "sort= has %s twice",
						    keys[g->spec.keys[i - 1]]);
		}
	}
	lua_pop(L, 1);
	lua_getfield(L, 1, "children");
	g->spec.children = lua_toboolean(L, -1);
	lua_pop(L, 1);
	lua_getfield(L, 1, "demangle");
	g->spec.demangle = (uint8_t)lp_checkfield_option(L, -1, 1, "demangle", "short", demangles);
	lua_pop(L, 1);
	lua_getfield(L, 1, "feed");
	g->feed_all = lp_checkfield_option(L, -1, 1, "feed", "all", feeds) == 0;
	lua_pop(L, 1);
}

/* luaprof.report{...}: registered with the run. */
static int l_new(lua_State *L)
{
	struct lp_run *run = lp_get_run(L);
	struct lp_report_reg spec;
	memset(&spec, 0, sizeof spec);
	read_spec(L, &spec);
	spec.feeder.add = feed;
	struct lp_report_reg *g = lp_class_alloc(L, &report_class, sizeof *g, 0);
	*g = spec;
	if (g->feed_all)
		lp_feeder_add(L, run, &g->feeder);
	lua_pushvalue(L, -1);   /* kept alive for the run by the registry */
	luaL_ref(L, LUA_REGISTRYINDEX);
	return 1;
}

/* rep:add(s): the sample being handled. */
static int l_add(lua_State *L)
{
	struct lp_report_reg *g = check(L);
	luaL_argcheck(L, !g->feed_all, 1, "this report is fed every sample (feed = \"all\")");
	struct lp_run *run = lp_view_check(L, 2);
	if (add_sample(run, g))
		return lp_nomem(L);
	return 0;
}

static int l_events(lua_State *L)
{
	struct lp_report_reg *g = check(L);
	lp_push_strings(L, (const char *const *)g->names, g->nr_tables);
	lp_sort_sequence(L, -1);
	return 1;
}

static void set_int(lua_State *L, const char *k, uint64_t v)
{
	lua_pushinteger(L, (lua_Integer)v);
	lua_setfield(L, -2, k);
}

static void push_row(lua_State *L, const struct lp_report_reg *g, struct lp_rows *r, size_t i)
{
	struct lp_row row = lp_rows_get(r, i);
	const struct lp_row *w = &row;
	lua_createtable(L, 0, 5);
	lua_createtable(L, g->spec.nr_keys, 0);
	for (unsigned j = 0; j < g->spec.nr_keys; j++) {
		lua_pushstring(L, w->cells[j]);
		lua_rawseti(L, -2, j + 1);
	}
	lua_setfield(L, -2, "cells");
	set_int(L, "self", w->self);
	set_int(L, "children", w->children);
	set_int(L, "samples", w->samples);
	set_int(L, "place", lp_rows_place(r, i));
}

/* rep:rows(event [, { order = "self"|"children", limit = N }]): every row
 * in the order made, or the first limit in perf report's order. */
static int l_rows(lua_State *L)
{
	static const char *const orders[] = { "self", "children", NULL };
	struct lp_report_reg *g = check(L);
	const char *name = luaL_checkstring(L, 2);
	bool sorted = !lua_isnoneornil(L, 3);
	bool children = false;
	lua_Integer limit = LUA_MAXINTEGER;
	if (sorted) {
		luaL_checktype(L, 3, LUA_TTABLE);
		lua_getfield(L, 3, "order");
		children = lp_checkfield_option(L, -1, 3, "order", "self", orders) == 1;
		if (lua_getfield(L, 3, "limit") != LUA_TNIL)
			limit = lp_checkfield_integer(L, -1, 3, "limit");
		luaL_argcheck(L, limit >= 0, 3, "limit= must not be negative");
		lua_pop(L, 2);
	}
	struct lp_rows *r = NULL;
	for (size_t i = 0; i < g->nr_tables && !r; i++)
		if (!strcmp(g->names[i], name))
			r = g->tables[i];
	if (!r) {
		lua_pushnil(L);
		return 1;
	}
	size_t n = lp_rows_count(r);
	uint32_t *order = NULL;
	if (sorted) {
		long k = lp_rows_sort(r, children, (size_t)limit, &order);
		if (k < 0)
			return lp_nomem(L);
		n = (size_t)k;
	}
	lua_createtable(L, (int)n, 2);
	set_int(L, "samples", lp_rows_samples(r));
	set_int(L, "total", lp_rows_total(r));
	for (size_t i = 0; i < n; i++) {
		push_row(L, g, r, order ? order[i] : i);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	free(order);
	return 1;
}

static int l_comm(lua_State *L)
{
	struct lp_report_reg *g = check(L);
	lua_Integer tid = luaL_checkinteger(L, 2);
	for (size_t i = 0; i < g->nr_tables; i++) {
		const char *c = lp_rows_last_comm(g->tables[i], (int32_t)tid);
		if (c) {
			lua_pushstring(L, c);
			return 1;
		}
	}
	lua_pushnil(L);
	return 1;
}

static int l_gc(lua_State *L)
{
	struct lp_report_reg *g = check(L);
	lp_feeder_remove(lp_get_run(L), &g->feeder);
	reg_free(g);
	return 0;
}

static const luaL_Reg methods[] = {
	{ "add", l_add }, { "events", l_events }, { "rows", l_rows }, { "comm", l_comm },
	{ NULL, NULL },
};
static const luaL_Reg meta[] = { { "__gc", l_gc }, { NULL, NULL } };
static const struct lp_class report_class = {
	.name = LP_CLASS_NAME("report", "Report"), .methods = methods, .meta = meta,
};

int luaopen_luaprof_report(lua_State *L)
{
	lp_class_new(L, &report_class, 0);
	lua_pushcfunction(L, l_new);    /* the module is the constructor */
	return 1;
}
