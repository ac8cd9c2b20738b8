/*
 * lpprof.c - luaprof.pprof: writing pprof profiles (core/format/pprof.c).
 *
 *   local p = luaprof.pprof{
 *     sample_types = { {"samples", "count"}, {"cpu", "nanoseconds"} },  -- the default
 *     period = { "cpu", "nanoseconds", 250000 },   -- optional; without the
 *                                    -- number, the mean of the samples' periods
 *     default = "samples",                          -- the type shown first
 *     labels = { "pid", "tid", "comm" },            -- per-sample labels, optional
 *   }
 *   p:add(s [, values])          the current sample's stack (s, in on_sample);
 *                                values default to { 1, s.period }
 *   luaprof.pprof{ ..., feed = "all" }
 *                                the run adds every sample itself, in C,
 *                                as p:add(s) would (no on_sample needed)
 *   p:close()                    frees the profile: a fed one takes no more
 *   p:add_stack(frames, values [, labels])
 *                                a stack built by the script, leaf first:
 *                                { {sym=, dso=, ip=, file=, line=}, ... }
 *   p:write(path [, { duration = ns, gzip = true }])
 *   p:encode([gzip]) -> string
 *
 * p:add reads the sample's frames in C (no Lua table per sample): each
 * frame becomes a location at its address in its object's mapping (the
 * callers' return addresses minus one, pointing into the call, as pprof
 * asks), named by its symbol, with its source file and line and the
 * functions inlined there (pprof's Line list) when DWARF has them, on
 * stacks unwound from a stack copy only, as s.stack (lstack.c finds them); a mapping's build-id is read once, when the
 * mapping is first seen.  A cache from (mapping, address) to location
 * makes a frame seen before cost one hash lookup.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include <lauxlib.h>

#include "lclass.h"
#include "linit.h"
#include "lpaux.h"
#include "lp.h"
#include "lstack.h"
#include "luaprof/dwarf.h"
#include "luaprof/hmap.h"
#include "luaprof/pprof.h"

#define MAX_FRAMES LP_MAX_STACK

enum { L_PID = 1, L_TID = 2, L_COMM = 4, L_CPU = 8 };

struct lpprof {
	struct lp_feeder feeder;        /* first: feed = "all" registers it (lfeed.c) */
	struct lp_run *run;             /* fed: the run */
	struct lp_pprof *p;
	struct lp_hmap *locs;           /* (mapping id, address) -> location id */
	size_t nr_values;
	unsigned labels;
	int64_t time0;                  /* when it was created, ns since the epoch */
	bool period_auto;               /* the period is the mean of p:add's */
	uint64_t period_sum, period_n;
	uint64_t ids[MAX_FRAMES];
};

static const struct lp_class profile_class;

static struct lpprof *check(lua_State *L)
{
	return lp_class_check(L, 1, &profile_class);
}

static void nomem(lua_State *L, int rc)
{
	if (rc)
		lp_nomem(L);
}

/* The mapping id of the object holding ip in the sample's process (or the
 * kernel's), 0 when no map holds it. */
static uint64_t mapping_of(struct lpprof *w, struct lp_run *run, const struct lp_frame *f)
{
	const struct lp_proc *proc = f->kernel ? lp_procs_kernel(run->procs) : NULL;
	if (!f->kernel) {
		struct lp_thread *t = lp_view_thread(run);
		proc = t ? t->proc : NULL;
	}
	const struct lp_map *m = proc ? lp_proc_find_map(proc, f->ip) : NULL;
	if (!m)
		return 0;
	bool added;
	uint64_t id = lp_pprof_mapping(w->p, m->start, m->end, m->pgoff,
				       m->path ? m->path : f->dso, &added);
	if (id && added) {
		uint8_t bid[20];
		size_t n = lp_map_build_id(m, bid, sizeof bid);
		if (n)
			lp_pprof_build_id(w->p, id, bid, n);
	}
	return id;
}

/* The location's lines: on a stack unwound from a stack copy (as s.stack
 * and perf: not on a callchain's), the functions inlined at the frame's
 * address, innermost first; then its own (named by its symbol, with its
 * file and line when DWARF has them).  Returns how many. */
static size_t lines_of(struct lp_run *run, size_t i, struct lp_pprof_line *out, size_t max)
{
	const struct lp_frame *f = &run->stack.frames[i];
	const struct lp_srcframe *sf;
	int ns = lp_stack_srcframes(run, i, &sf);
	size_t n = 0;
	for (int j = 0; run->view.unwound && j < ns - 1 && n + 1 < max; j++)
		out[n++] = (struct lp_pprof_line){ sf[j].func, sf[j].mangled, sf[j].file, sf[j].line };
	if (!f->sym && !ns)
		return n;
	out[n] = (struct lp_pprof_line){ f->sym, f->mangled, NULL, 0 };
	if (ns) {
		out[n].file = sf[ns - 1].file;
		out[n].line = sf[ns - 1].line;
		if (!f->sym)
			out[n].function = sf[ns - 1].func;
	}
	return n + 1;
}

