/*
 * unwind.c - user stacks from a sample's registers and stack copy, with
 * libdwfl's frame unwinder (the CFI of .eh_frame, else .debug_frame; on
 * x86_64 its frame-pointer fallback where an object has neither).
 *
 * One Dwfl per process, attached once (Dwfl_Thread_Callbacks whose memory
 * and registers are those of the sample being unwound, set before each
 * walk), kept across samples so that each object's ELF and CFI are read
 * once per process, not per sample as perf does.  Objects are reported to
 * it lazily, as frames land in them: the map and file the resolver chooses
 * (build-id checked when replaying), at the map's load bias.  An address
 * whose object cannot be read gets an empty placeholder module, so the
 * failure is not retried every sample.  When the process's maps change
 * (proc->gen), the objects reported so far are checked against the new
 * maps and the session is rebuilt if one is gone or moved.
 *
 * Sessions are kept for the LP_UNWIND_PROCS processes used last: each
 * holds its objects open.
 *
 * Most samples never reach libdwfl's walk: the CFI rules of each pc,
 * reduced to rip/rsp/rbp and cached (ustep.c), are applied directly, and
 * only a sample with a frame whose rule is not that simple is unwound by
 * libdwfl.  An object whose CFI perf's libunwind misplaces (a lower copy
 * of its file in the process's maps, left by the image it exec'd from:
 * perf_misplaced) has every pc taken as one no CFI covers, as perf does,
 * unless --true-stacks (lp_unwind_set_true_stacks).  Where no CFI covers a pc, that walk does what perf's libunwind
 * does (guess_step; docs/perf-differences.md), not libdwfl's fallback.  LUAPROF_UNWIND_SLOW in the environment turns that off, to
 * compare the two.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include <elfutils/libdwfl.h>

#include "dwarf/dwarf_int.h"
#include "luaprof/dwarf.h"
#include "luaprof/proc.h"
#include "luaprof/record.h"
#include "luaprof/sym.h"
#include "sym/sym_core.h"
#include "util/bits.h"
#include "util/grow.h"

#define LP_UNWIND_PROCS 32
#define MAX_MODULES 4096

/* perf's x86_64 register numbers (asm/perf_regs.h) */
enum { PR_AX, PR_BX, PR_CX, PR_DX, PR_SI, PR_DI, PR_BP, PR_SP, PR_IP, PR_R8 = 16 };

struct reported {               /* an object reported to a session */
	const char *path;       /* the map's (interned) path */
	uint64_t start, end, bias;
	Dwfl_Module *mod;
	bool misplaced;         /* perf's libunwind finds none of its CFI */
};

struct session {
	const struct lp_proc *proc;     /* NULL: free slot */
	uint32_t gen;
	Dwfl *dwfl;
	bool attached;
	uint64_t used;                  /* LRU tick */
	struct reported *mods;
	size_t nr_mods, cap_mods;
	struct lp_stepcache *steps;     /* the fast path's rules (ustep.c) */
};

struct lp_unwinder {
	struct lp_resolver *r;
	bool fast;                      /* the fast path is on (the default) */
	struct session sessions[LP_UNWIND_PROCS];
	uint64_t tick;
	Dwfl_Callbacks cb;
	/* the walk under way */
	struct session *cur;
	const struct lp_sample *s;
	uint64_t sp;
	uint64_t *ips;
	size_t n, max;
};

struct lp_unwinder *lp_unwinder_new(struct lp_resolver *r)
{
	struct lp_unwinder *u = calloc(1, sizeof *u);
	if (!u)
		return NULL;
	u->r = r;
	u->fast = !getenv("LUAPROF_UNWIND_SLOW");       /* for comparisons */
	lp_dwarf_callbacks(&u->cb);
	return u;
}

static void session_end(struct session *st)
{
	if (st->dwfl)
		dwfl_end(st->dwfl);
	free(st->mods);
	lp_stepcache_free(st->steps);
	*st = (struct session){ 0 };
}

