/*
 * dwarf_int.h - internal to core/dwarf: what its files share.
 */
#ifndef LP_DWARF_INT_H
#define LP_DWARF_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <elfutils/libdwfl.h>

/* libdwfl's find_debuginfo callback in luaprof's order (debuginfo.c):
 * lp_debug_file_find(), then debuginfod when allowed (lp_sym_debuginfod).
 * Returns an open fd and sets *debuginfo_file_name (malloc'd), or -1. */
int lp_dwarf_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			    Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			    GElf_Word debuglink_crc, char **debuginfo_file_name);

/* A find_elf callback that finds nothing: objects are reported with their
 * files (dwfl_report_elf). */
int lp_dwarf_no_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
		    char **file_name, Elf **elfp);

/* Fills cb with the two callbacks above and offline section addresses. */
void lp_dwarf_callbacks(Dwfl_Callbacks *cb);

/* ---- the unwinder's fast path (ustep.c) ---- */

/* The CFI rule at one pc, reduced to rip, rsp and rbp. */
struct lp_step {
	bool simple;            /* the rule is one this struct describes */
	bool outermost;         /* no return address: the walk ends here */
	bool cfa_rbp;           /* CFA = rbp + cfa_off (else rsp + cfa_off) */
	bool rbp_saved;         /* rbp saved at CFA + rbp_off (else unchanged) */
	int64_t cfa_off, ra_off, rbp_off;   /* return address at CFA + ra_off */
};

/* The rule at pc (an address of the module, as libdwfl places it) from
 * mod's .eh_frame; false when there is none (st->simple false too). */
bool lp_step_rule(Dwfl_Module *mod, uint64_t pc, struct lp_step *st);

#define LP_STEPCACHE_BITS 12

struct lp_stepent {
	Dwfl_Module *mod;
	uint64_t pc;
	struct lp_step step;
};

/* Rules by (module, pc), direct-mapped; valid while the modules are. */
struct lp_stepcache {
	struct lp_stepent ents[1u << LP_STEPCACHE_BITS];
};

struct lp_stepcache *lp_stepcache_new(void);
void lp_stepcache_free(struct lp_stepcache *c);

/* The rule at pc of mod, from the cache or read and cached. */
const struct lp_step *lp_stepcache_get(struct lp_stepcache *c, Dwfl_Module *mod, uint64_t pc);

#endif