/* The location of frame i of the sample; 0 when out of memory. */
static uint64_t location_of(struct lpprof *w, struct lp_run *run, size_t i)
{
	const struct lp_frame *f = &run->stack.frames[i];
	bool caller = i > 0;
	uint64_t mapping = mapping_of(w, run, f);
	/* one address has its inlined lines on unwound stacks only */
	uint64_t key[3] = { mapping, caller && f->ip ? f->ip - 1 : f->ip, run->view.unwound };
	bool added = false;
	int64_t e = lp_hmap_find(w->locs, key, sizeof key, lp_hash(key, sizeof key), true, &added);
	if (e < 0)
		return 0;
	uint64_t *v = lp_hmap_value(w->locs, (size_t)e);
	if (added) {
		struct lp_pprof_line lines[16];
		size_t n = lines_of(run, i, lines, 16);
		*v = lp_pprof_location(w->p, mapping, key[1], lines, n);
	}
	return *v;
}

static size_t labels_of(struct lpprof *w, struct lp_run *run, struct lp_pprof_label *out)
{
	const struct lp_sample *s = &run->view.rec->u.sample;
	size_t n = 0;
	if (w->labels & L_PID)
		out[n++] = (struct lp_pprof_label){ "pid", NULL, s->pid };
	if (w->labels & L_TID)
		out[n++] = (struct lp_pprof_label){ "tid", NULL, s->tid };
	if (w->labels & L_CPU)
		out[n++] = (struct lp_pprof_label){ "cpu", NULL, s->cpu };
	if (w->labels & L_COMM) {
		struct lp_thread *t = lp_view_thread(run);
		out[n++] = (struct lp_pprof_label){ "comm", t ? t->comm : "[unknown]", 0 };
	}
	return n;
}

static void values_arg(lua_State *L, int idx, struct lpprof *w, int64_t *v)
{
	luaL_checktype(L, idx, LUA_TTABLE);
	for (size_t i = 0; i < w->nr_values; i++) {
		lua_geti(L, idx, (lua_Integer)i + 1);
		int ok;
		v[i] = (int64_t)lua_tointegerx(L, -1, &ok);
		if (!ok)
			lp_argerror(L, idx, "values[%d] must be an integer (one per sample type)",
				    (int)i + 1);
		lua_pop(L, 1);
	}
}

/* Adds the current sample (run->view) with values: 0, or -1 when out of
 * memory. */
static int add_sample(struct lpprof *w, struct lp_run *run, const int64_t *values)
{
	w->period_sum += run->view.rec->u.sample.period;
	w->period_n++;
	size_t n = lp_stack_frames(run);
	for (size_t i = 0; i < n; i++)
		if (!(w->ids[i] = location_of(w, run, i)))
			return -1;
	struct lp_pprof_label labels[4];
	size_t nl = labels_of(w, run, labels);
	return lp_pprof_add(w->p, w->ids, n, values, labels, nl) ? -1 : 0;
}

/* The feeder: the sample with its default values, { 1, period }. */
static int feed(struct lp_run *run, struct lp_feeder *f)
{
	int64_t values[LP_PPROF_MAX_VALUES] = { 1, (int64_t)run->view.rec->u.sample.period };
	return add_sample((struct lpprof *)f, run, values);
}

static int l_add(lua_State *L)
{
	struct lpprof *w = check(L);
	if (w->run)
		return luaL_error(L, "pprof: this profile is fed every sample (feed = \"all\")");
	struct lp_run *run = lp_view_check(L, 2);
	int64_t values[LP_PPROF_MAX_VALUES] = { 1, (int64_t)run->view.rec->u.sample.period };
	if (!lua_isnoneornil(L, 3))
		values_arg(L, 3, w, values);
	nomem(L, add_sample(w, run, values));
	return 0;
}

/* One frame table of add_stack: a location with no mapping, named. */
static uint64_t table_location(lua_State *L, struct lpprof *w, int idx)
{
	struct lp_pprof_line line = { 0 };
	lua_getfield(L, idx, "sym");
	line.function = lua_tostring(L, -1);
	lua_getfield(L, idx, "file");
	line.file = lua_tostring(L, -1);
	lua_getfield(L, idx, "line");
	line.line = lua_tointeger(L, -1);
	lua_getfield(L, idx, "ip");
	uint64_t ip = (uint64_t)lua_tointeger(L, -1);
	uint64_t id = lp_pprof_location(w->p, 0, ip, &line, line.function ? 1 : 0);
	lua_pop(L, 4);
	if (!id)
		lp_nomem(L);
	return id;
}

