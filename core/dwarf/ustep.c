/*
 * ustep.c - the unwinder's fast path: the CFI rule at a pc, reduced to
 * what recovering rip, rsp and rbp needs (as samply's framehop does), and
 * a cache of those rules per pc.
 *
 * libdwfl's unwinder evaluates the full CFI state machine and allocates
 * for every frame of every sample.  Nearly every rule compilers emit is
 * one of: CFA = rsp or rbp + offset; return address saved at CFA + offset
 * (or undefined: the outermost frame); rbp unchanged or saved at CFA +
 * offset.  Those are read from libdw once per pc (dwarf_cfi_addrframe on
 * the module's .eh_frame) and applied directly.  Anything else (DWARF
 * expressions, other registers, signal frames, no .eh_frame) is marked
 * not simple, and the whole sample is unwound by libdwfl instead.
 */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include <elfutils/libdw.h>

#include "dwarf/dwarf_int.h"

enum { DW_RSP = 7, DW_RBP = 6, DW_RA = 16 };

enum rule { R_OTHER, R_SAME, R_UNDEF, R_AT, R_REG };

/* A saved register's rule: R_AT "at CFA + *off" (memory), R_REG "in
 * register *off", R_SAME, R_UNDEF, or R_OTHER (an expression). */
static enum rule saved_at(Dwarf_Frame *fr, int reg, int64_t *off)
{
	Dwarf_Op mem[3], *ops = NULL;
	size_t n = 0;
	if (dwarf_frame_register(fr, reg, mem, &ops, &n))
		return R_OTHER;
	if (n == 0)             /* same value (ops NULL) or undefined (ops set) */
		return ops ? R_UNDEF : R_SAME;
	if (n == 2 && ops[0].atom == DW_OP_call_frame_cfa && ops[1].atom == DW_OP_plus_uconst) {
		*off = (int64_t)ops[1].number;
		return R_AT;
	}
	if (n == 1 && ops[0].atom == DW_OP_call_frame_cfa) {
		*off = 0;
		return R_AT;
	}
	if (n == 1 && ops[0].atom == DW_OP_regx && ops[0].number < DW_RA) {
		*off = (int64_t)ops[0].number;
		return R_REG;
	}
	return R_OTHER;
}

/* Reduces the frame state fr to a step; false when it is not simple. */
static bool reduce(Dwarf_Frame *fr, struct lp_step *st)
{
	Dwarf_Op *ops;
	size_t n;
	bool signal = false;
	int64_t off;
	Dwarf_Addr start, end;
	if (dwarf_frame_info(fr, &start, &end, &signal) != DW_RA || signal ||
	    dwarf_frame_cfa(fr, &ops, &n) || n != 1 || ops[0].atom != DW_OP_bregx ||
	    (ops[0].number != DW_RSP && ops[0].number != DW_RBP))
		return false;
	st->cfa_rbp = ops[0].number == DW_RBP;
	st->cfa_off = (int64_t)ops[0].number2;
	st->ra_reg = -1;
	switch (saved_at(fr, DW_RA, &off)) {
	case R_AT: st->ra_off = off; break;
	case R_REG: st->ra_reg = (int)off; break;   /* vfork: popped into rdi */
	case R_UNDEF: st->outermost = true; break;  /* the return address is undefined */
	default: return false;
	}
	switch (saved_at(fr, DW_RBP, &off)) {
	case R_AT: st->rbp_saved = true, st->rbp_off = off; break;
	case R_SAME: break;
	default: return false;  /* rbp undefined, or elsewhere: not followed here */
	}
	return true;
}

bool lp_step_rule(Dwfl_Module *mod, uint64_t pc, struct lp_step *st)
{
	Dwarf_Addr bias;
	Dwarf_CFI *cfi = dwfl_module_eh_cfi(mod, &bias);
	Dwarf_Frame *fr = NULL;
	memset(st, 0, sizeof *st);
	st->ra_reg = -1;
	if (!cfi) {             /* perf's libunwind stops where it finds none */
		st->outermost = st->simple = true;
		return false;
	}
	if (dwarf_cfi_addrframe(cfi, pc - bias, &fr)) {
		st->nocfi = st->simple = true;
		return false;
	}
	st->simple = reduce(fr, st);
	free(fr);
	return true;
}

/* ---- the cache: direct-mapped by pc ---- */

struct lp_stepcache *lp_stepcache_new(void)
{
	return calloc(1, sizeof(struct lp_stepcache));
}

void lp_stepcache_free(struct lp_stepcache *c)
{
	free(c);
}

static struct lp_stepent *slot(const struct lp_stepcache *c, uint64_t pc)
{
	uint64_t h = pc * 0x9e3779b97f4a7c15ull;
	return (struct lp_stepent *)(uintptr_t)&c->ents[h >> (64 - LP_STEPCACHE_BITS)];
}

const struct lp_step *lp_stepcache_find(const struct lp_stepcache *c, uint64_t pc)
{
	const struct lp_stepent *e = slot(c, pc);
	return e->mod && e->pc == pc ? &e->step : NULL;
}

const struct lp_step *lp_stepcache_put(struct lp_stepcache *c, Dwfl_Module *mod, uint64_t pc,
				       bool nocfi)
{
	struct lp_stepent *e = slot(c, pc);
	if (nocfi)
		e->step = (struct lp_step){ .simple = true, .nocfi = true, .ra_reg = -1 };
	else
		lp_step_rule(mod, pc, &e->step);
	e->mod = mod;
	e->pc = pc;
	return &e->step;
}
