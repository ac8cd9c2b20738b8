/*
 * symtab.c - symbol tables: [start, end) -> name, searched by binary search.
 *
 * A table is built by appending (lp_symtab_add*) and settled once by
 * lp_symtab_finish(): entries are put in start order, aliases (several
 * symbols at one address) are reduced to one, sizeless symbols get their
 * end from the next symbol, and each entry records "up": the index of the
 * nearest earlier entry whose range is still open at its start.  Lookup
 * binary searches the last entry starting at or before the address and,
 * when that one ends too early, walks up the chain of enclosing entries
 * (its length is the nesting depth, 0 or 1 in real objects).  Every entry
 * skipped by the chain ends at or before the start of an entry already
 * rejected, so it cannot contain the address either.
 *
 * Finishing is linear when the symbols came in start order (kallsyms does
 * that); otherwise a radix sort of (start, index) keys puts them in order.
 * A finished table can be written out as plain records and made again
 * from them (lp_symtab_rec, lp_symtab_import: kcache.c's cached kallsyms
 * and objects' tables); an imported table is not copied, and its lookups
 * are symimport.c's.
 * Each lookup computes the addresses around its own given the same answer
 * (find_ent, symimport.c's find_index) and the table keeps them
 * (ranges.h), a set for each kind of lookup: a profile's addresses are
 * mostly new, but fall in a few thousand functions, so a lookup is then
 * a search of those few thousand ranges, in memory the last ones warmed,
 * rather than of every entry (and, imported, of the records read and the
 * entries made from them).  Finishing again forgets them.
 * Large arrays are huge-page buffers (bigbuf.h).  Names are copied into an
 * lp_names arena, one allocation per 64 KiB of names, or borrowed from the
 * caller (lp_symtab_add_borrowed).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "luaprof/ranges.h"
#include "util/bigbuf.h"
#include "sym/symtab_int.h"

/* ------------------------------------------------------------ name arena */

struct lp_names_chunk {
	struct lp_names_chunk *next;
	size_t bytes;           /* of the whole chunk, a bigbuf */
	char data[];
};

const char *lp_names_dup(struct lp_names *a, const char *s, size_t n)
{
	if (!a->head || a->cap - a->used < n + 1) {
		size_t want = a->chunk ? a->chunk : LP_NAMES_CHUNK, bytes = 0;
		void *mem = NULL;

		if (n + 1 > want - sizeof(struct lp_names_chunk))
			want = sizeof(struct lp_names_chunk) + n + 1;
		if (lp_bigbuf_reserve(&mem, &bytes, want))
			return NULL;
		struct lp_names_chunk *c = mem;
		c->next = a->head;
		c->bytes = bytes;
		a->head = c;
		a->used = 0;
		a->cap = bytes - sizeof *c;
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
		lp_bigbuf_free(c, c->bytes);
		c = next;
	}
	a->head = NULL;
	a->used = a->cap = 0;
}

/* ---------------------------------------------------------------- table */

struct lp_symtab *lp_symtab_new(void)
{
	struct lp_symtab *t = calloc(1, sizeof *t);

	if (!t || !(t->hot[0] = lp_ranges_new()) || !(t->hot[1] = lp_ranges_new())) {
		if (t)
			lp_ranges_free(t->hot[0]);
		free(t);
		errno = ENOMEM;
		return NULL;
	}
	return t;
}

void lp_symtab_free(struct lp_symtab *t)
{
	if (!t)
		return;
	lp_names_free(&t->names);
	lp_bigbuf_free(t->ents, t->bytes);
	lp_symimp_free(t->imp);
	lp_ranges_free(t->hot[0]);
	lp_ranges_free(t->hot[1]);
	free(t);
}

#define MAX_ENTS ((size_t)INT32_MAX)    /* "up" is an int32_t index */

/* Room for want entries in all. */
static int ents_room(struct lp_symtab *t, size_t want)
{
	void *e = t->ents;

	if (want <= t->bytes / sizeof *t->ents)
		return 0;
	if (want > MAX_ENTS || lp_bigbuf_reserve(&e, &t->bytes, want * sizeof *t->ents))
		return -ENOMEM;
	t->ents = e;
	return 0;
}