static size_t table_labels(lua_State *L, int idx, struct lp_pprof_label *out)
{
	size_t n = 0;
	if (lua_isnoneornil(L, idx))
		return 0;
	luaL_checktype(L, idx, LUA_TTABLE);
	lua_pushnil(L);
	while (lua_next(L, idx) && n < LP_PPROF_MAX_LABELS) {
		lp_checkfield_type(L, -2, idx, "a label's name", LUA_TSTRING);  /* no lua_next's key converted */
		out[n].key = lua_tostring(L, -2);
		out[n].str = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
		out[n].num = out[n].str ? 0 : lp_checkfield_integer(L, -1, idx, out[n].key);
		n++;
		lua_pop(L, 1);
	}
	return n;
}

static int l_add_stack(lua_State *L)
{
	struct lpprof *w = check(L);
	luaL_checktype(L, 2, LUA_TTABLE);
	int64_t values[LP_PPROF_MAX_VALUES];
	values_arg(L, 3, w, values);
	lua_Integer n = luaL_len(L, 2);
	luaL_argcheck(L, n <= MAX_FRAMES, 2, "too many frames");
	for (lua_Integer i = 1; i <= n; i++) {
		lua_geti(L, 2, i);
		int f = lua_gettop(L);
		if (!lua_istable(L, f))
			lp_checkfield_type(L, f, 2, lua_pushfstring(L, "frame %I", i), LUA_TTABLE);
		w->ids[i - 1] = table_location(L, w, f);
		lua_pop(L, 1);
	}
	struct lp_pprof_label labels[LP_PPROF_MAX_LABELS];
	size_t nl = table_labels(L, 4, labels);
	nomem(L, lp_pprof_add(w->p, w->ids, (size_t)n, values, labels, nl));
	return 0;
}

static void encode(lua_State *L, struct lpprof *w, bool gz)
{
	struct lp_buf b = { 0 };
	if (w->period_auto && w->period_n)
		lp_pprof_period_value(w->p, (int64_t)((w->period_sum + w->period_n / 2) / w->period_n));
	int rc = lp_pprof_write(w->p, &b, gz);
	if (rc) {
		lp_buf_free(&b);
		luaL_error(L, "pprof: cannot encode the profile (%s)", rc == -EIO ? "zlib" : "out of memory");
	}
	lua_pushlstring(L, b.p ? b.p : "", b.len);
	lp_buf_free(&b);
}

static int l_encode(lua_State *L)
{
	struct lpprof *w = check(L);
	encode(L, w, lua_isnone(L, 2) || lua_toboolean(L, 2));
	return 1;
}

static int l_write(lua_State *L)
{
	struct lpprof *w = check(L);
	const char *path = luaL_checkstring(L, 2);
	bool gz = true;
	if (lua_istable(L, 3)) {
		if (lua_getfield(L, 3, "duration") != LUA_TNIL)
			lp_pprof_times(w->p, w->time0, (int64_t)lp_checkfield_integer(L, -1, 3, "duration"));
		lua_pop(L, 1);
		gz = lua_getfield(L, 3, "gzip") == LUA_TNIL || lua_toboolean(L, -1);
		lua_pop(L, 1);
	}
	encode(L, w, gz);
	size_t n;
	const char *s = lua_tolstring(L, -1, &n);
	lp_lib_write_file(L, path, s, n);
	return 0;
}

static int l_gc(lua_State *L)
{
	struct lpprof *w = lp_class_check_any(L, 1, &profile_class);
	if (w->run)
		lp_feeder_remove(w->run, &w->feeder);
	w->run = NULL;
	lp_pprof_free(w->p);
	lp_hmap_free(w->locs);
	w->p = NULL;
	w->locs = NULL;
	return 0;
}

