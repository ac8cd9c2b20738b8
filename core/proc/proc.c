/*
 * proc.c - the process model: threads, processes, command names and maps.
 *
 * Invariants:
 *  - every thread points at the lp_proc of its process; threads of one
 *    process share it (refs counts them);
 *  - a process's maps are sorted by start and never overlap: a new mapping
 *    trims or removes whatever it covers, as the kernel's mmap does;
 *  - an exited thread is kept LP_PROCS_EXIT_KEEP_NS (on the records' clock)
 *    after its EXIT, so that the samples taken as it exited still find it
 *    and its maps; then it is freed (at a later EXIT record), and its
 *    process with its last thread.  Caches keyed by a process pointer key
 *    it with its gen too, which no other process ever has, so a freed
 *    process's memory reused for a new one is never mistaken for it;
 *  - the exited threads wait in a FIFO in the order of their EXITs; a
 *    thread made live again (its tid reused by a FORK) or exited again
 *    later is skipped by its older entries.
 *
 * Workload: a few thousand threads at most, and one lookup per sample, so
 * threads live in the generic table (htab.c) keyed by tid.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "luaprof/proc.h"
#include "luaprof/record.h"
#include "util/htab.h"
#include "util/strtab.h"

struct exited {
	struct lp_thread *t;
	uint64_t time;              /* its EXIT's */
};

struct lp_procs {
	struct lp_htab *threads;    /* tid -> struct lp_thread * */
	struct lp_proc **procs;     /* every proc not freed, to free them */
	uint32_t nr_procs, cap_procs;
	struct exited *dead;        /* a ring: exited threads, oldest first */
	size_t dead_head, nr_dead, cap_dead;
	struct lp_proc kernel;
	bool kernel_recorded;       /* MMAP records gave the kernel maps */
	struct lp_strtab *paths;
};

/* A generation no process has had: caches keyed by (proc, gen) then never
 * mistake a freed process's maps for those of one allocated in its place. */
static void new_gen(struct lp_proc *p)
{
	static _Atomic uint32_t last;
	p->gen = ++last;
}

/* ---------------------------------------------------------------- maps */

static int maps_reserve(struct lp_proc *p, uint32_t extra)
{
	if (p->nr_maps + extra <= p->cap_maps)
		return 0;
	uint32_t cap = p->cap_maps ? p->cap_maps * 2 : 16;
	while (cap < p->nr_maps + extra)
		cap *= 2;
	struct lp_map *m = realloc(p->maps, cap * sizeof *m);
	if (!m)
		return -ENOMEM;
	p->maps = m;
	p->cap_maps = cap;
	return 0;
}