void lp_unwinder_free(struct lp_unwinder *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < LP_UNWIND_PROCS; i++)
		session_end(&u->sessions[i]);
	free(u);
}

/* The value of perf register reg in s, false when the mask lacks it. */
static bool perf_reg(const struct lp_sample *s, unsigned reg, uint64_t *val)
{
	uint64_t mask = s->user_regs_mask;
	if (!(mask & (1ull << reg)))
		return false;
	unsigned idx = lp_popcount(mask & ((1ull << reg) - 1));
	if (idx >= s->nr_user_regs)
		return false;
	*val = s->user_regs[idx];
	return true;
}

bool lp_unwind_possible(const struct lp_sample *s)
{
	uint64_t v;
#if defined(__x86_64__)
	return s->user_abi == PERF_SAMPLE_REGS_ABI_64 && s->user_stack &&
	       s->user_stack_dyn_size >= 8 && perf_reg(s, PR_IP, &v) && perf_reg(s, PR_SP, &v);
#else
	(void)s; (void)v;
	return false;           /* the register layout is x86_64's */
#endif
}

/* ---- the thread callbacks: the sample's stack and registers ---- */

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	(void)dwfl; (void)arg; (void)thread_argp;
	return 0;               /* threads are named by get_thread only */
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl; (void)tid;
	*thread_argp = arg;
	return true;
}

static bool true_stacks;        /* lp_unwind_set_true_stacks */

/* One word of the stack copy into *val; false outside it.  The copy's
 * last word counts as outside, as perf's unwinder has it (its access_mem
 * takes addr + 8 >= end as out of range), unless --true-stacks: a walk
 * whose next return address lies there stops where perf's does. */
static bool stack_word(const struct lp_unwinder *u, uint64_t addr, uint64_t *val)
{
	uint64_t size = u->s->user_stack_dyn_size, room = true_stacks ? 8 : 16;
	if (addr < u->sp || size < room || addr - u->sp > size - room)
		return false;
	memcpy(val, (const char *)u->s->user_stack + (addr - u->sp), sizeof *val);
	return true;
}

/* Words of the stack copy; anything else is unknown (false ends the walk). */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	uint64_t v;
	(void)dwfl;
	if (!stack_word(arg, addr, &v))
		return false;
	*result = v;
	return true;
}

/* DWARF x86_64 numbering: rax rdx rcx rbx rsi rdi rbp rsp r8-r15 rip. */
static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	static const unsigned order[17] = { PR_AX, PR_DX, PR_CX, PR_BX, PR_SI, PR_DI, PR_BP, PR_SP,
					    PR_R8, PR_R8 + 1, PR_R8 + 2, PR_R8 + 3, PR_R8 + 4,
					    PR_R8 + 5, PR_R8 + 6, PR_R8 + 7, PR_IP };
	struct lp_unwinder *u = arg;
	Dwarf_Word regs[17];
	for (unsigned i = 0; i < 17; i++) {
		uint64_t v = 0;
		if (!perf_reg(u->s, order[i], &v) && (order[i] == PR_IP || order[i] == PR_SP))
			return false;
		regs[i] = v;    /* a register not sampled reads 0, as in perf */
	}
	return dwfl_thread_state_registers(thread, 0, 17, regs);
}

