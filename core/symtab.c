/*
 * symtab.c - symbol tables: [start, end) -> name, searched by binary search.
 *
 * A table is built by appending (lp_symtab_add*) and settled once by
 * lp_symtab_finish(): entries are sorted by start, aliases (several symbols
 * at one address) are reduced to one, sizeless symbols get their end from
 * the next symbol, and each entry records "up": the index of the nearest
 * earlier entry whose range is still open at its start.  Lookup binary
 * searches the last entry starting at or before the address and, when that
 * one ends too early, walks up the chain of enclosing entries (its length is
 * the nesting depth, 0 or 1 in real objects).  Every entry skipped by the
 * chain ends at or before the start of an entry already rejected, so it
 * cannot contain the address either.
 *
 * Names are copied into an lp_names arena: one malloc per 64 KiB of names.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sym_int.h"

/* ------------------------------------------------------------ name arena */

struct lp_names_chunk {
	struct lp_names_chunk *next;
	char data[];
};

const char *lp_names_dup(struct lp_names *a, const char *s, size_t n)
{
	if (!a->head || a->cap - a->used < n + 1) {
		size_t cap = n + 1 > LP_NAMES_CHUNK ? n + 1 : LP_NAMES_CHUNK;
		struct lp_names_chunk *c = malloc(sizeof *c + cap);

		if (!c)
			return NULL;
		c->next = a->head;
		a->head = c;
		a->used = 0;
		a->cap = cap;
	}
	char *p = a->head->data + a->used;
	memcpy(p, s, n);
	p[n] = '\0';
	a->used += n + 1;
	return p;
}

void lp_names_free(struct lp_names *a)
{
	struct lp_names_chunk *c = a->head;

	while (c) {
		struct lp_names_chunk *next = c->next;
		free(c);
		c = next;
	}
	a->head = NULL;
	a->used = a->cap = 0;
}

/* ---------------------------------------------------------------- table */

struct sym_ent {
	struct lp_sym s;        /* first: an lp_sym pointer is an entry pointer */
	int32_t up;             /* nearest earlier entry open at s.start, or -1 */
	uint32_t seq;           /* insertion order: perf's last tie-break */
	uint16_t tag;
	uint8_t prio;
	uint8_t sized;
	uint8_t late;           /* added after the others' ends were fixed */
	uint8_t hole;           /* late, and lookups in it find nothing */
};

struct lp_symtab {
	struct sym_ent *ents;
	size_t nr, cap;
	bool finished;
	struct lp_names names;
};

struct lp_symtab *lp_symtab_new(void)
{
	struct lp_symtab *t = calloc(1, sizeof *t);

	if (!t)
		errno = ENOMEM;
	return t;
}

void lp_symtab_free(struct lp_symtab *t)
{
	if (!t)
		return;
	lp_names_free(&t->names);
	free(t->ents);
	free(t);
}

static int ents_reserve(struct lp_symtab *t)
{
	if (t->nr < t->cap)
		return 0;
	size_t cap = t->cap ? t->cap * 2 : 64;
	if (cap > INT32_MAX)
		return -ENOMEM;
	struct sym_ent *e = realloc(t->ents, cap * sizeof *e);
	if (!e)
		return -ENOMEM;
	t->ents = e;
	t->cap = cap;
	return 0;
}

int lp_symtab_add_tagged(struct lp_symtab *t, const char *name, uint64_t start,
			 uint64_t size, unsigned prio, uint16_t tag)
{
	if (ents_reserve(t))
		return -ENOMEM;
	const char *copy = lp_names_dup(&t->names, name, strlen(name));
	if (!copy)
		return -ENOMEM;
	struct sym_ent *e = &t->ents[t->nr++];
	e->s.name = copy;
	e->s.start = start;
	e->s.end = start + size < start ? UINT64_MAX : start + size;
	e->up = -1;
	e->seq = (uint32_t)(t->nr - 1);
	e->tag = tag;
	e->prio = prio > 255 ? 255 : (uint8_t)prio;
	e->sized = size != 0;
	e->late = e->hole = 0;
	t->finished = false;
	return 0;
}

int lp_symtab_add_late(struct lp_symtab *t, const char *name, uint64_t start,
		       uint64_t size)
{
	int err = lp_symtab_add_tagged(t, name ? name : "", start, size, LP_SYM_GLOBAL, 0);

	if (!err) {
		t->ents[t->nr - 1].late = 1;
		t->ents[t->nr - 1].hole = !name;
	}
	return err;
}

