/* Part of include/luaprof/: the core's interface to the layer above it (lua/). */
/*
 * dwarf.h - what DWARF gives beyond symbol tables, read with elfutils'
 * libdw and libdwfl in-process (never a subprocess):
 *
 *  lp_unwinder  user stacks unwound from a sample's registers and stack
 *               copy (perf record --call-graph dwarf) with the objects'
 *               CFI (.eh_frame, .debug_frame): one libdwfl session per
 *               process, kept and reused for every sample of it; each
 *               object's CFI is read once per session, when first needed.
 */
#ifndef LUAPROF_DWARF_H
#define LUAPROF_DWARF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lp_resolver;
struct lp_proc;
struct lp_sample;

struct lp_unwinder;

/* An unwinder that finds each address's object as r does (r's files, so a
 * replay unwinds with the files the recording's build-ids chose).  r is
 * borrowed and must outlive the unwinder.  NULL and errno on failure. */
struct lp_unwinder *lp_unwinder_new(struct lp_resolver *r);
void lp_unwinder_free(struct lp_unwinder *u);

/* Whether sample s carries what unwinding needs: user registers (not a
 * kernel thread's) with at least the instruction and stack pointers, and
 * a non-empty stack copy. */
bool lp_unwind_possible(const struct lp_sample *s);

/* on: unwind every object with its CFI, also where perf's libunwind finds
 * none (the libraries of a process exec'd by one recorded, whose parent's
 * copies stay in its maps and misplace their CFI for perf); off (the
 * default): leave those frames as perf does.  For every unwinder. */
void lp_unwind_set_true_stacks(bool on);

/* Unwinds the user stack of s, a sample of process proc (NULL: nothing to
 * unwind with), into ips (at most max): the sampled user pc first,
 * then each caller's return address.  A caller's call instruction is at
 * ip - 1, which is where its function and line are to be looked up (a
 * signal frame's pc is given as pc + 1, so the same rule holds).  Stops at
 * the first frame it cannot unwind through (no object, no CFI, the stack
 * copy exhausted).  Returns the number of frames (0 when the sample has no
 * usable registers); never fails otherwise. */
size_t lp_unwind(struct lp_unwinder *u, const struct lp_proc *proc,
		 const struct lp_sample *s, uint64_t *ips, size_t max);

/* One source-level frame at an address. */
struct lp_srcframe {
	const char *func;       /* the function's name (DWARF's linkage name when
				   it has one, demangled), or NULL */
	const char *mangled;    /* the linkage name when func is demangled */
	const char *name;       /* the name as perf prints it: the linkage name
				   demangled without parameters (func when it
				   has none), or NULL with func */
	const char *file;       /* the source file, as the line table names it */
	uint32_t line;          /* 0 when unknown */
};

struct lp_srclines;
struct lp_dso;

/* An empty cache; NULL and errno on failure. */
struct lp_srclines *lp_srclines_new(void);
void lp_srclines_free(struct lp_srclines *sl);

/* The source frames at ELF virtual address vaddr of object d, innermost
 * first, as addr2line -f -i prints them (as one addr2line process per
 * object prints them, asked in the order of the calls, as perf runs it:
 * binutils names some C++ functions otherwise the first time, srcline.c):
 * the functions inlined there (the first at the line of vaddr itself,
 * each next one at the call site of the one before), then the function
 * they were inlined into (the last frame).  One frame when nothing is
 * inlined there; 0 frames when the object has no DWARF for vaddr.
 * *frames is borrowed from the cache and valid until lp_srclines_free();
 * strings too.  The object's DWARF is opened on the first lookup in it;
 * each address is looked up once.  Returns the number of frames, or
 * -ENOMEM. */
int lp_srclines_get(struct lp_srclines *sl, const struct lp_dso *d, uint64_t vaddr,
		    const struct lp_srcframe **frames);

/* Where DWARF gives vaddr of object d no line (or d has no DWARF):
 * whether binutils' addr2line (perf's) finds its function among the ELF
 * symbols (.symtab, else .dynsym) of d's debug file, else of d, and
 * *file the file it names then (an STT_FILE symbol's name, "" possibly;
 * NULL: none, "??"): addr2line prints FILE:?, else ??:0, which perf takes
 * for no answer.  False when d's file cannot be read. */
bool lp_srclines_symfile(struct lp_srclines *sl, const struct lp_dso *d, uint64_t vaddr,
			 const char **file);

/* s interned in the cache's strings: equal text, equal pointer; valid
 * until lp_srclines_free().  NULL on ENOMEM. */
const char *lp_srclines_intern(struct lp_srclines *sl, const char *s);

#endif
