/*
 * lstacks.c - luaprof.stacks: the samples' call stacks counted in C
 * (core/agg/stacks.c), fed by the run, for the profile writers (folded,
 * flamegraph, callgraph, speedscope).
 *
 *   local st = luaprof.stacks{ per = "comm", events = false, weight = "samples",
 *                              timeline = nil, feed = "all" }
 *   st:add(folded [, n [, event]])  a folded stack of the script's own (n: 1)
 *   st:add(s)                       feed = "script": the sample being handled
 *   st:each([event])                an iterator of folded, count, sorted
 *   pairs(st)                       the same (events = false)
 *   st:sum([event]), #st, st:events(), st:clear(), st:close()
 *   st:frames(), st:timelines()     with timeline = "thread" or "process"
 *
 * A sample's stack is its folded string (s.folded, its root named per
 * `per` as profile.folded names it): the command, then each frame's name
 * as s.folded has it.  It is never built: each frame's names are
 * interned once and cached by the frame's address (lstack.c's
 * lp_stack_fold_frames keys), and the sample walks down the tree of
 * stacks one child per name, so a sample costs a few hash probes.
 *
 * With timeline, the samples are kept in time order per thread (or
 * process), as speedscope's profiles have them: each stack's frames named
 * as s.stack names them (its sym, " [k]" for kernel frames, its dso)
 * from the first sample of that folded stack, consecutive samples of one
 * stack merged (lua/lib/luaprof/speedscope.lua's format).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "linit.h"
#include "lclass.h"
#include "lfold.h"
#include "lp.h"
#include "lpaux.h"
#include "lstack.h"
#include "luaprof/dwarf.h"
#include "luaprof/hmap.h"
#include "luaprof/luaprof.h"
#include "luaprof/stacks.h"

#define ROOT_SLOTS 256          /* root names by command (and pid, tid) */
#define NO_FRAMES UINT32_MAX

enum per { PER_COMM, PER_PROCESS, PER_THREAD };
enum timeline { TL_NONE, TL_THREAD, TL_PROCESS };

struct root_slot {
	bool used;
	char comm[16];
	int32_t pid, tid;
	uint32_t id;
};

/* A thread's (or process's) samples in time order: nodes and weights,
 * a run of one stack merged. */
struct line {
	char *name;
	uint32_t *nodes;
	uint64_t *weights;
	size_t n, cap;
	uint64_t total;
};

/* A node's frames for the timeline: n frame ids from off in fids. */
struct node_frames {
	uint32_t off, n;
};

struct lstacks {
	struct lp_feeder feeder;        /* first: feed = "all" registers it */
	struct lp_run *run;
	struct lp_stacks *st;
	uint8_t per, timeline;
	bool by_event, by_period, feed_all;
	uint32_t *event_node;           /* per event index + 1: its node, 0 not yet */
	size_t nr_event_node;
	struct lp_fold_ids fold;        /* the sample being added: its names */
	uint32_t *local;                /* run-wide name id -> id in st + 1 */
	size_t nr_local;
	struct lp_buf name;
	struct lp_buf text;             /* the texts stacks_udata_each gave */
	struct root_slot roots[ROOT_SLOTS];
	/* timeline */
	struct lp_hmap *line_of;        /* tid or pid -> its line (the entry's number) */
	struct line *lines;
	size_t nr_lines, cap_lines;
	struct lp_hmap *frames;         /* "NAME\0FILE" -> whether FILE is one */
	struct node_frames *nf;         /* per node */
	size_t cap_nf;
	uint32_t *fids;
	size_t nr_fids, cap_fids;
};

static const char *const pers[] = { "comm", "process", "thread", NULL };
static const char *const timelines[] = { "none", "thread", "process", NULL };
static const char *const weights[] = { "samples", "period", NULL };
static const char *const feeds[] = { "all", "script", NULL };

/* a luaprof.stacks is closed when its st is NULL (release, or not yet whole) */
static const struct lp_class stacks_class;

static struct lstacks *check(lua_State *L)
{
	return lp_class_check(L, 1, &stacks_class);
}