int lp_symtab_add_ex(struct lp_symtab *t, const char *name, uint64_t start,
		     uint64_t size, unsigned prio)
{
	return lp_symtab_add_tagged(t, name, start, size, prio, 0);
}

int lp_symtab_add(struct lp_symtab *t, const char *name, uint64_t start, uint64_t size)
{
	return lp_symtab_add_tagged(t, name, start, size, 0, 0);
}

#define CMP3(a, b) ((a) < (b) ? -1 : (a) > (b))

static size_t leading_underscores(const char *s)
{
	size_t n = 0;
	while (s[n] == '_')
		n++;
	return n;
}

/* Address order; among aliases the preferred one first, by perf's rules
 * (choose_best_symbol) so that both tools give one address the same name:
 * sized, higher priority, fewer leading underscores, longer name, then the
 * one added first (perf keeps the earlier one of a tie). */
static int ent_cmp(const void *pa, const void *pb)
{
	const struct sym_ent *a = pa, *b = pb;
	int c;

	if ((c = CMP3(a->s.start, b->s.start)))
		return c;
	if ((c = CMP3(b->sized, a->sized)))
		return c;
	if ((c = CMP3(b->prio, a->prio)))
		return c;
	if ((c = CMP3(leading_underscores(a->s.name), leading_underscores(b->s.name))))
		return c;
	if ((c = CMP3(strlen(b->s.name), strlen(a->s.name))))
		return c;
	if ((c = CMP3(a->seq, b->seq)))
		return c;
	if ((c = CMP3(b->s.end, a->s.end)))
		return c;
	return CMP3(a->tag, b->tag);
}

/* perf's end for a sizeless symbol with no usable successor. */
static uint64_t page_end(uint64_t start)
{
	if (start > UINT64_MAX - 8192)
		return UINT64_MAX;
	return ((start + 4095) & ~(uint64_t)4095) + 4096;
}

/* A sizeless symbol ends where the next one starts, late ones not counted
 * (walked backwards to know the next non-late entry). */
static void fixup_ends(struct lp_symtab *t)
{
	const struct sym_ent *next = NULL;

	for (size_t i = t->nr; i-- > 0;) {
		struct sym_ent *e = &t->ents[i];

		if (!e->sized && e->late)
			e->s.end = e->s.start;
		else if (!e->sized && !next)
			e->s.end = page_end(e->s.start);
		else if (!e->sized) {
			e->s.end = next->s.start;
			if (next->tag != e->tag && page_end(e->s.start) < e->s.end)
				e->s.end = page_end(e->s.start);
		}
		if (!e->late)
			next = e;
	}
}

static void link_up(struct lp_symtab *t)
{
	for (size_t i = 0; i < t->nr; i++) {
		int32_t j = (int32_t)i - 1;

		while (j >= 0 && t->ents[j].s.end <= t->ents[i].s.start)
			j = t->ents[j].up;
		t->ents[i].up = j;
	}
}

int lp_symtab_finish(struct lp_symtab *t)
{
	size_t kept = 0;

	/* Sizeless ends are recomputed, so finishing twice is harmless. */
	for (size_t i = 0; i < t->nr; i++)
		if (!t->ents[i].sized)
			t->ents[i].s.end = t->ents[i].s.start;
	if (t->nr > 1)
		qsort(t->ents, t->nr, sizeof *t->ents, ent_cmp);
	for (size_t i = 0; i < t->nr; i++) {
		if (kept && t->ents[kept - 1].s.start == t->ents[i].s.start)
			continue;
		t->ents[kept++] = t->ents[i];
	}
	t->nr = kept;
	fixup_ends(t);
	link_up(t);
	t->finished = true;
	return 0;
}

const struct lp_sym *lp_symtab_find(const struct lp_symtab *t, uint64_t addr)
{
	if (!t || !t->finished)
		return NULL;
	size_t lo = 0, hi = t->nr;      /* first entry with start > addr */

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->ents[mid].s.start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (int32_t i = (int32_t)lo - 1; i >= 0; i = t->ents[i].up)
		if (addr < t->ents[i].s.end)
			return t->ents[i].hole ? NULL : &t->ents[i].s;
	return NULL;
}

size_t lp_symtab_count(const struct lp_symtab *t)
{
	return t ? t->nr : 0;
}

const struct lp_sym *lp_symtab_at(const struct lp_symtab *t, size_t i)
{
	if (!t || !t->finished || i >= t->nr)
		return NULL;
	return &t->ents[i].s;
}

uint16_t lp_symtab_tag(const struct lp_symtab *t, const struct lp_sym *s)
{
	(void)t;
	return ((const struct sym_ent *)(const void *)s)->tag;
}
