/* Part of include/luaprof/: the core's interface to the layer above it (lua/). */
/*
 * rows.h - the aggregation engine's report rows (core/agg/rows.c): the
 * samples grouped by perf report's sort keys, with each row's self share
 * and, with children, its inclusive share, in C, one call per sample.
 *
 * It is the part of the engine (agg.h) that groups whole samples and their
 * call stacks, as `perf report --sort KEYS [--children]` does: the caller
 * (lua/host/lrows.c, luaprof.report) resolves a sample's frames and hands
 * them over; rows, their cells' text and perf's order of rows come back.
 *
 * A row is what top.lua's rows were (and perf report's hist entries are):
 *   sym      "[k] NAME" or "[.] NAME"; a row is a symbol (its object and
 *            start, as perf's sort__sym_cmp), and an unnamed frame's row
 *            is its address (the sample's: its offset in the mapped file)
 *   dso      the object's base name ("[unknown]"; a perf map: "[JIT] tid PID")
 *   comm, pid (per thread), tid, process (the pid)
 *   srcline  "FILE:LINE" of the frame's function (base name), "??:0"
 * Children (LP_ROWS_CHILDREN): every row on the sample's stack gets its
 * period once (perf's he_cache: a frame whose row or key was met before
 * on the stack is skipped), walking from the root; an unmapped frame
 * takes the kernel/user level of the nearest mapped frame rootwards, and
 * with sym a function inlined at a frame ("NAME (inlined)") is a row of
 * its own unless it is the frame's own function.
 * With the single key sym, rows that perf's comparison finds equal (the
 * unnamed ones, functions of one name) keep the order of perf's red-black
 * tree of entries, which is modelled: lp_rows_place says where each lies.
 *
 * Memory: each distinct row and frame key once; nothing per sample.
 */
#ifndef LUAPROF_ROWS_H
#define LUAPROF_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LP_ROWS_MAX_KEYS 8

enum lp_rows_key {
	LP_ROWS_SYM, LP_ROWS_DSO, LP_ROWS_COMM, LP_ROWS_PID, LP_ROWS_TID,
	LP_ROWS_PROCESS, LP_ROWS_SRCLINE, LP_ROWS_NR_KEYS
};

/* How a function is named: perf report's short form (demangled without
 * parameters and clone suffixes), the full demangled name, or the raw one. */
enum lp_rows_demangle { LP_ROWS_SHORT, LP_ROWS_FULL, LP_ROWS_NONE };

struct lp_rows_spec {
	uint8_t nr_keys;                /* 1 to LP_ROWS_MAX_KEYS */
	uint8_t keys[LP_ROWS_MAX_KEYS]; /* enum lp_rows_key, each at most once */
	bool children;                  /* accumulate each stack's rows */
	uint8_t demangle;               /* enum lp_rows_demangle */
};

/* One frame as the caller resolved it.  Every string must stay put and
 * unchanged for as long as the lp_rows lives (the resolver's and the
 * source lines' names do): rows are found again by these pointers. */
struct lp_rows_frame {
	const char *sym;        /* the function (demangled, with parameters); NULL: unknown */
	const char *mangled;    /* its raw name when sym is demangled, else NULL */
	const char *dso;        /* the object's path; NULL: unknown */
	const char *file;       /* srcline: the function's source file; NULL: unknown */
	uint32_t line;          /* and line (0: unknown) */
	const char *srcline;    /* srcline: the cell itself, when set (interned:
				 * equal text, equal pointer), else file:line */
	bool kernel;
	bool caller;            /* an unwound caller (unnamed: shown at ip - 1) */
	bool inlined;           /* a function inlined at the next frame's address */
	uint64_t ip;
	uint64_t offset;        /* ip's offset in the file mapped there; 0: none */
	uint64_t symoff;        /* ip - the symbol's start, when sym */
};

/* One sample. */
struct lp_rows_sample {
	uint64_t period;
	int32_t pid, tid;
	const char *comm;               /* the thread's command, at most 15 bytes
					 * (TASK_COMM_LEN), copied when needed */
	const struct lp_rows_frame *leaf;       /* the sampled frame */
	const struct lp_rows_frame *stack;      /* children: leaf first, root last, the
						 * functions inlined at a frame before it */
	size_t nr;
};

struct lp_rows;

/* A new, empty table of rows for spec (copied).  NULL with errno EINVAL
 * when the spec is malformed (no key, too many, one twice or out of
 * range), ENOMEM. */
struct lp_rows *lp_rows_new(const struct lp_rows_spec *spec);

void lp_rows_free(struct lp_rows *r);

/* Adds sample s: 0, or -ENOMEM (the sample then counts in part). */
int lp_rows_add(struct lp_rows *r, const struct lp_rows_sample *s);

/* The samples added and their periods' sum. */
uint64_t lp_rows_samples(const struct lp_rows *r);
uint64_t lp_rows_total(const struct lp_rows *r);

/* The number of rows, numbered 0.. in the order they were made. */
size_t lp_rows_count(const struct lp_rows *r);

struct lp_row {
	const char *cells[LP_ROWS_MAX_KEYS];    /* the keys' text, as spec.keys */
	uint64_t self;          /* periods of the samples whose leaf is the row */
	uint64_t children;      /* periods of the samples with the row on the stack */
	uint64_t samples;       /* samples whose leaf is the row */
};

/* Row i (its cells valid until lp_rows_free). */
struct lp_row lp_rows_get(const struct lp_rows *r, size_t i);

/* Row i's place (1..) in perf's tree of entries, for the single key sym;
 * 0 otherwise.  Computed once, at the first call after the last add. */
size_t lp_rows_place(struct lp_rows *r, size_t i);

/* The rows in perf report's order: by children (with children) or self,
 * descending, then self, then the cells' text without the [k]/[.] level
 * (named before unnamed, addresses as signed numbers), then, for the
 * single key sym, by place in perf's tree.  *out gets a malloc'd array
 * of row numbers, all of them (the caller frees it), the first limit of
 * them in that order and the rest after them, in no particular order
 * when limit is small (a few rows of a long table are found without
 * sorting it all); returns how many to print, at most limit, or -ENOMEM. */
long lp_rows_sort(struct lp_rows *r, bool children, size_t limit, uint32_t **out);

/* The command of thread tid at its last sample (for the pid key), or NULL. */
const char *lp_rows_last_comm(const struct lp_rows *r, int32_t tid);

#endif