static int grow(void *pv, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t c = *cap ? *cap : 64;
	while (c < need)
		c *= 2;
	void *old, *v;
	memcpy(&old, pv, sizeof old);
	if (!(v = realloc(old, c * elem)))
		return -ENOMEM;
	memcpy(pv, &v, sizeof v);
	*cap = c;
	return 0;
}

/* ---- naming ------------------------------------------------------------- */

/* The id in x's tree of the run-wide name gid (lfoldids.c). */
static int64_t local_id(struct lstacks *x, struct lp_run *run, uint32_t gid)
{
	if (gid < x->nr_local && x->local[gid])
		return x->local[gid] - 1;
	size_t cap = x->nr_local, old = cap;
	if (grow(&x->local, &cap, (size_t)gid + 1, sizeof *x->local))
		return -1;
	memset(x->local + old, 0, (cap - old) * sizeof *x->local);
	x->nr_local = cap;
	size_t len;
	const char *text = lp_foldids_text(run, gid, &len);
	int64_t id = text ? lp_stacks_name(x->st, text, len) : -1;
	if (id >= 0)
		x->local[gid] = (uint32_t)id + 1;
	return id;
}

/* The id of the stack's root: the command, or comm-PID, comm-PID/TID as
 * profile.root names them. */
static int64_t root_id(struct lstacks *x, struct lp_run *run, const struct lp_thread *t,
		       int32_t pid, int32_t tid)
{
	const char *comm = t ? t->comm : "[unknown]";
	if (x->per == PER_COMM)
		pid = tid = 0;
	else if (x->per == PER_PROCESS)
		tid = 0;
	uint64_t h = (uint64_t)(uint32_t)pid * 0x9e3779b97f4a7c15ull ^ (uint32_t)tid;
	for (const char *c = comm; *c; c++)
		h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
	struct root_slot *r = &x->roots[(h >> 24) % ROOT_SLOTS];
	if (r->used && r->pid == pid && r->tid == tid && !strncmp(r->comm, comm, sizeof r->comm))
		return r->id;
	int64_t gid;
	if (x->per == PER_COMM) {
		gid = lp_foldids_comm(run, comm);
	} else {
		char s[64];
		size_t n = 0;
		for (const char *c = comm; *c && n < sizeof s - 24; c++)
			s[n++] = *c == ';' || *c == ' ' ? '_' : *c;
		if (x->per == PER_PROCESS)
			snprintf(s + n, sizeof s - n, "-%d", (int)pid);
		else
			snprintf(s + n, sizeof s - n, "-%d/%d", (int)pid, (int)tid);
		gid = lp_foldids_text_id(run, s, strlen(s));
	}
	int64_t id = gid < 0 ? -1 : local_id(x, run, (uint32_t)gid);
	if (id >= 0 && strlen(comm) < sizeof r->comm) {
		*r = (struct root_slot){ true, { 0 }, pid, tid, (uint32_t)id };
		memcpy(r->comm, comm, strlen(comm));
	}
	return id;
}

/* ---- the timeline --------------------------------------------------------- */

static int64_t frame_id(struct lstacks *x, const char *sym, bool kernel, const char *dso)
{
	struct lp_buf *b = &x->name;
	b->len = 0;
	lp_buf_puts(b, sym ? sym : "[unknown]");
	if (kernel)
		lp_buf_puts(b, " [k]");
	lp_buf_add(b, "\0", 1);         /* the name, a NUL, the file */
	if (dso)
		lp_buf_puts(b, dso);
	if (b->err) {
		b->err = 0;
		return -ENOMEM;
	}
	bool added = false;
	int64_t id = lp_hmap_find(x->frames, b->p, b->len, lp_hash(b->p, b->len), true, &added);
	if (id >= 0 && added)
		*lp_hmap_value(x->frames, (size_t)id) = dso != NULL;
	return id < 0 ? -ENOMEM : id;
}

static int push_fid(struct lstacks *x, int64_t id)
{
	if (id < 0 || grow(&x->fids, &x->cap_fids, x->nr_fids + 1, sizeof *x->fids))
		return -ENOMEM;
	x->fids[x->nr_fids++] = (uint32_t)id;
	return 0;
}

/* The frames of node's stack, root first, from the current sample's
 * s.stack (its inlined frames after the frame they are inlined at). */
