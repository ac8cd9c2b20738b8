/*
 * lstack.c - turning the current sample's addresses into names.
 *
 * With a callchain the frames are the kernel's, with perf's context markers
 * (PERF_CONTEXT_KERNEL, PERF_CONTEXT_USER, ...) used to tell kernel from
 * user addresses and then dropped; without one, the stack is the single
 * frame of the sampled ip.  A sample with the user registers and a copy of
 * the user stack (--call-graph dwarf, ours or perf's) has its user part
 * unwound with the objects' CFI (core/dwarf), after the callchain's kernel
 * part, as perf does; its callers are named at their return address minus
 * one, the call instruction, as perf names them.  The functions inlined
 * at a frame's address (DWARF, core/dwarf/srcline.c, cached per object and
 * address) are frames of such unwound stacks only, as in perf, which adds
 * them to the user frames it unwinds (perf 6.1's unwind_entry) and not to
 * a callchain's (its 6.4 attempt at that was reverted in 6.5 for its
 * cost).  Names come from the resolver, which caches per object, so
 * nothing here allocates except the Lua values it returns.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>

#include "lclass.h"
#include "lfold.h"
#include "lstack.h"
#include "luaprof/dwarf.h"

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

/* Resolves ip of the sample's process; cached: through the resolver's
 * caches (not when the caller's own, keyed alike, missed: fold_frame). */
static void resolve(struct lp_run *run, uint64_t ip, bool kernel, bool cached,
		    struct lp_frame *out)
{
	if (cached)
		lp_resolver_frame(run->resolver, sample_proc(run), ip, kernel, out);
	else
		lp_resolver_frame_uncached(run->resolver, sample_proc(run), ip, kernel, out);
	if (kernel && !run->stack.kernel_notice && lp_resolver_kernel_hidden(run->resolver)) {
		run->stack.kernel_notice = true;
		fprintf(stderr, "luaprof: kernel addresses are hidden (kernel.kptr_restrict): "
				"kernel frames are unnamed; run as root or set "
				"sysctl kernel.kptr_restrict=0\n");
	}
	/* in no object: the recording has kernel maps, and none holds it */
	if (kernel && ip >> 63 && !out->dso && !run->stack.outside_notice) {
		run->stack.outside_notice = true;
		fprintf(stderr, "luaprof: kernel frames in no kernel map of the recording (the first "
				"at %#" PRIx64 ") are unnamed, as perf leaves them: a BPF program "
				"loaded without a KSYMBOL record of it, or a module the recording "
				"has no map of\n", ip);
	}
}

/* lp_stack_leaf, resolved through the resolver's caches or not. */
static const struct lp_frame *leaf(struct lp_run *run, bool cached)
{
	struct lp_view *v = &run->view;
	if (!v->have_frame) {
		const struct lp_record *r = v->rec;
		resolve(run, r->u.sample.ip, cpumode_kernel(r->misc), cached, &v->frame);
		v->have_frame = true;
	}
	return &v->frame;
}

const struct lp_frame *lp_stack_leaf(struct lp_run *run)
{
	return leaf(run, true);
}

/* The unwound addresses of a sample with a user stack copy, into
 * run->stack.addrs: the callchain's kernel part (up to a PERF_CONTEXT_USER),
 * then PERF_CONTEXT_USER and the unwound user frames.  Returns the count;
 * 0 when the sample cannot be unwound. */
static uint64_t unwind(struct lp_run *run, const struct lp_sample *s)
{
	uint64_t n = 0;
	if (!lp_unwind_possible(s) ||
	    (!run->stack.unwinder && !(run->stack.unwinder = lp_unwinder_new(run->resolver))))
		return 0;
	for (; n < s->nr_ips && s->ips[n] != PERF_CONTEXT_USER && n < LP_MAX_STACK / 2; n++)
		run->stack.addrs[n] = s->ips[n];
	run->stack.addrs[n++] = PERF_CONTEXT_USER;
	size_t u = lp_unwind(run->stack.unwinder, sample_proc(run), s, run->stack.addrs + n,
			     LP_MAX_STACK - n);
	return u ? n + u : 0;
}