int lp_symtab_reserve(struct lp_symtab *t, size_t n)
{
	if (t->imp)
		return -EINVAL;
	return n > MAX_ENTS - t->nr ? -ENOMEM : ents_room(t, t->nr + n);
}

/* Room for one more entry, doubling the capacity when full. */
static int ents_reserve_one(struct lp_symtab *t)
{
	size_t want = t->nr < 32 ? 64 : 2 * t->nr;

	if (t->imp)             /* imported: finished for good */
		return -EINVAL;
	if (t->nr < t->bytes / sizeof *t->ents)
		return 0;
	return ents_room(t, want < MAX_ENTS ? want : t->nr + 1);
}

int lp_symtab_add_borrowed(struct lp_symtab *t, const char *name, uint64_t start,
			   uint64_t size, unsigned prio, uint16_t tag)
{
	int err = ents_reserve_one(t);
	if (err)
		return err;
	struct sym_ent *e = &t->ents[t->nr++];
	e->s.name = name;
	e->s.start = start;
	e->s.end = start + size < start ? UINT64_MAX : start + size;
	e->up = -1;
	e->tag = tag;
	e->prio = prio > 255 ? 255 : (uint8_t)prio;
	e->sized = size != 0;
	e->late = e->hole = 0;
	t->finished = false;
	return 0;
}

int lp_symtab_add_tagged(struct lp_symtab *t, const char *name, uint64_t start,
			 uint64_t size, unsigned prio, uint16_t tag)
{
	int err = ents_reserve_one(t);
	if (err)
		return err;
	const char *copy = lp_names_dup(&t->names, name, strlen(name));
	if (!copy)
		return -ENOMEM;
	return lp_symtab_add_borrowed(t, copy, start, size, prio, tag);
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

/* Of two aliases (entries with one start), whether a is preferred to b by
 * perf's rules (choose_best_symbol), so that both tools give one address
 * the same name: sized, higher priority, fewer leading underscores, longer
 * name.  Neither is on a tie: then perf keeps the one added first.  The
 * names compared are perf's: it demangles C++ and Rust names as it loads
 * them (without parameters, as dso__load_sym stores them), so ns::f
 * (_ZN2ns1fEm, 5 characters as perf counts) loses to an alias "abcdef"
 * and beats "ab". */
static bool alias_better(const struct sym_ent *a, const struct sym_ent *b)
{
	int c;

	if ((c = CMP3(b->sized, a->sized)))
		return c < 0;
	if ((c = CMP3(b->prio, a->prio)))
		return c < 0;
	char *da = lp_demangle_name(a->s.name, false), *db = lp_demangle_name(b->s.name, false);
	const char *na = da ? da : a->s.name, *nb = db ? db : b->s.name;
	bool better;
	if ((c = CMP3(leading_underscores(na), leading_underscores(nb))))
		better = c < 0;
	else
		better = strlen(na) > strlen(nb);
	free(da);
	free(db);
	return better;
}

static bool in_start_order(const struct lp_symtab *t)
{
	for (size_t i = 1; i < t->nr; i++)
		if (t->ents[i].s.start < t->ents[i - 1].s.start)
			return false;
	return true;
}

struct sort_key {
	uint64_t start;
	uint64_t idx;           /* into the unsorted entries */
};

/* Sorts a[0, n) by start, stably: a least-significant-digit radix sort on
 * bytes, skipping the bytes all keys share (the high ones, mostly).  tmp
 * has room for n keys; returns whichever of a and tmp holds the result. */
static struct sort_key *radix_sort(struct sort_key *a, struct sort_key *tmp, size_t n)
{
	uint32_t count[8][256] = { { 0 } };     /* n <= MAX_ENTS */

	for (size_t i = 0; i < n; i++)
		for (unsigned d = 0; d < 8; d++)
			count[d][(a[i].start >> (8 * d)) & 255]++;
	for (unsigned d = 0; d < 8; d++) {
		uint32_t *c = count[d], pos = 0;

		if (c[(a[0].start >> (8 * d)) & 255] == n)
			continue;
		for (unsigned v = 0; v < 256; v++) {
			uint32_t k = c[v];
			c[v] = pos;
			pos += k;
		}
		for (size_t i = 0; i < n; i++)
			tmp[c[(a[i].start >> (8 * d)) & 255]++] = a[i];
		struct sort_key *swap = a;
		a = tmp;
		tmp = swap;
	}
	return a;
}

/* Moves every entry to the place its key went, in place: position i takes
 * entry k[i].idx, following each cycle of the permutation once. */
static void permute(struct sym_ent *e, struct sort_key *k, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (k[i].idx == i)
			continue;
		struct sym_ent first = e[i];
		size_t j = i;
		while (k[j].idx != i) {
			size_t src = k[j].idx;
			e[j] = e[src];
			k[j].idx = j;
			j = src;
		}
		e[j] = first;
		k[j].idx = j;
	}
}