static int node_frames(struct lstacks *x, struct lp_run *run, uint32_t node)
{
	size_t nodes = lp_stacks_nodes(x->st), old = x->cap_nf;
	if (grow(&x->nf, &x->cap_nf, nodes, sizeof *x->nf))
		return -ENOMEM;
	for (size_t i = old; i < x->cap_nf; i++)
		x->nf[i] = (struct node_frames){ 0, NO_FRAMES };
	if (x->nf[node].n != NO_FRAMES)
		return 0;
	size_t n = lp_stack_frames(run), off = x->nr_fids;
	for (size_t i = n; i-- > 0;) {
		const struct lp_frame *f = &run->stack.frames[i];
		const struct lp_srcframe *sf;
		int ns = run->view.unwound ? lp_stack_srcframes(run, i, &sf) : 0;
		if (push_fid(x, frame_id(x, f->sym, f->kernel, f->dso)))
			return -ENOMEM;
		for (int j = ns - 1; j-- > 0;)
			if (push_fid(x, frame_id(x, sf[j].func, f->kernel, f->dso)))
				return -ENOMEM;
	}
	x->nf[node] = (struct node_frames){ (uint32_t)off, (uint32_t)(x->nr_fids - off) };
	return 0;
}

/* The line of the sample's thread (or process), made when new: lines
 * are numbered as their keys in line_of. */
static struct line *line_of(struct lstacks *x, const struct lp_thread *t, int32_t pid, int32_t tid)
{
	int64_t key = x->timeline == TL_PROCESS ? pid : tid;
	bool added = false;
	int64_t i = lp_hmap_find(x->line_of, &key, sizeof key, lp_hash(&key, sizeof key), true, &added);
	if (i < 0)
		return NULL;
	if (!added)
		return &x->lines[i];
	char name[64];
	snprintf(name, sizeof name, x->timeline == TL_PROCESS ? "%s (pid %d)" : "%s (tid %d)",
		 t ? t->comm : "?", (int)key);
	if (grow(&x->lines, &x->cap_lines, (size_t)i + 1, sizeof *x->lines))
		return NULL;
	struct line *l = &x->lines[i];
	*l = (struct line){ 0 };
	x->nr_lines = (size_t)i + 1;
	return (l->name = strdup(name)) ? l : NULL;
}

static int timeline_add(struct lstacks *x, struct lp_run *run, const struct lp_thread *t,
			int32_t pid, int32_t tid, uint32_t node, uint64_t w)
{
	struct line *l = line_of(x, t, pid, tid);
	if (!l || node_frames(x, run, node))
		return -ENOMEM;
	if (l->n && l->nodes[l->n - 1] == node) {
		l->weights[l->n - 1] += w;
	} else {
		size_t c = l->cap;
		if (grow(&l->nodes, &c, l->n + 1, sizeof *l->nodes) ||
		    grow(&l->weights, &l->cap, l->n + 1, sizeof *l->weights))
			return -ENOMEM;
		l->nodes[l->n] = node;
		l->weights[l->n++] = w;
	}
	l->total += w;
	return 0;
}

/* ---- adding samples ------------------------------------------------------- */

/* The node of the run's event: a name of its own under the root. */
static int64_t event_node(struct lstacks *x, struct lp_run *run)
{
	size_t e = (size_t)(run->view.event + 1);
	if (e < x->nr_event_node && x->event_node[e])
		return x->event_node[e];
	size_t cap = x->nr_event_node, old = cap;
	if (grow(&x->event_node, &cap, e + 1, sizeof *x->event_node))
		return -ENOMEM;
	memset(x->event_node + old, 0, (cap - old) * sizeof *x->event_node);
	x->nr_event_node = cap;
	const char *name = run->src->event_name(run->src->ctx, run->view.event);
	if (!name)
		name = "?";
	int64_t id = lp_stacks_name(x->st, name, strlen(name));
	int64_t node = id < 0 ? id : lp_stacks_child(x->st, LP_STACKS_ROOT, (uint32_t)id);
	if (node > 0)
		x->event_node[e] = (uint32_t)node;
	return node;
}

