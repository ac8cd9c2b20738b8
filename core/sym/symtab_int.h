/*
 * symtab_int.h - internal to symtab.c and symimport.c: a symbol table's
 * layout, and the lookups of a table made from records (lp_symtab_import).
 */
#ifndef LP_SYMTAB_INT_H
#define LP_SYMTAB_INT_H

#include "sym/sym_int.h"

struct sym_ent {
	struct lp_sym s;        /* first: an lp_sym pointer is an entry pointer */
	int32_t up;             /* nearest earlier entry open at s.start, or -1 */
	uint16_t tag;
	uint8_t prio;
	uint8_t sized : 1;
	uint8_t late : 1;       /* added after the others' ends were fixed */
	uint8_t hole : 1;       /* late, and lookups in it find nothing */
};

/* 32 bytes: two entries per 64-byte cache line. */
_Static_assert(sizeof(struct sym_ent) == 32, "sym_ent grew");

/* The ends of the ranges lookups narrow (find_ent, find_index). */
static inline uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static inline uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

struct symimp;
struct lp_ranges;

struct lp_symtab {
	struct sym_ent *ents;   /* NULL when imported */
	size_t nr;
	size_t bytes;           /* capacity of ents, a bigbuf */
	bool finished;
	struct lp_names names;
	struct symimp *imp;     /* imported: its records, NULL: ents */
	struct lp_ranges *hot[2];       /* the ranges lp_symtab_find [0] and
					 * lp_symtab_find_sized [1] answered */
};

/* lp_symtab_find (sized false) and lp_symtab_find_sized of the finished
 * imported table t; NULL also when a record can't be read again.  [*lo,
 * *hi) gets the addresses around addr given the same answer: empty when
 * a record could not be read (an answer not to be kept). */
const struct lp_sym *lp_symimp_find(const struct lp_symtab *t, uint64_t addr, bool sized,
				    uint64_t *lo, uint64_t *hi);

/* lp_symtab_at and lp_symtab_rec of t (i < t->nr). */
const struct lp_sym *lp_symimp_at(const struct lp_symtab *t, size_t i);
bool lp_symimp_rec(const struct lp_symtab *t, size_t i, struct lp_symtab_rec *r);

/* The records of lp_symtab_import, checked (as it says), for a table of
 * n entries; NULL with *err -EINVAL or -ENOMEM. */
struct symimp *lp_symimp_new(const struct lp_symtab_rec *recs, size_t n, const char *names,
			     size_t names_len, size_t nr_tags, const struct lp_symsrc *src, int *err);

/* Frees what t->imp holds (NULL is fine). */
void lp_symimp_free(struct symimp *imp);

#endif