/* Puts the entries in start order (entries of one start in the order they
 * were added).  0 or -ENOMEM (then unchanged). */
static int sort_by_start(struct lp_symtab *t)
{
	void *keys = NULL;
	size_t bytes = 0, n = t->nr;

	if (lp_bigbuf_reserve(&keys, &bytes, 2 * n * sizeof(struct sort_key)))
		return -ENOMEM;
	struct sort_key *k = keys;
	for (size_t i = 0; i < n; i++)
		k[i] = (struct sort_key){ t->ents[i].s.start, i };
	permute(t->ents, radix_sort(k, k + n, n), n);
	lp_bigbuf_free(keys, bytes);
	return 0;
}

/* Of each run of entries with one start (in start order), keeps the
 * preferred one; of equals, the first in the table, which is the one added
 * first (the sort keeps the order of equal starts). */
static void keep_best_aliases(struct lp_symtab *t)
{
	size_t kept = 0;

	for (size_t i = 0; i < t->nr; i++) {
		struct sym_ent *last = kept ? &t->ents[kept - 1] : NULL;

		if (last && last->s.start == t->ents[i].s.start) {
			if (alias_better(&t->ents[i], last))
				*last = t->ents[i];
			continue;
		}
		t->ents[kept++] = t->ents[i];
	}
	t->nr = kept;
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
	if (t->imp)             /* imported: finished already */
		return 0;
	/* Sizeless ends are recomputed, so finishing twice is harmless. */
	for (size_t i = 0; i < t->nr; i++)
		if (!t->ents[i].sized)
			t->ents[i].s.end = t->ents[i].s.start;
	if (!in_start_order(t) && sort_by_start(t))
		return -ENOMEM;
	keep_best_aliases(t);
	fixup_ends(t);
	link_up(t);
	lp_ranges_clear(t->hot[0]);     /* the entries moved */
	lp_ranges_clear(t->hot[1]);
	t->finished = true;
	return 0;
}

/* The entry lp_symtab_find (sized false) or lp_symtab_find_sized gives
 * for addr, or NULL, and in [*lo, *hi) the addresses around it given the
 * same answer.
 *
 * Binary search for the last entry starting at or before addr, then the
 * chain of enclosing entries up from it: the first one still open at
 * addr is found.  Every address up to the next entry's start walks the
 * same chain, and is given the same entry from the end of those before
 * it in the chain (closed at addr) to the end of the one found.  Sized,
 * a label found (a sizeless entry, not late) gives way to the first
 * sized, not late, entry up from it that contains addr, the function the
 * label is in: the range narrows to that one's end, or (none found) to
 * past the ends of those that do not contain addr. */
