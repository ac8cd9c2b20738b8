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

struct lp_dso;

/* Has mod's separate debug file looked for from where d is (lp_dso_origin:
 * beside the object, not beside a cached copy of it): the module's
 * userdata, which lp_dwarf_find_debuginfo reads.  d must outlive mod. */
void lp_dwarf_set_origin(Dwfl_Module *mod, const struct lp_dso *d);

/* Fills cb with the two callbacks above and offline section addresses. */
void lp_dwarf_callbacks(Dwfl_Callbacks *cb);

/* ---- units by their address ranges (cuspan.c) ---- */

struct lp_cuspans;

/* An index of dw's compilation units by their address ranges (the unit's
 * own, else its functions'), for DWARF that .debug_aranges does not
 * cover.  NULL on ENOMEM; lp_cuspans_free() frees it. */
struct lp_cuspans *lp_cuspans_new(Dwarf *dw);
void lp_cuspans_free(struct lp_cuspans *c);

/* The same for the subprograms of one unit (found through namespaces,
 * modules and types, where dwarf_getscopes does not look): find gives the
 * subprogram's DIE. */
struct lp_cuspans *lp_fnspans_new(Dwarf_Die *cu);

/* The DIE of dw (a unit, or a subprogram) holding pc (a DWARF address)
 * into *cu; false when none does (c may be NULL: none). */
bool lp_cuspans_find(const struct lp_cuspans *c, Dwarf *dw, Dwarf_Addr pc, Dwarf_Die *cu);

/* ---- addr2line's file from the ELF symbols (symfile.c) ---- */

struct lp_symfiles;

/* The functions of e's .symtab with the file binutils gives each (e must
 * outlive it); an empty one without .symtab.  NULL on ENOMEM. */
struct lp_symfiles *lp_symfiles_new(Elf *e);
void lp_symfiles_free(struct lp_symfiles *s);

/* Whether addr2line finds a function symbol for vaddr (s may be NULL:
 * none); *file gets the file it names with it, NULL for none ("??"). */
bool lp_symfiles_find(const struct lp_symfiles *s, uint64_t vaddr, const char **file);

/* ---- the unwinder's fast path (ustep.c) ---- */

/* The CFI rule at one pc, reduced to rip, rsp and rbp. */
struct lp_step {
	bool simple;            /* the rule is one this struct describes */
	bool nocfi;             /* no rule: the object's CFI does not cover pc */
	bool outermost;         /* no return address: the walk ends here */
	bool cfa_rbp;           /* CFA = rbp + cfa_off (else rsp + cfa_off) */
	bool rbp_saved;         /* rbp saved at CFA + rbp_off (else unchanged) */
	int64_t cfa_off, ra_off, rbp_off;   /* return address at CFA + ra_off */
	int ra_reg;             /* >= 0: the return address is in this DWARF
				 * register (known at the sampled frame only) */
};

/* The rule at pc (an address of the module, as libdwfl places it) from
 * mod's .eh_frame; false when there is none, and then st says what perf's
 * libunwind does instead: st->nocfi when the module has an .eh_frame that
 * does not cover pc (crti.o's _init and _fini, hand-written assembly: a
 * guessed frame-pointer step), st->outermost when the module has none
 * (the walk ends there). */
bool lp_step_rule(Dwfl_Module *mod, uint64_t pc, struct lp_step *st);

#define LP_STEPCACHE_BITS 12

struct lp_stepent {
	Dwfl_Module *mod;       /* NULL: empty */
	uint64_t pc;
	struct lp_step step;
};

/* Rules by pc, direct-mapped, for one session (one Dwfl, where a pc's
 * module never changes while the session lives): a hit needs no module
 * lookup.  Valid while the session's modules are. */
struct lp_stepcache {
	struct lp_stepent ents[1u << LP_STEPCACHE_BITS];
};

struct lp_stepcache *lp_stepcache_new(void);
void lp_stepcache_free(struct lp_stepcache *c);

/* The cached rule at pc, or NULL. */
const struct lp_step *lp_stepcache_find(const struct lp_stepcache *c, uint64_t pc);

/* The rule at pc of mod, read (lp_step_rule) and cached; with nocfi, the
 * rule where the CFI does not cover pc, whatever it says (perf's libunwind
 * finds none in mod). */
const struct lp_step *lp_stepcache_put(struct lp_stepcache *c, Dwfl_Module *mod, uint64_t pc,
				       bool nocfi);

#endif