/* Index of the first map whose end is above addr. */
static uint32_t maps_lower(const struct lp_proc *p, uint64_t addr)
{
	uint32_t lo = 0, hi = p->nr_maps;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (p->maps[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Index of the map containing addr, or nr_maps when none does. */
static uint32_t map_index(const struct lp_proc *p, uint64_t addr)
{
	uint32_t i = maps_lower(p, addr);
	return i < p->nr_maps && p->maps[i].start <= addr ? i : p->nr_maps;
}

const struct lp_map *lp_proc_find_map(const struct lp_proc *p, uint64_t addr)
{
	if (!p)
		return NULL;
	uint32_t i = map_index(p, addr);
	return i < p->nr_maps ? &p->maps[i] : NULL;
}

/* Inserts m, cutting away whatever part of existing maps it covers.  A map
 * that straddles m on both sides is split in two. */
static int maps_insert(struct lp_proc *p, const struct lp_map *m)
{
	if (maps_reserve(p, 2))
		return -ENOMEM;
	uint32_t i = maps_lower(p, m->start);
	if (i < p->nr_maps && p->maps[i].start < m->start && p->maps[i].end > m->end) {
		struct lp_map tail = p->maps[i];
		tail.pgoff += m->end - tail.start;
		tail.start = m->end;
		p->maps[i].end = m->start;
		memmove(&p->maps[i + 2], &p->maps[i + 1], (p->nr_maps - i - 1) * sizeof *m);
		p->maps[i + 1] = tail;
		p->nr_maps++;
	}
	if (i < p->nr_maps && p->maps[i].start < m->start) {
		p->maps[i].end = m->start;      /* head of a map we overlap */
		i++;
	}
	uint32_t j = i;
	while (j < p->nr_maps && p->maps[j].end <= m->end)
		j++;                            /* maps entirely covered */
	if (j < p->nr_maps && p->maps[j].start < m->end) {
		p->maps[j].pgoff += m->end - p->maps[j].start;
		p->maps[j].start = m->end;
	}
	memmove(&p->maps[i + 1], &p->maps[j], (p->nr_maps - j) * sizeof *m);
	p->nr_maps = p->nr_maps - (j - i) + 1;
	p->maps[i] = *m;
	new_gen(p);
	return 0;
}

/* ------------------------------------------------------------- threads */

struct lp_thread *lp_procs_find(struct lp_procs *ps, uint32_t tid)
{
	const struct lp_htab_ent *e = lp_htab_find_int(ps->threads, tid);
	return e ? (struct lp_thread *)(uintptr_t)e->val : NULL;
}

static int threads_put(struct lp_procs *ps, struct lp_thread *t)
{
	struct lp_htab_ent *e = lp_htab_add(ps->threads, t->tid, NULL);
	if (!e)
		return -ENOMEM;
	e->val = (uintptr_t)t;
	return 0;
}

static struct lp_proc *proc_new(struct lp_procs *ps, uint32_t pid)
{
	if (ps->nr_procs == ps->cap_procs) {
		uint32_t cap = ps->cap_procs ? ps->cap_procs * 2 : 64;
		struct lp_proc **v = realloc(ps->procs, cap * sizeof *v);
		if (!v)
			return NULL;
		ps->procs = v;
		ps->cap_procs = cap;
	}
	struct lp_proc *p = calloc(1, sizeof *p);
	if (p) {
		p->pid = pid;
		new_gen(p);
		p->slot = ps->nr_procs;
		ps->procs[ps->nr_procs++] = p;
	}
	return p;
}

static void proc_free(struct lp_procs *ps, struct lp_proc *p)
{
	struct lp_proc *last = ps->procs[--ps->nr_procs];
	ps->procs[p->slot] = last;
	last->slot = p->slot;
	free(p->maps);
	free(p);
}

/* The live process pid: the one its leader thread points at, if known. */
static struct lp_proc *proc_of(struct lp_procs *ps, uint32_t pid)
{
	struct lp_thread *leader = lp_procs_find(ps, pid);
	if (leader && leader->pid == pid)
		return leader->proc;
	return proc_new(ps, pid);
}

static void thread_set_proc(struct lp_thread *t, struct lp_proc *p)
{
	if (t->proc)
		t->proc->refs--;
	t->proc = p;
	p->refs++;
}

static struct lp_thread *thread_new(struct lp_procs *ps, uint32_t pid, uint32_t tid)
{
	struct lp_proc *p = proc_of(ps, pid);
	struct lp_thread *t = calloc(1, sizeof *t);
	if (t) {
		t->pid = pid;
		t->tid = tid;
	}
	if (!p || !t || threads_put(ps, t)) {
		free(t);
		return NULL;
	}
	/* a thread is named ":TID" until a COMM record names it, as in perf;
	 * the idle task (tid 0), which no record names, is "swapper", as
	 * perf's session names it before reading anything; perf's tid is
	 * signed, so the tid of a task with none left (-1) is ":-1" */
	if (tid == 0)
		snprintf(t->comm, sizeof t->comm, "swapper");
	else
		snprintf(t->comm, sizeof t->comm, ":%" PRId32, (int32_t)tid);
	thread_set_proc(t, p);
	return t;
}

struct lp_thread *lp_procs_thread(struct lp_procs *ps, uint32_t pid, uint32_t tid)
{
	struct lp_thread *t = lp_procs_find(ps, tid);
	if (t && t->pid != pid && pid != UINT32_MAX) {
		/* the tid is known under another pid: after an exec by a
		 * non-leader thread, or a tid reused by a new process */
		struct lp_proc *p = proc_of(ps, pid);
		if (!p)
			return NULL;
		t->pid = pid;
		thread_set_proc(t, p);
	}
	return t ? t : thread_new(ps, pid, tid);
}

/* The process a sample of (pid, tid) belongs to, as lp_procs_thread()
 * would file it, or NULL when that would be a new one; nothing is created. */
static struct lp_proc *sample_proc(struct lp_procs *ps, uint32_t pid, uint32_t tid)
{
	struct lp_thread *t = lp_procs_find(ps, tid);
	if (t && (t->pid == pid || pid == UINT32_MAX))
		return t->proc;
	t = lp_procs_find(ps, pid);
	return t && t->pid == pid ? t->proc : NULL;
}

const struct lp_map *lp_procs_hit(struct lp_procs *ps, const struct lp_record *r)
{
	const struct lp_sample *s = &r->u.sample;
	struct lp_proc *p = NULL;
	switch (r->misc & PERF_RECORD_MISC_CPUMODE_MASK) {
	case PERF_RECORD_MISC_USER:
		p = sample_proc(ps, s->pid, s->tid);
		break;
	case PERF_RECORD_MISC_KERNEL:
		p = &ps->kernel;
		break;
	default:
		break;
	}
	uint32_t i = p ? map_index(p, s->ip) : 0;
	if (!p || i == p->nr_maps || p->maps[i].hit)
		return NULL;
	p->maps[i].hit = true;
	return &p->maps[i];
}

/* -------------------------------------------------------------- records */

/* The kernel's maps changed: so did every process's address space,
 * whose kernel half they are (caches of kernel frames key them by the
 * process's gen). */
static void kernel_changed(struct lp_procs *ps)
{
	new_gen(&ps->kernel);
	for (uint32_t i = 0; i < ps->nr_procs; i++)
		new_gen(ps->procs[i]);
}

static int apply_mmap(struct lp_procs *ps, const struct lp_mmap *mm)
{
	struct lp_proc *p;
	if (mm->pid == UINT32_MAX) {
		p = &ps->kernel;
	} else {
		struct lp_thread *t = lp_procs_thread(ps, mm->pid, mm->tid);
		if (!t)
			return -ENOMEM;
		p = t->proc;
	}
	if (mm->len == 0 || mm->start + mm->len < mm->start)
		return 0;               /* empty or wrapping: nothing to map */
	struct lp_map m = {
		.start = mm->start, .end = mm->start + mm->len, .pgoff = mm->pgoff,
		.maj = mm->maj, .min = mm->min, .ino = mm->ino,
		.prot = mm->prot, .flags = mm->flags,
		.build_id_size = mm->build_id_size,
		.path = lp_strtab_intern(ps->paths, mm->filename),
	};
	if (!m.path)
		return -ENOMEM;
	memcpy(m.build_id, mm->build_id, sizeof m.build_id);
	if (maps_insert(p, &m))
		return -ENOMEM;
	if (p == &ps->kernel) {
		ps->kernel_recorded = true;
		kernel_changed(ps);
	}
	return 0;
}

/* Removes map i of p. */
static void maps_remove(struct lp_proc *p, uint32_t i)
{
	memmove(&p->maps[i], &p->maps[i + 1], (p->nr_maps - i - 1) * sizeof *p->maps);
	p->nr_maps--;
}

/* KSYMBOL: kernel code registered (a BPF program loaded, a trampoline
 * made) gets a kernel map of its own, named after its symbol, as perf
 * makes a map and a dso of that name holding one symbol; unregistered,
 * that map goes.  (perf 6.1 adds a symbol registered inside a map it
 * already has to that map's object, and removes any map but the kernel
 * text's at an address unregistered; with the kernel's maps the
 * recording has, neither happens: BPF programs and trampolines are
 * outside the kernel text and its modules.) */
static int apply_ksymbol(struct lp_procs *ps, const struct lp_ksymbol *k)
{
	struct lp_proc *p = &ps->kernel;
	if (k->flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER) {
		uint32_t i = map_index(p, k->addr);
		if (i == p->nr_maps || !p->maps[i].ksymbol)
			return 0;
		maps_remove(p, i);
		kernel_changed(ps);
		return 0;
	}
	if (k->len == 0 || k->addr + k->len < k->addr)
		return 0;
	struct lp_map m = { .start = k->addr, .end = k->addr + k->len, .ksymbol = true,
			    .path = lp_strtab_intern(ps->paths, k->name) };
	if (!m.path || maps_insert(p, &m))
		return -ENOMEM;
	kernel_changed(ps);
	return 0;
}

static int apply_comm(struct lp_procs *ps, const struct lp_comm *c)
{
	struct lp_thread *t = lp_procs_thread(ps, c->pid, c->tid);
	if (!t)
		return -ENOMEM;
	/* An exec keeps the maps, as perf's thread__set_comm does: samples
	 * stamped after the COMM but still in the kernel's execve have the
	 * old image's user registers and call chain (__GI___execve in the old
	 * libc), and the new image's MMAPs replace what they overlap. */
	snprintf(t->comm, sizeof t->comm, "%s", c->comm);
	return 0;
}

static int copy_maps(struct lp_proc *dst, const struct lp_proc *src)
{
	if (!src || maps_reserve(dst, src->nr_maps))
		return src ? -ENOMEM : 0;
	if (src->nr_maps)       /* a parent with no maps has no array at all */
		memcpy(dst->maps, src->maps, src->nr_maps * sizeof *src->maps);
	dst->nr_maps = src->nr_maps;
	new_gen(dst);
	return 0;
}

/* A fork; clone_maps is false for perf's FORK_EXEC (the child's maps are
 * its own, reported by the MMAPs that follow). */
static int apply_fork(struct lp_procs *ps, const struct lp_task *f, bool clone_maps)
{
	struct lp_thread *parent = lp_procs_find(ps, f->ptid);
	struct lp_thread *t = lp_procs_find(ps, f->tid);
	if (f->pid != f->ppid || !parent) {
		/* a new process (or an unknown parent): fresh address space */
		struct lp_proc *p = proc_new(ps, f->pid);
		if (!p || (clone_maps && parent && f->pid != f->ppid && copy_maps(p, parent->proc)))
			return -ENOMEM;
		if (!t && !(t = thread_new(ps, f->pid, f->tid)))
			return -ENOMEM;
		thread_set_proc(t, p);
	} else {
		if (!t && !(t = thread_new(ps, f->pid, f->tid)))
			return -ENOMEM;
		thread_set_proc(t, parent->proc);
	}
	t->pid = f->pid;
	t->exited = false;
	if (parent)
		memcpy(t->comm, parent->comm, sizeof t->comm);
	return 0;
}

/* ----------------------------------------------------------- reaping */

/* Frees an exited thread, and its process when it was its last. */
static void thread_reap(struct lp_procs *ps, struct lp_thread *t)
{
	struct lp_htab_ent old;
	if (lp_procs_find(ps, t->tid) == t)
		lp_htab_delete(ps->threads, t->tid, &old);
	struct lp_proc *p = t->proc;
	if (p && !--p->refs)
		proc_free(ps, p);
	free(t);
}

/* Frees the threads whose EXIT is more than LP_PROCS_EXIT_KEEP_NS before
 * now: the head of the FIFO, while it is that old.  A thread is freed at
 * its newest entry (the last of its entries to leave), when it is still
 * exited then. */
static void reap(struct lp_procs *ps, uint64_t now)
{
	while (ps->nr_dead) {
		struct exited *e = &ps->dead[ps->dead_head];
		if (e->time + LP_PROCS_EXIT_KEEP_NS > now)
			break;
		struct lp_thread *t = e->t;
		ps->dead_head = (ps->dead_head + 1) % ps->cap_dead;
		ps->nr_dead--;
		if (!--t->dead && t->exited)
			thread_reap(ps, t);
	}
}

static int dead_push(struct lp_procs *ps, struct lp_thread *t, uint64_t time)
{
	if (ps->nr_dead == ps->cap_dead) {
		size_t cap = ps->cap_dead ? ps->cap_dead * 2 : 256;
		struct exited *d = malloc(cap * sizeof *d);
		if (!d)
			return -ENOMEM;
		for (size_t i = 0; i < ps->nr_dead; i++)
			d[i] = ps->dead[(ps->dead_head + i) % ps->cap_dead];
		free(ps->dead);
		ps->dead = d;
		ps->dead_head = 0;
		ps->cap_dead = cap;
	}
	ps->dead[(ps->dead_head + ps->nr_dead++) % ps->cap_dead] = (struct exited){ t, time };
	t->dead++;
	return 0;
}

/* EXIT: the thread is exited (kept a while: see reap); an EXIT without a
 * time (a recording without PERF_SAMPLE_TIME) cannot be aged, so its
 * thread is kept for the run, as before there was any reaping. */
static int apply_exit(struct lp_procs *ps, const struct lp_task *x)
{
	struct lp_thread *t = lp_procs_find(ps, x->tid);
	if (t) {
		t->exited = true;
		t->exit_time = x->time;
		if (x->time && dead_push(ps, t, x->time))
			return -ENOMEM;
	}
	if (x->time)
		reap(ps, x->time);
	return 0;
}

int lp_procs_apply(struct lp_procs *ps, const struct lp_record *r)
{
	switch (r->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return apply_mmap(ps, &r->u.mmap);
	case PERF_RECORD_KSYMBOL:
		return apply_ksymbol(ps, &r->u.ksymbol);
	case PERF_RECORD_COMM:
		return apply_comm(ps, &r->u.comm);
	case PERF_RECORD_FORK:
		return apply_fork(ps, &r->u.task, !(r->misc & PERF_RECORD_MISC_FORK_EXEC));
	case PERF_RECORD_EXIT:
		return apply_exit(ps, &r->u.task);
	default:
		return 0;
	}
}

/* ------------------------------------------------------------ lifecycle */

struct lp_procs *lp_procs_new(void)
{
	struct lp_procs *ps = calloc(1, sizeof *ps);
	if (!ps)
		return NULL;
	ps->threads = lp_htab_new(NULL, NULL, NULL);
	ps->paths = lp_strtab_new();
	ps->kernel.pid = UINT32_MAX;
	if (!ps->threads || !ps->paths) {
		lp_procs_free(ps);
		return errno = ENOMEM, NULL;
	}
	return ps;
}

void lp_procs_free(struct lp_procs *ps)
{
	if (!ps)
		return;
	const struct lp_htab_ent *e;
	for (size_t it = 0; ps->threads && (e = lp_htab_next(ps->threads, &it));)
		free((struct lp_thread *)(uintptr_t)e->val);
	for (uint32_t i = 0; i < ps->nr_procs; i++) {
		free(ps->procs[i]->maps);
		free(ps->procs[i]);
	}
	free(ps->kernel.maps);
	free(ps->procs);
	free(ps->dead);
	lp_htab_free(ps->threads);
	lp_strtab_free(ps->paths);
	free(ps);
}

bool lp_procs_kernel_recorded(const struct lp_procs *ps)
{
	return ps->kernel_recorded;
}

struct lp_proc *lp_procs_kernel(struct lp_procs *ps)
{
	return &ps->kernel;
}

int lp_procs_each(struct lp_procs *ps, int (*fn)(struct lp_thread *t, void *arg), void *arg)
{
	const struct lp_htab_ent *e;
	for (size_t it = 0; (e = lp_htab_next(ps->threads, &it));) {
		int rc = fn((struct lp_thread *)(uintptr_t)e->val, arg);
		if (rc)
			return rc;
	}
	return 0;
}