const uint64_t *lp_stack_addrs(struct lp_run *run, uint64_t *nr, bool *unwound)
{
	struct lp_view *v = &run->view;
	if (!v->addrs) {
		const struct lp_sample *s = &v->rec->u.sample;
		v->nr_addrs = unwind(run, s);
		v->unwound = v->nr_addrs != 0;
		if (v->unwound)
			v->addrs = run->stack.addrs;
		else if (s->nr_ips)
			v->addrs = s->ips, v->nr_addrs = s->nr_ips;
		else
			v->addrs = &s->ip, v->nr_addrs = 1;
	}
	*nr = v->nr_addrs;
	*unwound = v->unwound;
	return v->addrs;
}

/* Resolves a return address as the call before it: the function and
 * offset of ip - 1, reported as ip. */
static void resolve_caller(struct lp_run *run, uint64_t ip, bool cached, struct lp_frame *out)
{
	resolve(run, ip - 1, false, cached, out);
	out->ip = ip;
	if (out->fileoff)
		out->fileoff++;
	if (out->sym)
		out->symoff++;
	if (out->same_lo < out->same_hi && out->same_hi < UINT64_MAX) {
		out->same_lo++;         /* the return addresses of those calls */
		out->same_hi++;
	} else {
		out->same_lo = out->same_hi = 0;
	}
}

/* The first frame of a stack, at ip in kernel or user space: the sample's
 * leaf frame (computed once per sample) when it is that, else resolved. */
static void first_frame(struct lp_run *run, uint64_t ip, bool kernel, bool cached,
			struct lp_frame *out)
{
	const struct lp_record *r = run->view.rec;
	if (ip == r->u.sample.ip && kernel == cpumode_kernel(r->misc))
		*out = *leaf(run, cached);
	else
		resolve(run, ip, kernel, cached, out);
}

/* Where a frame of the stack lies and how walk() names it. */
struct frame_pos {
	uint64_t ip;
	bool kernel;            /* in kernel space, as the context markers say */
	bool first;             /* the stack's first frame */
	bool caller;            /* an unwound caller: named at ip - 1 */
	bool ret;               /* a callchain's user caller: a return address */
	bool unwound;           /* of an unwound stack: with its inlined frames */
};

/* A context marker perf knows; any other value at or above
 * PERF_CONTEXT_MAX (a user stack walked through code without frame
 * pointers can give -1) makes perf discard the whole chain. */
static bool known_context(uint64_t ip)
{
	return ip == PERF_CONTEXT_HV || ip == PERF_CONTEXT_KERNEL || ip == PERF_CONTEXT_USER ||
	       ip == PERF_CONTEXT_GUEST || ip == PERF_CONTEXT_GUEST_KERNEL ||
	       ip == PERF_CONTEXT_GUEST_USER;
}

/* The frames of the sample's stack (lp_stack_addrs), in order. */
struct frame_iter {
	const uint64_t *ips;
	uint64_t nr, i;
	bool unwound, kernel, first_user;
	bool corrupt;           /* the chain holds a marker perf does not know */
	size_t n;
};

/* A corrupt chain has no frames: perf discards it all. */
static void iter_init(struct frame_iter *it, struct lp_run *run)
{
	it->ips = lp_stack_addrs(run, &it->nr, &it->unwound);
	it->corrupt = false;
	for (uint64_t i = 0; i < it->nr; i++)
		if (it->ips[i] >= PERF_CONTEXT_MAX && !known_context(it->ips[i]))
			it->corrupt = true;
	if (it->corrupt)
		it->nr = 0;
	it->i = 0;
	it->n = 0;
	it->kernel = cpumode_kernel(run->view.rec->misc);
	it->first_user = true;
}