/* Adds the current sample (run->view): 0, or -1 when out of memory. */
static int add_sample(struct lp_run *run, struct lstacks *x)
{
	const struct lp_sample *smp = &run->view.rec->u.sample;
	const struct lp_thread *t = lp_view_thread(run);
	int32_t pid = (int32_t)smp->pid, tid = (int32_t)smp->tid;
	int64_t node = x->by_event ? event_node(x, run) : LP_STACKS_ROOT;
	int64_t root = root_id(x, run, t, pid, tid);
	if (node < 0 || root < 0 || (node = lp_stacks_child(x->st, (uint32_t)node, (uint32_t)root)) < 0)
		return -1;
	struct lp_fold_ids *f = &x->fold;
	if (lp_stack_fold_ids(run, f))
		return -1;
	for (size_t i = f->nr_frames; i-- > 0;) {
		size_t end = i + 1 < f->nr_frames ? f->starts[i + 1] : f->nr;
		for (size_t k = f->starts[i]; k < end; k++) {
			int64_t id = local_id(x, run, f->ids[k]);
			if (id < 0 || (node = lp_stacks_child(x->st, (uint32_t)node, (uint32_t)id)) < 0)
				return -1;
		}
	}
	uint64_t w = x->by_period ? smp->period : 1;
	if (lp_stacks_add(x->st, (uint32_t)node, w))
		return -1;
	if (x->timeline && timeline_add(x, run, t, pid, tid, (uint32_t)node, w))
		return -1;
	return 0;
}

static int feed(struct lp_run *run, struct lp_feeder *f)
{
	return add_sample(run, (struct lstacks *)f);
}

/* ---- the object ------------------------------------------------------------ */

static void clear_lines(struct lstacks *x)
{
	for (size_t i = 0; i < x->nr_lines; i++) {
		free(x->lines[i].name);
		free(x->lines[i].nodes);
		free(x->lines[i].weights);
	}
	x->nr_lines = 0;
	if (x->line_of)
		lp_hmap_clear(x->line_of);
	if (x->frames)
		lp_hmap_clear(x->frames);
	x->nr_fids = 0;
	for (size_t i = 0; i < x->cap_nf; i++)
		x->nf[i] = (struct node_frames){ 0, NO_FRAMES };
}

/* Forgets every stack: names and nodes renumbered, so every cache too. */
static void clear(struct lstacks *x)
{
	lp_stacks_clear(x->st);
	if (x->nr_local)
		memset(x->local, 0, x->nr_local * sizeof *x->local);
	memset(x->roots, 0, sizeof x->roots);
	if (x->nr_event_node)
		memset(x->event_node, 0, x->nr_event_node * sizeof *x->event_node);
	clear_lines(x);
}

static void release(struct lstacks *x)
{
	if (!x->st)
		return;
	clear_lines(x);
	lp_feeder_remove(x->run, &x->feeder);
	lp_stacks_free(x->st);
	lp_hmap_free(x->line_of);
	lp_hmap_free(x->frames);
	lp_buf_free(&x->name);
	lp_buf_free(&x->text);
	free(x->lines);
	free(x->nf);
	free(x->fids);
	free(x->local);
	free(x->fold.ids);
	free(x->fold.starts);
	free(x->event_node);
	memset(x, 0, sizeof *x);
}

static int l_gc(lua_State *L)
{
	release(lp_class_check_any(L, 1, &stacks_class));
	return 0;
}

static int l_close(lua_State *L)
{
	release(check(L));
	return 0;
}

static int l_clear(lua_State *L)
{
	clear(check(L));
	return 0;
}

/* The node an event's stacks are below: the root, or the event's (0 when
 * the event has none); an error when events = true and none is given. */
static uint32_t from_arg(lua_State *L, struct lstacks *x, int idx, bool make)
{
	if (!x->by_event) {
		luaL_argcheck(L, lua_isnoneornil(L, idx), idx, "events = false: one set of stacks");
		return LP_STACKS_ROOT;
	}
	size_t len;
	const char *ev = luaL_checklstring(L, idx, &len);
	int64_t id = lp_stacks_name(x->st, ev, len);
	int64_t node = id < 0 ? id : make ? lp_stacks_child(x->st, LP_STACKS_ROOT, (uint32_t)id) : -1;
	if (id < 0 || (make && node < 0))
		lp_nomem(L);
	if (!make) {
		for (uint32_t i = 1; i < lp_stacks_nodes(x->st) && node < 0; i++) {
			struct lp_stacks_node n = lp_stacks_node(x->st, i);
			if (n.parent == LP_STACKS_ROOT && n.name == (uint32_t)id)
				node = i;
		}
	}
	return node < 0 ? UINT32_MAX : (uint32_t)node;
}