static const struct lp_sym *find_ent(const struct lp_symtab *t, uint64_t addr, bool sized,
				     uint64_t *lo, uint64_t *hi)
{
	size_t l = 0, h = t->nr;        /* first entry with start > addr */

	while (l < h) {
		size_t mid = l + (h - l) / 2;
		if (t->ents[mid].s.start <= addr)
			l = mid + 1;
		else
			h = mid;
	}
	*lo = l ? t->ents[l - 1].s.start : 0;
	*hi = l < t->nr ? t->ents[l].s.start : UINT64_MAX;
	const struct sym_ent *e = NULL;
	for (int32_t i = (int32_t)l - 1; i >= 0 && !e; i = t->ents[i].up)
		if (addr < t->ents[i].s.end)
			e = &t->ents[i];
		else
			*lo = max64(*lo, t->ents[i].s.end);
	if (!e)
		return NULL;
	*hi = min64(*hi, e->s.end);
	if (e->hole)
		return NULL;
	if (!sized || e->sized || e->late)
		return &e->s;
	for (int32_t j = e->up; j >= 0; j = t->ents[j].up) {
		const struct sym_ent *u = &t->ents[j];
		if (!u->sized || u->late)
			continue;
		if (addr < u->s.end) {
			*hi = min64(*hi, u->s.end);
			return &u->s;
		}
		*lo = max64(*lo, u->s.end);
	}
	return &e->s;
}

const struct lp_sym *lp_symtab_find_span(const struct lp_symtab *t, uint64_t addr, bool sized,
				       uint64_t *lo, uint64_t *hi)
{
	struct lp_ranges *hot = t ? t->hot[sized] : NULL;
	const struct lp_sym *s;
	uint64_t v;

	*lo = *hi = addr;
	if (!t || !t->finished)
		return NULL;
	if (lp_ranges_find(hot, addr, &v, lo, hi))
		return (const struct lp_sym *)(uintptr_t)v;
	s = t->imp ? lp_symimp_find(t, addr, sized, lo, hi) : find_ent(t, addr, sized, lo, hi);
	lp_ranges_add(hot, *lo, *hi, (uint64_t)(uintptr_t)s);
	return s;
}

const struct lp_sym *lp_symtab_find(const struct lp_symtab *t, uint64_t addr)
{
	uint64_t lo, hi;
	return lp_symtab_find_span(t, addr, false, &lo, &hi);
}

const struct lp_sym *lp_symtab_find_sized(const struct lp_symtab *t, uint64_t addr)
{
	uint64_t lo, hi;
	return lp_symtab_find_span(t, addr, true, &lo, &hi);
}

size_t lp_symtab_count(const struct lp_symtab *t)
{
	return t ? t->nr : 0;
}

const struct lp_sym *lp_symtab_at(const struct lp_symtab *t, size_t i)
{
	if (!t || !t->finished || i >= t->nr)
		return NULL;
	return t->imp ? lp_symimp_at(t, i) : &t->ents[i].s;
}

bool lp_symtab_rec(const struct lp_symtab *t, size_t i, struct lp_symtab_rec *r)
{
	if (!t || !t->finished || i >= t->nr)
		return false;
	if (t->imp)
		return lp_symimp_rec(t, i, r);
	const struct sym_ent *e = &t->ents[i];
	*r = (struct lp_symtab_rec){
		.start = e->s.start, .end = e->s.end, .up = e->up, .tag = e->tag, .prio = e->prio,
		.flags = (uint8_t)((e->sized ? LP_SYMREC_SIZED : 0) | (e->late ? LP_SYMREC_LATE : 0) |
				   (e->hole ? LP_SYMREC_HOLE : 0)),
	};
	return true;
}

struct lp_symtab *lp_symtab_import(const struct lp_symtab_rec *recs, size_t n,
				   const char *names, size_t names_len, size_t nr_tags,
				   const struct lp_symsrc *src)
{
	struct lp_symtab *t = lp_symtab_new();
	int err = -ENOMEM;

	if (!t || !(t->imp = lp_symimp_new(recs, n, names, names_len, nr_tags, src, &err))) {
		lp_symtab_free(t);
		errno = -err;
		return NULL;
	}
	t->nr = n;
	t->finished = true;
	return t;
}

uint16_t lp_symtab_tag(const struct lp_symtab *t, const struct lp_sym *s)
{
	(void)t;
	return ((const struct sym_ent *)(const void *)s)->tag;
}