static void sample_types(lua_State *L, struct lpprof *w, int opts)
{
	if (lua_getfield(L, opts, "sample_types") == LUA_TNIL) {
		nomem(L, lp_pprof_sample_type(w->p, "samples", "count"));
		nomem(L, lp_pprof_sample_type(w->p, "cpu", "nanoseconds"));
		w->nr_values = 2;
		lua_pop(L, 1);
		return;
	}
	lp_checkfield_type(L, -1, opts, "sample_types", LUA_TTABLE);
	lua_Integer n = luaL_len(L, -1);
	if (n < 1 || n > LP_PPROF_MAX_VALUES)
		lp_argerror(L, 1, "sample_types holds 1 to %d {type, unit} pairs",
			    LP_PPROF_MAX_VALUES);
	for (lua_Integer i = 1; i <= n; i++) {
		lua_geti(L, -1, i);
		lua_geti(L, -1, 1);
		lua_geti(L, -2, 2);
		if (!lua_isstring(L, -2) || !lua_isstring(L, -1))
			lp_argerror(L, 1, "sample_types[%d] must be {type, unit}", (int)i);
		nomem(L, lp_pprof_sample_type(w->p, lua_tostring(L, -2), lua_tostring(L, -1)));
		lua_pop(L, 3);
	}
	w->nr_values = (size_t)n;
	lua_pop(L, 1);
}

static void period(lua_State *L, struct lpprof *w, int opts)
{
	if (lua_getfield(L, opts, "period") != LUA_TNIL) {
		lp_checkfield_type(L, -1, opts, "period", LUA_TTABLE);
		lua_geti(L, -1, 1);
		lua_geti(L, -2, 2);
		lua_geti(L, -3, 3);
		w->period_auto = lua_isnil(L, -1);
		if (!lua_isstring(L, -3) || !lua_isstring(L, -2) ||
		    (!lua_isinteger(L, -1) && !w->period_auto))
			lp_argerror(L, 1, "period must be {type, unit[, period]}");
		nomem(L, lp_pprof_period(w->p, lua_tostring(L, -3), lua_tostring(L, -2),
					 lua_tointeger(L, -1)));
		lua_pop(L, 3);
	}
	lua_pop(L, 1);
	if (lua_getfield(L, opts, "default") != LUA_TNIL)
		nomem(L, lp_pprof_default_type(w->p, lp_checkfield_string(L, -1, opts, "default")));
	lua_pop(L, 1);
}

static void labels(lua_State *L, struct lpprof *w, int opts)
{
	static const char *const names[] = { "pid", "tid", "comm", "cpu", NULL };
	static const unsigned bits[] = { L_PID, L_TID, L_COMM, L_CPU };
	if (lua_getfield(L, opts, "labels") != LUA_TNIL) {
		lp_checkfield_type(L, -1, opts, "labels", LUA_TTABLE);
		for (lua_Integer i = 1; i <= luaL_len(L, -1); i++) {
			lua_geti(L, -1, i);
			int v = lua_gettop(L);
			const char *key = lua_pushfstring(L, "labels[%I]", i);
			w->labels |= bits[lp_checkfield_option(L, v, opts, key, NULL, names)];
			lua_pop(L, 2);
		}
	}
	lua_pop(L, 1);
}

static int l_new(lua_State *L)
{
	lua_settop(L, 1);       /* luaprof.pprof(): the profile is not argument 1 */
	struct lpprof *w = lp_class_alloc(L, &profile_class, sizeof *w, 0);
	if (!(w->p = lp_pprof_new()) || !(w->locs = lp_hmap_new()))
		return lp_nomem(L);
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	w->time0 = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	lp_pprof_times(w->p, w->time0, 0);
	if (!lua_isnoneornil(L, 1)) {
		luaL_checktype(L, 1, LUA_TTABLE);
		sample_types(L, w, 1);
		period(L, w, 1);
		labels(L, w, 1);
		static const char *const feeds[] = { "all", "script", NULL };
		lua_getfield(L, 1, "feed");
		if (lp_checkfield_option(L, -1, 1, "feed", "script", feeds) == 0) {
			w->feeder.add = feed;
			w->run = lp_get_run(L);
			lp_feeder_add(L, w->run, &w->feeder);
		}
		lua_pop(L, 1);
	} else {
		lua_newtable(L);
		sample_types(L, w, lua_gettop(L));
		lua_pop(L, 1);
	}
	return 1;
}

static const luaL_Reg methods[] = {
	{ "add", l_add }, { "add_stack", l_add_stack }, { "encode", l_encode },
	{ "write", l_write }, { "close", l_gc }, { NULL, NULL },
};

static const luaL_Reg meta[] = { { "__gc", l_gc }, { NULL, NULL } };

static const struct lp_class profile_class = {
	.name = LP_CLASS_NAME("pprof", "Profile"), .methods = methods, .meta = meta,
	.closable = true, .handle = offsetof(struct lpprof, p),
};

int luaopen_luaprof_pprof(lua_State *L)
{
	lp_class_new(L, &profile_class, 0);
	lua_pushcfunction(L, l_new);    /* the module is the constructor */
	return 1;
}
