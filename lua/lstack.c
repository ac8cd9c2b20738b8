/*
 * lstack.c - turning the current sample's addresses into names.
 *
 * With a callchain the frames are the kernel's, with perf's context markers
 * (PERF_CONTEXT_KERNEL, PERF_CONTEXT_USER, ...) used to tell kernel from
 * user addresses and then dropped; without one, the stack is the single
 * frame of the sampled ip.  Names come from the resolver, which caches per
 * object, so nothing here allocates except the Lua values it returns.
 */
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>

#include "lfold.h"
#include "lstack.h"

static bool cpumode_kernel(uint16_t misc)
{
	uint16_t m = misc & PERF_RECORD_MISC_CPUMODE_MASK;
	return m == PERF_RECORD_MISC_KERNEL || m == PERF_RECORD_MISC_GUEST_KERNEL;
}

static struct lp_proc *sample_proc(struct lp_run *run)
{
	struct lp_thread *t = lp_view_thread(run);
	return t ? t->proc : NULL;
}

static void resolve(struct lp_run *run, uint64_t ip, bool kernel, struct lp_frame *out)
{
	lp_resolver_frame(run->resolver, sample_proc(run), ip, kernel, out);
	if (kernel && !run->kernel_notice_given && lp_resolver_kernel_hidden(run->resolver)) {
		run->kernel_notice_given = true;
		fprintf(stderr, "luaprof: kernel addresses are hidden (kernel.kptr_restrict): "
				"kernel frames are unnamed; run as root or set "
				"sysctl kernel.kptr_restrict=0\n");
	}
}

const struct lp_frame *lp_stack_leaf(struct lp_run *run)
{
	struct lp_view *v = &run->view;
	if (!v->have_frame) {
		const struct lp_record *r = v->rec;
		resolve(run, r->u.sample.ip, cpumode_kernel(r->misc), &v->frame);
		v->have_frame = true;
	}
	return &v->frame;
}

/* Resolves every frame of the sample into run->frames; returns the count. */
static size_t walk(struct lp_run *run)
{
	const struct lp_sample *s = &run->view.rec->u.sample;
	if (!s->nr_ips) {
		run->frames[0] = *lp_stack_leaf(run);
		return 1;
	}
	bool kernel = cpumode_kernel(run->view.rec->misc);
	size_t n = 0;
	for (uint64_t i = 0; i < s->nr_ips && n < LP_MAX_STACK; i++) {
		uint64_t ip = s->ips[i];
		if (ip >= PERF_CONTEXT_MAX) {
			kernel = ip == PERF_CONTEXT_KERNEL || ip == PERF_CONTEXT_GUEST_KERNEL;
			continue;
		}
		if (n == 0 && ip == s->ip && run->view.have_frame)
			run->frames[n] = run->view.frame;
		else
			resolve(run, ip, kernel, &run->frames[n]);
		n++;
	}
	if (n == 0)
		run->frames[n++] = *lp_stack_leaf(run);
	return n;
}

static void push_frame(lua_State *L, const struct lp_frame *f)
{
	lua_createtable(L, 0, 5);
	lua_pushinteger(L, (lua_Integer)f->ip);
	lua_setfield(L, -2, "ip");
	if (f->sym) {
		lua_pushstring(L, f->sym);
		lua_setfield(L, -2, "sym");
		lua_pushinteger(L, (lua_Integer)f->symoff);
		lua_setfield(L, -2, "symoff");
	}
	if (f->dso) {
		lua_pushstring(L, f->dso);
		lua_setfield(L, -2, "dso");
	}
	lua_pushboolean(L, f->kernel);
	lua_setfield(L, -2, "kernel");
}

void lp_stack_push(lua_State *L, struct lp_run *run)
{
	size_t n = walk(run);
	lua_createtable(L, (int)n, 0);
	for (size_t i = 0; i < n; i++) {
		push_frame(L, &run->frames[i]);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
}

/* Appends s with the characters the folded format reserves replaced: ';'
 * by ':', a newline (and in the command name a space) by '_'.  Names rarely
 * hold one, so whole runs between them are copied at once. */
static void add_name(luaL_Buffer *b, const char *s, bool comm)
{
	const char *reserved = comm ? ";\n " : ";\n";
	for (;;) {
		size_t n = strcspn(s, reserved);
		luaL_addlstring(b, s, n);
		if (!s[n])
			return;
		luaL_addchar(b, s[n] == ';' ? ':' : '_');
		s += n + 1;
	}
}

void lp_stack_push_folded(lua_State *L, struct lp_run *run)
{
	if (lp_fold_get(L, run, cpumode_kernel(run->view.rec->misc)))
		return;
	size_t n = walk(run);
	luaL_Buffer b;
	luaL_buffinit(L, &b);
	struct lp_thread *t = lp_view_thread(run);
	add_name(&b, t ? t->comm : "[unknown]", true);
	for (size_t i = n; i-- > 0;) {
		const struct lp_frame *f = &run->frames[i];
		luaL_addchar(&b, ';');
		add_name(&b, f->sym ? f->sym : "[unknown]", false);
		if (f->kernel)
			luaL_addstring(&b, "_[k]");
	}
	luaL_pushresult(&b);
	lp_fold_put(L, run);
}

size_t lp_stack_frames(struct lp_run *run)
{
	return walk(run);
}
