/*
 * strtab.h - internal: a set of interned strings.  Each distinct string is
 * stored once, in large chunks, and the returned pointer stays valid until
 * lp_strtab_free().  Used for map paths and symbol names, which repeat a lot.
 */
#ifndef LP_STRTAB_H
#define LP_STRTAB_H

#include <stddef.h>

struct lp_strtab;

struct lp_strtab *lp_strtab_new(void);
void lp_strtab_free(struct lp_strtab *t);

/* The interned copy of s (NULL only when out of memory). */
const char *lp_strtab_intern(struct lp_strtab *t, const char *s);

/* Copies n bytes of s plus a NUL into the table's storage without
 * deduplicating (for names already known to be distinct).  NULL on ENOMEM. */
const char *lp_strtab_store(struct lp_strtab *t, const char *s, size_t n);

#endif