/* The next frame: its address and kind; false after the last. */
static bool iter_next(struct frame_iter *it, struct frame_pos *p)
{
	for (; it->i < it->nr; it->i++) {
		uint64_t ip = it->ips[it->i];
		if (ip >= PERF_CONTEXT_MAX) {
			it->kernel = ip == PERF_CONTEXT_KERNEL || ip == PERF_CONTEXT_GUEST_KERNEL;
			continue;
		}
		p->ip = ip;
		p->kernel = it->kernel;
		p->first = it->n == 0;
		p->caller = !p->first && it->unwound && !it->kernel && !it->first_user;
		/* a callchain's user callers are return addresses */
		p->ret = !it->unwound && !it->kernel && !it->first_user;
		p->unwound = it->unwound;
		it->first_user &= it->kernel;
		it->n++;
		it->i++;
		return true;
	}
	return false;
}

/* The frame at p; cached: through the resolver's caches. */
static void frame_at(struct lp_run *run, const struct frame_pos *p, bool cached,
		     struct lp_frame *out)
{
	if (p->first)
		first_frame(run, p->ip, p->kernel, cached, out);
	else if (p->caller)
		resolve_caller(run, p->ip, cached, out);
	else
		resolve(run, p->ip, p->kernel, cached, out);
}

/* Resolves every frame of the sample into run->stack.frames; returns the count:
 * the sample's own frame alone when its chain is corrupt. */
static size_t walk(struct lp_run *run)
{
	struct frame_iter it;
	struct frame_pos p;
	size_t n = 0;
	iter_init(&it, run);
	run->stack.corrupt = it.corrupt;
	while (n < LP_MAX_STACK && iter_next(&it, &p)) {
		frame_at(run, &p, true, &run->stack.frames[n]);
		run->stack.frame_caller[n] = p.caller;
		run->stack.frame_ret[n++] = p.ret;
	}
	if (n == 0) {
		run->stack.frames[n] = *lp_stack_leaf(run);
		run->stack.frame_caller[n] = false;
		run->stack.frame_ret[n++] = false;
	}
	return n;
}

struct lp_srclines *lp_stack_lines(struct lp_run *run)
{
	if (!run->stack.lines)
		run->stack.lines = lp_srclines_new();
	return run->stack.lines;
}