/* st:add(folded [, n [, event]]) or, feed = "script", st:add(s). */
static int l_add(lua_State *L)
{
	struct lstacks *x = check(L);
	struct lp_run *run = x->run;
	if (lua_type(L, 2) != LUA_TSTRING) {
		luaL_argcheck(L, !x->feed_all, 1, "this luaprof.stacks is fed every sample "
			      "(feed = \"all\"): add a folded stack");
		lp_view_check(L, 2);    /* the sample being handled */
		if (add_sample(run, x))
			return lp_nomem(L);
		return 0;
	}
	size_t len;
	const char *text = lua_tolstring(L, 2, &len);
	lua_Integer n = luaL_optinteger(L, 3, 1);
	luaL_argcheck(L, n >= 0, 3, "a count is not negative");
	uint32_t from = from_arg(L, x, 4, true);
	int64_t node = lp_stacks_path(x->st, from, text, len);
	if (node < 0 || lp_stacks_add(x->st, (uint32_t)node, (uint64_t)n))
		return lp_nomem(L);
	return 0;
}

static int collect(void *ctx, uint32_t node, const char *text, size_t len, uint64_t count)
{
	(void)node;
	lua_State *L = ctx;
	lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
	lua_pushlstring(L, text, len);
	lua_rawseti(L, -2, n + 1);
	lua_pushinteger(L, (lua_Integer)count);
	lua_rawseti(L, -2, n + 2);
	return 0;
}

static int each_next(lua_State *L)
{
	lua_Integer i = lua_tointeger(L, lua_upvalueindex(2));
	if (lua_rawgeti(L, lua_upvalueindex(1), 2 * i + 1) == LUA_TNIL)
		return 1;
	lua_rawgeti(L, lua_upvalueindex(1), 2 * i + 2);
	lua_pushinteger(L, i + 1);
	lua_replace(L, lua_upvalueindex(2));
	return 2;
}

/* st:each([event]): folded, count of every stack (of the event), sorted. */
static int l_each(lua_State *L)
{
	struct lstacks *x = check(L);
	uint32_t from = from_arg(L, x, 2, false);
	lua_createtable(L, (int)lp_stacks_stacks(x->st) * 2, 0);
	struct lp_buf text = { 0 };
	int rc = from != UINT32_MAX ? lp_stacks_sorted(x->st, from, collect, L, &text) : 0;
	lp_buf_free(&text);
	if (rc)
		return lp_nomem(L);
	lua_pushinteger(L, 0);
	lua_pushcclosure(L, each_next, 2);
	return 1;
}

static int l_sum(lua_State *L)
{
	struct lstacks *x = check(L);
	uint32_t from = from_arg(L, x, 2, false);
	size_t stacks = 0;
	uint64_t sum = 0;
	if (from != UINT32_MAX)
		lp_stacks_below(x->st, from, &stacks, &sum);
	lua_pushinteger(L, (lua_Integer)sum);
	return 1;
}

static int l_len(lua_State *L)
{
	lua_pushinteger(L, (lua_Integer)lp_stacks_stacks(check(L)->st));
	return 1;
}

/* st:events(): the events' names, sorted (events = true). */
static int l_events(lua_State *L)
{
	struct lstacks *x = check(L);
	lua_newtable(L);
	for (uint32_t i = 1; x->by_event && i < lp_stacks_nodes(x->st); i++) {
		struct lp_stacks_node n = lp_stacks_node(x->st, i);
		size_t len;
		if (n.parent != LP_STACKS_ROOT)
			continue;
		const char *name = lp_stacks_name_text(x->st, n.name, &len);
		lua_pushlstring(L, name, len);
		lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
	}
	lp_sort_sequence(L, -1);
	return 1;
}