/* The sampled value of DWARF register reg (0-15), false when not sampled. */
static bool dwarf_reg(const struct lp_sample *s, int reg, uint64_t *val)
{
	static const unsigned perf_of[16] = { PR_AX, PR_DX, PR_CX, PR_BX, PR_SI, PR_DI, PR_BP, PR_SP,
					      PR_R8, PR_R8 + 1, PR_R8 + 2, PR_R8 + 3, PR_R8 + 4,
					      PR_R8 + 5, PR_R8 + 6, PR_R8 + 7 };
	return reg >= 0 && reg < 16 && perf_reg(s, perf_of[reg], val);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* ---- objects ---- */

/* A descriptor for the object's file: the file itself, or for [vdso]
 * (which is in memory only) a memfd holding this process's vDSO image,
 * which every process of this kernel shares. */
static int object_fd(const char *path)
{
	if (strcmp(path, "[vdso]"))
		return open(path, O_RDONLY | O_CLOEXEC);
	const void *image = (const void *)(uintptr_t)getauxval(AT_SYSINFO_EHDR);
	size_t size = image ? lp_dso_mem_size(image) : 0;
	int fd = size ? memfd_create("vdso", MFD_CLOEXEC) : -1;
	if (fd >= 0 && write(fd, image, size) != (ssize_t)size) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* How st has the file path reported already: 0 not at all, 1 at bias,
 * 2 at other biases only. */
static int reported_as(const struct session *st, const char *path, uint64_t bias)
{
	int how = 0;
	for (size_t i = 0; i < st->nr_mods && how != 1; i++)
		if (st->mods[i].path == path)
			how = st->mods[i].bias == bias ? 1 : 2;
	return how;
}

void lp_unwind_set_true_stacks(bool on)
{
	true_stacks = on;
}

/* Whether perf's libunwind finds no CFI in the object mapped at path whose
 * lowest address is low: it places an object's .eh_frame_hdr from the
 * lowest of the process's maps of that file (read_unwind_spec_eh_frame:
 * base_addr), and a process keeps the maps of the image it exec'd from
 * (perf's model and luaprof's, apply_comm): in a child a shell or make
 * started, the parent's copy of libc or ld.so, mapped lower, misplaces
 * the table, no rule is found for any pc, and libunwind guesses a
 * frame-pointer step (guess_step).  Unless --true-stacks. */
static bool perf_misplaced(const struct lp_proc *p, const char *path, uint64_t low)
{
	for (uint32_t i = 0; !true_stacks && i < p->nr_maps && p->maps[i].start < low; i++)
		if (p->maps[i].path == path)
			return true;
	return false;
}

/* The reported object of module mod, or NULL. */
static const struct reported *reported_mod(const struct session *st, const Dwfl_Module *mod)
{
	for (size_t i = 0; mod && i < st->nr_mods; i++)
		if (st->mods[i].mod == mod)
			return &st->mods[i];
	return NULL;
}

/* Reports to st the object of the map m (its file d) containing pc.
 * libdwfl takes a file reported again under the same name and address
 * range (an ET_EXEC file's range is its own, whatever the bias) with
 * another descriptor for an overlap: it marks the module reported first
 * for removal, and dwfl_report_end frees it, with the Ebl
 * dwfl_attach_state took from it if it was the first; the next walk read
 * the freed Ebl (Debian's node, not PIE, runs its text from a second
 * mapping of itself: luaprof aborted in libdwfl's state_alloc).  So a
 * file is reported once per bias, under its path the first time and as
 * "path@BIAS" at another bias; a pc in a map of it that the module
 * reported at that bias does not hold (outside the ELF's segments) gets a
 * placeholder, "path@START" (the map's start): unwinding stops there, as
 * perf's does. */
static void report_object(struct session *st, const struct lp_map *m, const struct lp_dso *d,
			  uint64_t pc)
{
	uint64_t vaddr = 0, bias = 0;
	int fd = -1, how = 0;
	char name[PATH_MAX + 24];
	if (d && !lp_dso_file_to_vaddr(d, pc - m->start + m->pgoff, &vaddr) &&
	    (how = reported_as(st, m->path, pc - vaddr)) != 1) {
		bias = pc - vaddr;
		fd = object_fd(lp_dso_path(d));
	}
	if (how)        /* another bias, or a placeholder at the map's start */
		snprintf(name, sizeof name, "%s@%#" PRIx64, m->path, how == 2 ? bias : m->start);
	else
		snprintf(name, sizeof name, "%s", m->path);
	dwfl_report_begin_add(st->dwfl);
	Dwfl_Module *mod = fd >= 0 ? dwfl_report_elf(st->dwfl, name, lp_dso_path(d), fd,
						    bias, true) : NULL;
	if (!mod && fd >= 0)
		close(fd);
	lp_dwarf_set_origin(mod, d);
	if (!mod)               /* a placeholder: unwinding stops here, untried again */
		dwfl_report_module(st->dwfl, name, m->start, m->end);
	dwfl_report_end(st->dwfl, NULL, NULL);
	/* where libdwfl put it: an ET_EXEC file only ever at its own addresses */
	Dwarf_Addr low = 0;
	bool misplaced = mod && dwfl_module_info(mod, NULL, &low, NULL, NULL, NULL, NULL, NULL) &&
			 perf_misplaced(st->proc, m->path, low & ~0xfffull);
	if (!lp_grow(&st->mods, &st->cap_mods, st->nr_mods, sizeof *st->mods, 16, MAX_MODULES))
		st->mods[st->nr_mods++] = (struct reported){ m->path, m->start, m->end, bias, mod,
							     misplaced };
}

/* Makes sure the object containing pc is reported, if it has a map. */
static void report_pc(struct lp_unwinder *u, uint64_t pc)
{
	struct session *st = u->cur;
	const struct lp_map *m;
	struct lp_dso *d;
	if (dwfl_addrmodule(st->dwfl, pc) || st->nr_mods >= MAX_MODULES)
		return;
	if (lp_resolver_object(u->r, st->proc, pc, &m, &d) || !m || !m->path)
		return;
	report_object(st, m, d, pc);
	if (!st->attached)
		st->attached = dwfl_attach_state(st->dwfl, NULL, (pid_t)st->proc->pid,
						 &thread_callbacks, u);
}

/* ---- sessions ---- */

/* Whether every object reported to st still has its map in proc. */
static bool still_mapped(const struct session *st)
{
	for (size_t i = 0; i < st->nr_mods; i++) {
		const struct reported *o = &st->mods[i];
		const struct lp_map *m = lp_proc_find_map(st->proc, o->start);
		if (!m || m->path != o->path || m->start > o->start || m->end < o->end)
			return false;
	}
	return true;
}

static int session_begin(struct lp_unwinder *u, struct session *st, const struct lp_proc *proc)
{
	session_end(st);
	st->dwfl = dwfl_begin(&u->cb);
	st->steps = lp_stepcache_new();
	if (!st->dwfl || !st->steps) {
		session_end(st);
		return -ENOMEM;
	}
	st->proc = proc;
	st->gen = proc->gen;
	return 0;
}

/* The session of proc: its own (checked against its maps), else a new one
 * in place of the one used least recently. */
static struct session *session_get(struct lp_unwinder *u, const struct lp_proc *proc)
{
	struct session *st = NULL, *lru = &u->sessions[0];
	for (size_t i = 0; i < LP_UNWIND_PROCS && !st; i++) {
		struct session *c = &u->sessions[i];
		if (c->proc == proc && c->dwfl)
			st = c;
		else if (c->used < lru->used)
			lru = c;
	}
	if (st && st->gen != proc->gen) {
		if (still_mapped(st))
			st->gen = proc->gen;
		else if (session_begin(u, st, proc))
			return NULL;
	}
	if (!st && session_begin(u, st = lru, proc))
		return NULL;
	st->used = ++u->tick;
	return st;
}

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct lp_unwinder *u = arg;
	Dwarf_Addr pc;
	bool activation;
	if (!dwfl_frame_pc(state, &pc, &activation) || pc == 0)
		return DWARF_CB_ABORT;
	if (u->n && activation)
		pc++;           /* so that pc - 1 is the signal frame's own pc */
	/* the object the unwinder needs next: of the call, not the return */
	report_pc(u, u->n ? pc - 1 : pc);
	u->ips[u->n++] = pc;
	return u->n < u->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/* A step through code its object's CFI does not cover, as perf's
 * libunwind takes it (x86_64 unw_step, "guessed" frame): rbp taken as a
 * frame pointer when it lies in [cfa, cfa + 0x4000], where cfa is the
 * walk's CFA so far (the sampled rsp, first); the return address and the
 * caller's rbp read at rbp + 8 and rbp; the CFA moved on by 16 from the
 * old CFA, not from rbp (libunwind's own, wrong when rbp is not the frame
 * just left: it is kept, since perf's stacks are what luaprof's must be).
 * False when the walk ends there. */
static bool guess_step(const struct lp_unwinder *u, uint64_t *cfa, uint64_t *bp,
		       bool *bp_known, uint64_t *pc)
{
	uint64_t up_bp, ra;
	if (!*bp_known || *bp < *cfa || *bp - *cfa > 0x4000 ||
	    !stack_word(u, *bp, &up_bp) || !stack_word(u, *bp + 8, &ra))
		return false;
	*bp = up_bp;
	*cfa += 16;
	*pc = ra;
	return true;
}

/* The walk with cached rules (ustep.c), frame by frame as libdwfl's would
 * go: true when it ended on its own (u->ips, u->n hold it), false when a
 * frame's rule is not simple and libdwfl must unwind the sample.  A word
 * that is not in the stack copy ends the walk, as it does libdwfl's. */
static bool fast_unwind(struct lp_unwinder *u, uint64_t pc)
{
	struct session *st = u->cur;
	uint64_t sp = u->sp, bp = 0, ra;
	bool bp_known = perf_reg(u->s, PR_BP, &bp);
	for (u->n = 0; pc && u->n < u->max;) {
		u->ips[u->n++] = pc;
		uint64_t look = u->n > 1 ? pc - 1 : pc;
		const struct lp_step *r = lp_stepcache_find(st->steps, look);
		if (!r) {       /* the object is reported before its rule is cached */
			report_pc(u, look);
			Dwfl_Module *mod = dwfl_addrmodule(st->dwfl, look);
			if (!mod)
				return true;    /* as libunwind: no object, no step */
			const struct reported *o = reported_mod(st, mod);
			r = lp_stepcache_put(st->steps, mod, look, o && o->misplaced);
		}
		if (!r->simple)
			return false;
		if (r->nocfi) {
			if (!guess_step(u, &sp, &bp, &bp_known, &pc))
				return true;
			continue;
		}
		if (r->outermost || (r->cfa_rbp && !bp_known))
			return true;
		uint64_t cfa = (r->cfa_rbp ? bp : sp) + (uint64_t)r->cfa_off;
		if (r->ra_reg >= 0) {   /* only the sampled frame's registers are known */
			if (u->n > 1 || !dwarf_reg(u->s, r->ra_reg, &ra))
				return false;
		} else if (!stack_word(u, cfa + (uint64_t)r->ra_off, &ra)) {
			return true;
		}
		if (r->rbp_saved)
			bp_known = stack_word(u, cfa + (uint64_t)r->rbp_off, &bp);
		sp = cfa;
		pc = ra;
	}
	return true;
}

size_t lp_unwind(struct lp_unwinder *u, const struct lp_proc *proc,
		 const struct lp_sample *s, uint64_t *ips, size_t max)
{
	uint64_t pc = 0;
	if (!proc || !max || !lp_unwind_possible(s) || !(u->cur = session_get(u, proc)))
		return 0;
	perf_reg(s, PR_SP, &u->sp);
	perf_reg(s, PR_IP, &pc);
	u->s = s;
	u->ips = ips;
	u->n = 0;
	u->max = max;
	if (!lp_stepcache_find(u->cur->steps, pc))     /* else reported already */
		report_pc(u, pc);
	if (!u->cur->attached) {        /* no object at pc: the sampled pc alone */
		ips[0] = pc;
		return 1;
	}
	if (u->fast && fast_unwind(u, pc))
		return u->n;
	u->n = 0;
	dwfl_getthread_frames(u->cur->dwfl, (pid_t)s->tid, frame_cb, u);
	if (!u->n)
		ips[u->n++] = pc;
	return u->n;
}