/* path's last component (perf's basename: "" for "dir/"). */
static const char *base_of(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

const char *lp_stack_srcline(struct lp_run *run, const struct lp_frame *f, uint64_t vaddr,
			     const char *file, uint32_t line, bool with_sym)
{
	struct lp_srclines *sl = lp_stack_lines(run);
	char b[PATH_MAX + 48];
	if (!sl)
		return NULL;
	if (!f->dso)
		return lp_srclines_intern(sl, "??:0");
	bool named = !f->kernel && f->obj && f->dso[0] == '/' && strncmp(f->dso, "/tmp/perf-", 10);
	if (named && file) {
		snprintf(b, sizeof b, "%s:%" PRIu32, base_of(file), line);
	} else if (named && lp_srclines_symfile(sl, f->obj, vaddr, &file)) {
		/* addr2line found the function by its symbol: "FILE:?" */
		snprintf(b, sizeof b, "%s:0", file ? base_of(file) : "??");
	} else if (with_sym && f->sym) {
		char *brief = f->mangled ? lp_demangle_name(f->mangled, false) : NULL;
		snprintf(b, sizeof b, "%s+%" PRIu64, brief ? brief : f->sym, f->symoff);
		free(brief);
	} else {
		const char *base = strrchr(f->dso, '/');
		snprintf(b, sizeof b, "%s[%" PRIx64 "]", base && !f->kernel ? base + 1 : f->dso,
			 f->obj ? vaddr : f->ip);
	}
	return lp_srclines_intern(sl, b);
}

const char *lp_stack_unnamed(struct lp_run *run, const struct lp_frame *f)
{
	char b[24];
	uint64_t a = f->fileoff && !f->kernel ? f->fileoff : f->ip;
	if (a)
		snprintf(b, sizeof b, "0x%016" PRIx64, a);
	else
		snprintf(b, sizeof b, "%016x", 0);
	return lp_stack_lines(run) ? lp_srclines_intern(run->stack.lines, b) : NULL;
}

/* The source frames of a resolved frame (see lp_srclines_get): none for
 * kernel frames and objects without DWARF.  ret: f->vaddr is a return
 * address, looked up at the call before it. */
static int srcframes(struct lp_run *run, const struct lp_frame *f, bool ret,
		     const struct lp_srcframe **sf)
{
	if (f->kernel || !f->obj || (ret && !f->vaddr) || !lp_stack_lines(run))
		return 0;
	int n = lp_srclines_get(run->stack.lines, f->obj, f->vaddr - ret, sf);
	return n > 0 ? n : 0;
}

static void set_str(lua_State *L, const char *key, const char *val)
{
	if (val) {
		lua_pushstring(L, val);
		lua_setfield(L, -2, key);
	}
}

/* file= and line= of a source frame, when known. */
static void set_source(lua_State *L, const struct lp_srcframe *sf)
{
	set_str(L, "file", sf->file);
	if (sf->line) {
		lua_pushinteger(L, sf->line);
		lua_setfield(L, -2, "line");
	}
}

/* A frame table: ip, sym, mangled, dso, kernel and (user frames in a
 * mapped file) offset; the rest is added by the caller. */
static void new_frame(lua_State *L, const struct lp_frame *f, const char *sym,
		      const char *mangled)
{
	lua_createtable(L, 0, 8);
	lua_pushinteger(L, (lua_Integer)f->ip);
	lua_setfield(L, -2, "ip");
	set_str(L, "sym", sym);
	set_str(L, "mangled", mangled);
	set_str(L, "dso", f->dso);
	lua_pushboolean(L, f->kernel);
	lua_setfield(L, -2, "kernel");
	if (f->fileoff && !f->kernel) {
		lua_pushinteger(L, (lua_Integer)f->fileoff);
		lua_setfield(L, -2, "offset");
	}
}

/* An inlined frame: the function inlined at f's address. */
static void push_inlined(lua_State *L, const struct lp_frame *f, const struct lp_srcframe *sf)
{
	new_frame(L, f, sf->func, sf->mangled);
	lua_pushboolean(L, true);
	lua_setfield(L, -2, "inlined");
	set_source(L, sf);
}

static void push_frame(lua_State *L, const struct lp_frame *f)
{
	new_frame(L, f, f->sym, f->mangled);
	if (f->sym) {
		lua_pushinteger(L, (lua_Integer)f->symoff);
		lua_setfield(L, -2, "symoff");
	}
}

/* luaprof.frame(pid, addr [, kernel]): the frame of addr as process pid
 * maps it at this point of the run (the records before the one being
 * handled): { ip=, sym=, symoff=, dso=, offset=, kernel= }, as s.stack's
 * frames, nil parts unknown (a process the run never saw has no user
 * names; kernel addresses name themselves): bpftrace's usym(), ksym(). */
int lp_l_frame(lua_State *L)
{
	struct lp_run *run = lp_get_run(L);
	lua_Integer pid = luaL_checkinteger(L, 1), addr = luaL_checkinteger(L, 2);
	bool kernel = lua_toboolean(L, 3);
	struct lp_thread *t = pid > 0 && pid <= UINT32_MAX ? lp_procs_find(run->procs, (uint32_t)pid) : NULL;
	struct lp_frame f;
	if (lp_resolver_frame(run->resolver, t ? t->proc : NULL, (uint64_t)addr, kernel, &f))
		return lp_nomem(L);
	push_frame(L, &f);
	return 1;
}

void lp_stack_push(lua_State *L, struct lp_run *run)
{
	size_t n = walk(run);
	lua_Integer k = 0;
	lua_createtable(L, (int)n, 0);
	for (size_t i = 0; i < n; i++) {
		const struct lp_srcframe *sf;
		int ns = srcframes(run, &run->stack.frames[i], run->stack.frame_ret[i], &sf);
		for (int j = 0; run->view.unwound && j < ns - 1; j++) {
			push_inlined(L, &run->stack.frames[i], &sf[j]);
			lua_rawseti(L, -2, ++k);
		}
		push_frame(L, &run->stack.frames[i]);
		if (run->stack.frame_caller[i]) {
			lua_pushboolean(L, true);
			lua_setfield(L, -2, "caller");
		}
		if (ns)
			set_source(L, &sf[ns - 1]);
		lua_rawseti(L, -2, ++k);
	}
}

/* Adds the line of a frame named sym (NULL: unnamed, at ip) at offset off
 * to b, as the one-liners' stack text had it from s.stack in Lua: the
 * offset a Lua integer, the address in hex. */
static void add_text_line(struct lp_buf *b, const char *sym, uint64_t off, uint64_t ip)
{
	if (sym)
		lp_buf_printf(b, "    %s+%lld\n", sym, (long long)(lua_Integer)off);
	else
		lp_buf_printf(b, "    0x%" PRIx64 "\n", ip);
}

/* Pushes the text of b: "" when it holds no line (the "\n" it starts
 * with alone); nil and an error after a failed append. */
static void push_text(lua_State *L, struct lp_buf *b)
{
	if (b->err) {
		b->err = 0;
		luaL_error(L, "not enough memory");
	}
	lua_pushlstring(L, b->p, b->len > 1 ? b->len : 0);
}

void lp_stack_push_texts(lua_State *L, struct lp_run *run)
{
	size_t n = walk(run);
	struct lp_buf *text = run->stack.text;      /* [0] user, [1] kernel */

	text[0].len = text[1].len = 0;
	lp_buf_add(&text[0], "\n", 1);
	lp_buf_add(&text[1], "\n", 1);
	for (size_t i = 0; i < n; i++) {
		const struct lp_frame *f = &run->stack.frames[i];
		struct lp_buf *b = &text[f->kernel];
		const struct lp_srcframe *sf;
		int ns = run->view.unwound ? srcframes(run, f, run->stack.frame_ret[i], &sf) : 0;
		for (int j = 0; j < ns - 1; j++)
			add_text_line(b, sf[j].func, 0, f->ip);
		add_text_line(b, f->sym, f->symoff, f->ip);
	}
	push_text(L, &text[0]);
	push_text(L, &text[1]);
}

/* The key of the registry table caching "file:line" strings by source
 * frame (light userdata: the frames live as long as the run's srclines). */

void lp_stack_push_leaf_source(lua_State *L, struct lp_run *run, bool line)
{
	const struct lp_srcframe *sf;
	if (!srcframes(run, lp_stack_leaf(run), false, &sf) || !sf->file)
		lua_pushnil(L);
	else if (!line)
		lua_pushstring(L, sf->file);
	else if (sf->line)
		lua_pushinteger(L, sf->line);
	else
		lua_pushnil(L);
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

/* Whether frame f is JIT-compiled code named by a perf map
 * (/tmp/perf-PID.map: node's JS:*, python -X perf's py::, ...), as
 * stackcollapse-perf.pl --jit tells them. */
static bool jit_frame(const struct lp_frame *f)
{
	size_t n = f->dso ? strlen(f->dso) : 0;
	return n > 14 && !strncmp(f->dso, "/tmp/perf-", 10) && !strcmp(f->dso + n - 4, ".map");
}

/* The words naming frame f in a folded string (see fold_leaf), its
 * inlined frames with it when inlined is set; 0 when they do not fit in
 * max. */
static size_t frame_words(struct lp_run *run, const struct lp_frame *f, bool ret, bool inlined,
			  uint64_t *w, size_t max)
{
	const struct lp_srcframe *sf;
	int ns = inlined ? srcframes(run, f, ret, &sf) : 0;
	size_t inl = ns > 1 ? (size_t)ns - 1 : 0;
	if (max < 2 || inl > max - 2)
		return 0;
	w[0] = inl << 2 | (uint64_t)jit_frame(f) << 1 | f->kernel;
	w[1] = (uint64_t)(uintptr_t)f->sym;
	for (size_t j = 0; j < inl; j++)
		w[2 + j] = (uint64_t)(uintptr_t)sf[j].func;
	return 2 + inl;
}

/* frame_words of the frame at p, through the cache by address. */
static size_t pos_words(struct lp_run *run, const struct frame_pos *p, uint64_t *w, size_t max)
{
	unsigned how = (unsigned)p->first | (unsigned)p->caller << 1 | (unsigned)p->ret << 2 |
		       (unsigned)p->kernel << 3 | (unsigned)p->unwound << 4;
	const struct lp_proc *proc = sample_proc(run);
	size_t n = lp_fold_words_get(run, proc, p->ip, how, w, max);
	if (n)
		return n;
	struct lp_frame f;
	frame_at(run, p, true, &f);
	n = frame_words(run, &f, p->ret, p->unwound, w, max);
	if (n)
		lp_fold_words_put(run, proc, p->ip, how, w, n);
	return n;
}

/* The words that stand for the first frame of the sample's stack (as
 * lp_stack_addrs gives it) in its folded string: the count of functions
 * inlined there and the frame's JIT and kernel flags, then its symbol's name and
 * theirs, as pointers (a name pointer always points at the same name;
 * the same name may have several).  They fill words[0, result) (at most
 * max); *leaf is the frame's index in the addresses.  Two stacks that
 * differ only in their first address and have the same words fold to
 * the same string.  Returns 0 when there is no frame or the words do not
 * fit. */
static size_t fold_leaf(struct lp_run *run, uint64_t *words, size_t max, uint64_t *leaf)
{
	struct frame_iter it;
	struct frame_pos p;
	iter_init(&it, run);
	if (!iter_next(&it, &p))
		return 0;
	*leaf = it.i - 1;
	return pos_words(run, &p, words, max);
}

/* The names the folded string of the sample is made of, as words: its
 * command name, then frame_words of each frame, leaf first.  Two samples
 * with the same words fold to the same string.  0 when they do not fit. */
static size_t name_words(struct lp_run *run, uint64_t *w, size_t max)
{
	const struct lp_thread *t = lp_view_thread(run);
	struct frame_iter it;
	struct frame_pos p;
	size_t n = 2, k;
	if (!t || max < 2)
		return 0;
	memcpy(w, t->comm, 2 * sizeof *w);
	iter_init(&it, run);
	while (iter_next(&it, &p)) {
		if (it.n > LP_MAX_STACK || !(k = pos_words(run, &p, w + n, max - n)))
			return 0;
		n += k;
	}
	return it.n ? n : 0;
}

bool lp_stack_fold_key(struct lp_run *run, enum lp_fold_kind kind, struct lp_fold_stack *st)
{
	const struct lp_record *rec = run->view.rec;
	st->thread = lp_view_thread(run);
	st->ips = lp_stack_addrs(run, &st->nr, &st->unwound);
	st->kernel_mode = cpumode_kernel(rec->misc);
	st->chain = rec->u.sample.nr_ips != 0;
	st->nr_lead = 0;
	st->leaf = UINT64_MAX;
	if (!st->thread)
		return false;
	if (kind == LP_FOLD_FOLDED)
		st->nr_lead = fold_leaf(run, st->lead, LP_FOLD_MAX_WORDS, &st->leaf);
	return kind != LP_FOLD_FOLDED || st->nr_lead;
}

void lp_stack_push_folded(lua_State *L, struct lp_run *run)
{
	struct lp_fold_stack st;
	bool keyed = lp_stack_fold_key(run, LP_FOLD_FOLDED, &st);
	if (lp_fold_get(L, run, LP_FOLD_FOLDED, keyed ? &st : NULL))
		return;
	uint64_t words[LP_FOLD_NAME_WORDS];
	size_t nw = name_words(run, words, LP_FOLD_NAME_WORDS);
	if (nw && lp_fold_named_get(L, run, words, nw)) {
		lp_fold_put(L, run, LP_FOLD_FOLDED);
		return;
	}
	size_t n = walk(run);
	luaL_Buffer b;
	luaL_buffinit(L, &b);
	struct lp_thread *t = lp_view_thread(run);
	add_name(&b, t ? t->comm : "[unknown]", true);
	for (size_t i = n; i-- > 0;) {
		const struct lp_frame *f = &run->stack.frames[i];
		const struct lp_srcframe *sf;
		luaL_addchar(&b, ';');
		/* as perf script names it, and so stackcollapse: C++ and Rust
		 * names without their parameters */
		char *brief = f->sym && f->mangled ? lp_demangle_name(f->mangled, false) : NULL;
		const char *own = brief ? brief : f->sym ? f->sym : "[unknown]";
		add_name(&b, own, false);
		/* a kernel address, as stackcollapse-perf.pl --all tells one
		 * (ffffffff...): a user address in a chain's kernel part (a
		 * sample in execve) is in no kernel object, and no _[k] */
		if (f->kernel && f->ip >> 63)
			luaL_addstring(&b, "_[k]");
		else if (jit_frame(f))
			luaL_addstring(&b, "_[j]");
		int ns = run->view.unwound ? srcframes(run, f, run->stack.frame_ret[i], &sf) : 0;
		/* an inlined function of the frame's own name (recursion
		 * inlined into itself) is no "(inlined)" line in perf script
		 * (perf's new_inline_sym takes the frame's symbol for it), so
		 * not _[i] in stackcollapse's folding of it either */
		for (int j = ns - 1; j-- > 0;) {
			const char *name = sf[j].name ? sf[j].name : sf[j].func ? sf[j].func : "[unknown]";
			luaL_addchar(&b, ';');
			add_name(&b, name, false);
			if (strcmp(name, own))
				luaL_addstring(&b, "_[i]");
		}
		free(brief);
	}
	luaL_pushresult(&b);
	lp_fold_named_put(L, run);
	lp_fold_put(L, run, LP_FOLD_FOLDED);
}

/* Grows out's arrays for n more names and a frame. */
static int ids_room(struct lp_fold_ids *out, size_t n)
{
	if (out->nr + n > out->cap) {
		size_t c = out->cap ? out->cap : 256;
		while (c < out->nr + n)
			c *= 2;
		uint32_t *v = realloc(out->ids, c * sizeof *v);
		if (!v)
			return -1;
		out->ids = v;
		out->cap = c;
	}
	if (out->nr_frames == out->cap_frames) {
		size_t c = out->cap_frames ? 2 * out->cap_frames : 64;
		uint32_t *v = realloc(out->starts, c * sizeof *v);
		if (!v)
			return -1;
		out->starts = v;
		out->cap_frames = c;
	}
	return 0;
}

/* The ids of the names frame f (at p) adds to a folded string, into out:
 * as lp_stack_push_folded names it.  0 or -1. */
static int fold_names(struct lp_run *run, const struct lp_frame *f, const struct frame_pos *p,
		      struct lp_fold_ids *out)
{
	const struct lp_srcframe *sf;
	int ns = p->unwound ? srcframes(run, f, p->ret, &sf) : 0;
	if (ns > LP_FOLD_NAME_WORDS)
		ns = LP_FOLD_NAME_WORDS;
	const char *sym = f->sym ? f->sym : "[unknown]";
	/* the frame's own name; by its pointer, unless a perf map's (JIT
	 * names may be read again) */
	bool jit = jit_frame(f);
	struct lp_fold_name own = { sym, f->sym ? f->mangled : NULL,
				    f->kernel && f->ip >> 63 ? "_[k]" : jit ? "_[j]" : "",
				    jit ? NULL : sym };
	int64_t id = lp_foldids_name(run, &own);
	if (id < 0 || ids_room(out, (size_t)ns + 1))
		return -1;
	out->ids[out->nr++] = (uint32_t)id;
	if (ns < 2)
		return 0;
	/* the inlined functions, "_[i]" unless of the frame's own name */
	char *brief = own.mangled ? lp_demangle_name(own.mangled, false) : NULL;
	const char *shown = brief ? brief : sym;
	for (int j = ns - 1; j-- > 0;) {
		const char *name = sf[j].name ? sf[j].name : sf[j].func ? sf[j].func : "[unknown]";
		struct lp_fold_name n = { name, NULL, strcmp(name, shown) ? "_[i]" : "", name };
		if ((id = lp_foldids_name(run, &n)) < 0)
			break;
		out->ids[out->nr++] = (uint32_t)id;
	}
	free(brief);
	return id < 0 ? -1 : 0;
}

/* The ids of the frame at p into out: cached, or named. */
static int fold_frame(struct lp_run *run, const struct frame_pos *p, struct lp_fold_ids *out)
{
	const struct lp_proc *proc = sample_proc(run);
	struct lp_fold_frame key = {
		proc, proc ? proc->gen : 0,
		(p->first ? LP_FOLD_HOW_FIRST : 0) | (p->caller ? LP_FOLD_HOW_CALLER : 0) |
		(p->ret ? LP_FOLD_HOW_RET : 0) | (p->kernel ? LP_FOLD_HOW_KERNEL : 0) |
		(p->unwound ? LP_FOLD_HOW_UNWOUND : 0),
		p->ip, p->kernel ? lp_procs_kernel(run->procs)->gen : 0,
	};
	if (ids_room(out, 8))
		return -1;
	out->starts[out->nr_frames++] = (uint32_t)out->nr;
	size_t n = lp_foldids_get(run, &key, out->ids + out->nr);
	if (n) {
		out->nr += n;
		return 0;
	}
	/* missed by both caches of lfoldids.c, which the resolver's would
	 * miss as well (theirs are keyed alike) */
	struct lp_frame f;
	frame_at(run, p, false, &f);
	size_t first = out->nr;
	if (fold_names(run, &f, p, out))
		return -1;
	lp_foldids_put(run, &key, out->ids + first, out->nr - first, f.same_lo, f.same_hi);
	return 0;
}

int lp_stack_fold_ids(struct lp_run *run, struct lp_fold_ids *out)
{
	struct frame_iter it;
	struct frame_pos p;
	out->nr = out->nr_frames = 0;
	iter_init(&it, run);
	while (out->nr_frames < LP_MAX_STACK && iter_next(&it, &p))
		if (fold_frame(run, &p, out))
			return -1;
	if (out->nr_frames)
		return 0;
	/* no frame (a corrupt chain): the sample's own, as walk() has it */
	const struct lp_record *r = run->view.rec;
	p = (struct frame_pos){ .ip = r->u.sample.ip, .kernel = cpumode_kernel(r->misc),
				.first = true, .unwound = run->view.unwound };
	return fold_frame(run, &p, out);
}

size_t lp_stack_frames(struct lp_run *run)
{
	return walk(run);
}

int lp_stack_srcframes(struct lp_run *run, size_t i, const struct lp_srcframe **sf)
{
	return srcframes(run, &run->stack.frames[i], run->stack.frame_ret[i], sf);
}

int lp_stack_srcframes_at(struct lp_run *run, size_t i, const struct lp_srcframe **sf)
{
	return srcframes(run, &run->stack.frames[i], false, sf);
}

int lp_stack_leaf_srcframes(struct lp_run *run, const struct lp_srcframe **sf)
{
	return srcframes(run, lp_stack_leaf(run), false, sf);
}

void lp_stack_free(struct lp_run *run)
{
	lp_unwinder_free(run->stack.unwinder);
	run->stack.unwinder = NULL;
	lp_srclines_free(run->stack.lines);
	run->stack.lines = NULL;
	lp_foldids_free(run);
	lp_buf_free(&run->stack.text[0]);
	lp_buf_free(&run->stack.text[1]);
}