/* st:frames(): { {name =, file =}, ... }, the timeline's frames by id + 1. */
static int l_frames(lua_State *L)
{
	struct lstacks *x = check(L);
	size_t n = x->frames ? lp_hmap_count(x->frames) : 0;
	lua_createtable(L, (int)n, 0);
	for (size_t i = 0; i < n; i++) {
		size_t len;
		const char *k = lp_hmap_key(x->frames, i, &len);
		size_t name = strlen(k);
		lua_createtable(L, 0, 2);
		lua_pushlstring(L, k, name);
		lua_setfield(L, -2, "name");
		if (*lp_hmap_value(x->frames, i)) {
			lua_pushlstring(L, k + name + 1, len - name - 1);
			lua_setfield(L, -2, "file");
		}
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	return 1;
}

/* st:timelines(): per thread (or process), in the order first seen,
 * { name =, samples = { FRAME-IDS, ... }, weights = { ... }, total = },
 * a sample's frame ids (0-based, root first) one table per stack. */
static int l_timelines(lua_State *L)
{
	struct lstacks *x = check(L);
	lua_newtable(L);                /* node -> its frame ids' table */
	int cache = lua_gettop(L);
	lua_createtable(L, (int)x->nr_lines, 0);
	for (size_t i = 0; i < x->nr_lines; i++) {
		const struct line *l = &x->lines[i];
		lua_createtable(L, 0, 4);
		lua_pushstring(L, l->name);
		lua_setfield(L, -2, "name");
		lua_pushinteger(L, (lua_Integer)l->total);
		lua_setfield(L, -2, "total");
		lua_createtable(L, (int)l->n, 0);
		lua_createtable(L, (int)l->n, 0);
		for (size_t j = 0; j < l->n; j++) {
			uint32_t node = l->nodes[j];
			if (lua_rawgeti(L, cache, node) == LUA_TNIL) {
				lua_pop(L, 1);
				const struct node_frames *f = &x->nf[node];
				lua_createtable(L, (int)f->n, 0);
				for (uint32_t k = 0; k < f->n; k++) {
					lua_pushinteger(L, x->fids[f->off + k]);
					lua_rawseti(L, -2, k + 1);
				}
				lua_pushvalue(L, -1);
				lua_rawseti(L, cache, node);
			}
			lua_rawseti(L, -3, (lua_Integer)j + 1);
			lua_pushinteger(L, (lua_Integer)l->weights[j]);
			lua_rawseti(L, -2, (lua_Integer)j + 1);
		}
		lua_setfield(L, -3, "weights");
		lua_setfield(L, -2, "samples");
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	return 1;
}

static int l_tostring(lua_State *L)
{
	struct lstacks *x = lp_class_check_any(L, 1, &stacks_class);
	if (!x->st)
		lua_pushliteral(L, "luaprof.stacks (closed)");
	else
		lua_pushfstring(L, "luaprof.stacks (%d stacks)", (int)lp_stacks_stacks(x->st));
	return 1;
}

static void read_opts(lua_State *L, struct lstacks *x)
{
	if (lua_isnoneornil(L, 1))
		return;
	luaL_checktype(L, 1, LUA_TTABLE);
	lua_getfield(L, 1, "per");
	x->per = (uint8_t)lp_checkfield_option(L, -1, 1, "per", "comm", pers);
	lua_getfield(L, 1, "events");
	x->by_event = lua_toboolean(L, -1);
	lua_getfield(L, 1, "weight");
	x->by_period = lp_checkfield_option(L, -1, 1, "weight", "samples", weights) == 1;
	lua_getfield(L, 1, "timeline");
	x->timeline = (uint8_t)lp_checkfield_option(L, -1, 1, "timeline", "none", timelines);
	lua_getfield(L, 1, "feed");
	x->feed_all = lp_checkfield_option(L, -1, 1, "feed", "all", feeds) == 0;
	lua_pop(L, 5);
}

/* luaprof.stacks{...} */
static int l_new(lua_State *L)
{
	struct lp_run *run = lp_get_run(L);
	struct lstacks o = { .feed_all = true };
	read_opts(L, &o);
	/* zeroed: closed until it is whole */
	struct lstacks *x = lp_class_alloc(L, &stacks_class, sizeof *x, 0);
	o.feeder.add = feed;
	o.run = run;
	if (!(o.st = lp_stacks_new()) ||
	    (o.timeline && (!(o.line_of = lp_hmap_new()) ||
			    !(o.frames = lp_hmap_new())))) {
		lp_stacks_free(o.st);
		lp_hmap_free(o.line_of);
		lp_hmap_free(o.frames);
		return lp_nomem(L);
	}
	*x = o;
	if (x->feed_all)
		lp_feeder_add(L, run, &x->feeder);
	return 1;
}

struct each_ctx {
	lp_stacks_fn fn;
	void *ctx;
};

static int each_stack(void *ctx, uint32_t node, const char *text, size_t len, uint64_t count)
{
	(void)node;
	const struct each_ctx *c = ctx;
	return c->fn(c->ctx, text, len, (double)count) ? -EINVAL : 0;
}

/* lp_stacks_each of the luaprof.stacks at idx; false when idx holds no
 * luaprof.stacks (nothing done). */
static bool stacks_udata_each(lua_State *L, int idx, lp_stacks_fn fn, void *ctx, const char *what)
{
	struct lstacks *x = lp_class_test(L, idx, &stacks_class);
	if (!x)
		return false;
	if (!x->st)
		lp_argerror(L, idx, "%s is closed", stacks_class.name);
	if (x->by_event)
		luaL_error(L, "%s: a luaprof.stacks with events = true: give one event's, "
			   "as a table (st:each(EVENT))", what);
	struct each_ctx c = { fn, ctx };
	lp_buf_free(&x->text);          /* the texts stay until the next walk */
	if (lp_stacks_sorted(x->st, LP_STACKS_ROOT, each_stack, &c, &x->text))
		luaL_error(L, "%s: out of memory", what);
	return true;
}

static void each_pair(lua_State *L, int idx, lp_stacks_fn fn, void *ctx, const char *what)
{
	lua_pushnil(L);
	while (lua_next(L, idx)) {
		if (lua_type(L, -2) == LUA_TSTRING) {
			size_t n;
			const char *k = lua_tolstring(L, -2, &n);
			if (lua_type(L, -1) != LUA_TNUMBER)
				luaL_error(L, "%s: the count of '%s' is a %s, not a number", what,
					   LP_SHOW(k), luaL_typename(L, -1));
			if (fn(ctx, k, n, lua_tonumber(L, -1)))
				luaL_error(L, "%s: cannot use the stack '%s' (out of memory, or a "
					      "negative count)", what, LP_SHOW(k));
		}
		lua_pop(L, 1);
	}
}

void lp_stacks_each(lua_State *L, int idx, lp_stacks_fn fn, void *ctx, const char *what)
{
	idx = lua_absindex(L, idx);
	if (stacks_udata_each(L, idx, fn, ctx, what))
		return;
	if (!lua_istable(L, idx))
		luaL_error(L, "%s: expected a luaprof.map or a table of stack -> count, not %s", what,
			   luaL_typename(L, idx));
	int top = lua_gettop(L);
	/* a luaprof.map keeps its scalar keys in .counts */
	if (lua_getmetatable(L, idx) && lua_getfield(L, idx, "counts") == LUA_TTABLE)
		each_pair(L, lua_gettop(L), fn, ctx, what);
	else
		each_pair(L, idx, fn, ctx, what);
	lua_settop(L, top);
}

static const luaL_Reg stacks_methods[] = {
	{ "add", l_add }, { "each", l_each }, { "sum", l_sum }, { "events", l_events },
	{ "clear", l_clear }, { "close", l_close }, { "frames", l_frames },
	{ "timelines", l_timelines }, { NULL, NULL },
};

static const luaL_Reg stacks_meta[] = {
	{ "__gc", l_gc }, { "__len", l_len }, { "__pairs", l_each },
	{ "__tostring", l_tostring }, { NULL, NULL },
};

static const struct lp_class stacks_class = {
	.name = LP_CLASS_NAME("stacks", "Stacks"),
	.methods = stacks_methods,
	.meta = stacks_meta,
	.closable = true,
	.handle = offsetof(struct lstacks, st),
};

int luaopen_luaprof_stacks(lua_State *L)
{
	lp_class_new(L, &stacks_class, 0);
	lua_pushcfunction(L, l_new);    /* the module is the constructor */
	return 1;
}
