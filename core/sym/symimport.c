/*
 * symimport.c - symbol tables made from records (lp_symtab_import: the
 * kallsyms and object caches' tables), looked up without a copy of them.
 *
 * Copying the kernel's 122,000 records into entries took 3.8 MiB (and a
 * twentieth of a folded run's time, zeroing and filling it) for the few
 * hundred symbols a recording names; reading them where they lie, in the
 * cache file's mapping, still brought most of its pages back, as the
 * kernel maps the 64 KiB around
 * each page a lookup touches (fault-around).  So every record is checked
 * once, at import, and the start of every BLOCK-th one kept; a lookup
 * binary searches those starts, then one block of records, which it
 * reads from the file with pread (struct lp_symsrc) the first time and
 * keeps; a symbol found is made an entry, its name read and copied, the
 * first time too (struct symimp.made), so that the lp_sym pointers
 * handed out stay put.  Without a file the records and names are read
 * where they lie (the fuzz target, the tests).
 *
 * A block read again is checked again (the cache file is never written
 * in place, but never trust a file): one that does not hold what the
 * import checked is unreadable, and lookups in it find nothing, which a
 * warning says once per table (never a silent unnamed frame).  Lookups
 * change the table's state (blocks read, entries made) behind its const
 * pointer: one thread at a time, as for every lookup of core/sym.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "luaprof/luaprof.h"
#include "sym/symtab_int.h"
#include "util/chunks.h"
#include "util/htab.h"

#define BLOCK 32                /* records per block: 1 KiB */
#define ENT_CHUNK 4096          /* bytes of entries per allocation */
#define NAME_CHUNK 4096         /* bytes of names per allocation */
#define NAME_READ 128           /* bytes a name's first read asks for */
#define MAX_ENTS ((size_t)INT32_MAX)
#define CHECK_WINDOW 2048       /* records an import checks per read: 64 KiB */

struct symimp {
	const struct lp_symtab_rec *recs;       /* where they lie, or NULL: src */
	const char *names;
	size_t names_len, nr_tags;
	struct lp_symsrc src;
	uint64_t *firsts;                       /* every BLOCK-th record's start */
	const struct lp_symtab_rec **blocks;    /* src: the blocks read, NULL: not yet */
	bool *bad;                              /* src: the blocks that can't be read */
	struct lp_htab *made;                   /* record index -> its struct sym_ent */
	struct lp_chunk *ents, *strs;           /* the entries made, their names */
	bool warned;                            /* a read again failed, and was said */
};

void lp_symimp_free(struct symimp *m)
{
	if (!m)
		return;
	lp_htab_free(m->made);
	lp_chunks_free(m->ents);
	lp_chunks_free(m->strs);
	free(m->firsts);
	free(m->blocks);
	free(m->bad);
	free(m);
}

/* Whether r, record i, is one the import takes: name and tag in range,
 * up an earlier record, known flags; prev the record before it or NULL. */
static bool rec_ok(const struct symimp *m, const struct lp_symtab_rec *r,
		   const struct lp_symtab_rec *prev, size_t i)
{
	return r->name < m->names_len && r->tag < m->nr_tags && r->up >= -1 &&
	       r->up < (int64_t)i &&
	       !(r->flags & ~(LP_SYMREC_SIZED | LP_SYMREC_LATE | LP_SYMREC_HOLE)) &&
	       (!prev || prev->start <= r->start);
}

/* Says once per table that what lookups read again failed. */
static void unreadable(struct symimp *m)
{
	if (m->warned)
		return;
	m->warned = true;
	lp_log(LP_WARN, "sym: a symbol cache file changed or could not be read during the run "
	       "(~/.cache/luaprof): frames in what it held are left unnamed; run again to "
	       "rebuild it");
}

/* Reads block b from the file into m->blocks[b], checked; 0 or -1. */
static int read_block(const struct lp_symtab *t, size_t b)
{
	struct symimp *m = t->imp;
	size_t first = b * BLOCK, n = t->nr - first < BLOCK ? t->nr - first : BLOCK;
	size_t bytes = n * sizeof(struct lp_symtab_rec);
	struct lp_symtab_rec *v = (struct lp_symtab_rec *)(void *)
		lp_chunks_alloc(&m->ents, bytes, ENT_CHUNK);
	off_t at = (off_t)(m->src.recs_at + first * sizeof(struct lp_symtab_rec));

	if (!v || pread(m->src.fd, v, bytes, at) != (ssize_t)bytes || v[0].start != m->firsts[b])
		goto bad;
	for (size_t k = 0; k < n; k++)
		if (!rec_ok(m, &v[k], k ? &v[k - 1] : NULL, first + k))
			goto bad;
	m->blocks[b] = v;
	return 0;
bad:
	m->bad[b] = true;       /* the chunk's bytes stay, unused, until the end */
	unreadable(m);
	return -1;
}

/* Record i; NULL when it can't be read. */
static const struct lp_symtab_rec *rec(const struct lp_symtab *t, size_t i)
{
	struct symimp *m = t->imp;
	size_t b = i / BLOCK;

	if (m->recs)
		return &m->recs[i];
	if (!m->blocks[b] && (m->bad[b] || read_block(t, b)))
		return NULL;
	return &m->blocks[b][i % BLOCK];
}

/* The name at offset off of the names, copied from the file; NULL when it
 * can't be read whole (or out of memory).  The first read, of NAME_READ
 * bytes, holds most names (into the stack); a longer one is read again,
 * four times as much each time (into the heap). */
static const char *read_name(struct symimp *m, uint32_t off)
{
	size_t max = m->names_len - off, want = NAME_READ;
	const char *out = NULL;
	char first[NAME_READ];

	for (;;) {
		if (want > max)
			want = max;
		char *buf = want <= sizeof first ? first : malloc(want);
		ssize_t got = buf ? pread(m->src.fd, buf, want, (off_t)(m->src.names_at + off)) : -1;
		const char *nul = got > 0 ? memchr(buf, '\0', (size_t)got) : NULL;
		if (nul) {
			size_t len = (size_t)(nul - buf) + 1;
			char *s = lp_chunks_alloc(&m->strs, len, NAME_CHUNK);
			if (s)
				out = memcpy(s, buf, len);
		}
		if (buf != first)
			free(buf);
		if (nul || got != (ssize_t)want || want == max) {
			if (!out)
				unreadable(m);
			return out;
		}
		want *= 4;
	}
}

/* Record i as an entry, made the first time; NULL when it can't be. */
static const struct lp_sym *made(const struct lp_symtab *t, size_t i)
{
	struct symimp *m = t->imp;
	struct lp_htab_ent *he = lp_htab_find_int(m->made, i);

	if (he)
		return &((const struct sym_ent *)(uintptr_t)he->val)->s;
	const struct lp_symtab_rec *r = rec(t, i);
	const char *name = !r ? NULL : m->recs ? m->names + r->name : read_name(m, r->name);
	struct sym_ent *e = name ? (struct sym_ent *)(void *)
		lp_chunks_alloc(&m->ents, sizeof *e, ENT_CHUNK) : NULL;
	if (!e || !(he = lp_htab_add_hashed(m->made, i, lp_htab_int_hash(i), NULL)))
		return NULL;
	*e = (struct sym_ent){
		.s = { .start = r->start, .end = r->end, .name = name },
		.up = r->up, .tag = r->tag, .prio = r->prio,
		.sized = !!(r->flags & LP_SYMREC_SIZED), .late = !!(r->flags & LP_SYMREC_LATE),
		.hole = !!(r->flags & LP_SYMREC_HOLE),
	};
	he->val = (uintptr_t)e;
	return &e->s;
}

/* The start of record i (i < t->nr): a block's first is kept, any other
 * is read; false when it can't be. */
static bool start_of(const struct lp_symtab *t, size_t i, uint64_t *start)
{
	const struct lp_symtab_rec *r = i % BLOCK ? rec(t, i) : NULL;

	if (!(i % BLOCK))
		*start = t->imp->firsts[i / BLOCK];
	else if (r)
		*start = r->start;
	return !(i % BLOCK) || r;
}

/* The index of the record containing addr (lp_symtab_find's), -1 for
 * none, or -2 when a record can't be read; [*lo, *hi) as symtab.c's
 * find_ent has it: the addresses given the same answer (*hi the end of
 * the record found). */
static int64_t find_index(const struct lp_symtab *t, uint64_t addr, uint64_t *lo, uint64_t *hi)
{
	const struct symimp *m = t->imp;
	const struct lp_symtab_rec *r = NULL;
	size_t blo = 0, bhi = (t->nr + BLOCK - 1) / BLOCK;

	while (blo < bhi) {             /* the blocks starting at or before addr */
		size_t mid = blo + (bhi - blo) / 2;
		if (m->firsts[mid] <= addr)
			blo = mid + 1;
		else
			bhi = mid;
	}
	/* the first record past addr is in the last of them, or the next's first */
	size_t lo_i = blo ? (blo - 1) * BLOCK : 0, hi_i = blo * BLOCK < t->nr ? blo * BLOCK : t->nr;
	while (lo_i < hi_i) {
		size_t mid = lo_i + (hi_i - lo_i) / 2;
		if (!(r = rec(t, mid)))
			return -2;
		if (r->start <= addr)
			lo_i = mid + 1;
		else
			hi_i = mid;
	}
	*lo = 0;
	*hi = UINT64_MAX;
	if ((lo_i && !start_of(t, lo_i - 1, lo)) || (lo_i < t->nr && !start_of(t, lo_i, hi)))
		return -2;
	for (int64_t i = (int64_t)lo_i - 1; i >= 0; i = r->up) {
		if (!(r = rec(t, (size_t)i)))
			return -2;
		if (addr < r->end) {
			*hi = min64(*hi, r->end);
			return r->flags & LP_SYMREC_HOLE ? -1 : i;
		}
		*lo = max64(*lo, r->end);
	}
	return -1;
}

#define SIZED_KIND (LP_SYMREC_SIZED | LP_SYMREC_LATE)

const struct lp_sym *lp_symimp_find(const struct lp_symtab *t, uint64_t addr, bool sized,
				    uint64_t *lo, uint64_t *hi)
{
	int64_t i = find_index(t, addr, lo, hi);
	const struct lp_symtab_rec *r = i < 0 ? NULL : rec(t, (size_t)i);

	if (!r) {
		if (i != -1)
			*lo = *hi = addr;       /* unreadable: not to be kept */
		return NULL;
	}
	/* a label gives way to a sized symbol around it (lp_symtab_find_sized) */
	if (sized && !(r->flags & SIZED_KIND))
		for (int64_t j = r->up; j >= 0; j = r->up) {
			if (!(r = rec(t, (size_t)j))) {
				*lo = *hi = addr;
				return NULL;
			}
			if ((r->flags & SIZED_KIND) != LP_SYMREC_SIZED)
				continue;
			if (addr < r->end) {
				*hi = min64(*hi, r->end);
				i = j;
				break;
			}
			*lo = max64(*lo, r->end);
		}
	const struct lp_sym *s = made(t, (size_t)i);
	if (!s)
		*lo = *hi = addr;
	return s;
}

const struct lp_sym *lp_symimp_at(const struct lp_symtab *t, size_t i)
{
	return made(t, i);
}

bool lp_symimp_rec(const struct lp_symtab *t, size_t i, struct lp_symtab_rec *out)
{
	const struct lp_symtab_rec *r = rec(t, i);

	if (!r)
		return false;
	*out = *r;
	out->name = out->zero = 0;
	return true;
}

/* Checks records [first, first + k), at v, prev the one before them
 * (NULL before the first), and notes the starts of the blocks among
 * them; 0 or -EINVAL. */
static int check_run(struct symimp *m, const struct lp_symtab_rec *v, size_t first, size_t k,
		     const struct lp_symtab_rec *prev)
{
	for (size_t j = 0; j < k; j++) {
		if (!rec_ok(m, &v[j], j ? &v[j - 1] : prev, first + j))
			return -EINVAL;
		if ((first + j) % BLOCK == 0)
			m->firsts[(first + j) / BLOCK] = v[j].start;
	}
	return 0;
}

/* Checks the n records: where they lie, or, from a file, read from it
 * CHECK_WINDOW at a time.  Checked through the file's mapping, every page
 * of them stayed in the process until the mapping was released (1.2 MiB
 * of libLLVM's table, late in a make recording, made the run's peak).
 * 0, -EINVAL (one is wrong, or the file does not hold them all) or
 * -ENOMEM. */
static int check_recs(struct symimp *m, const struct lp_symtab_rec *recs, size_t n)
{
	if (m->src.fd < 0)
		return check_run(m, recs, 0, n, NULL);
	struct lp_symtab_rec *buf = malloc(CHECK_WINDOW * sizeof *buf), last;
	int err = buf ? 0 : -ENOMEM;
	for (size_t i = 0, k; !err && i < n; i += k) {
		k = n - i < CHECK_WINDOW ? n - i : CHECK_WINDOW;
		size_t bytes = k * sizeof *buf;
		off_t at = (off_t)(m->src.recs_at + i * sizeof *buf);
		if (pread(m->src.fd, buf, bytes, at) != (ssize_t)bytes)
			err = -EINVAL;
		else if (!(err = check_run(m, buf, i, k, i ? &last : NULL)))
			last = buf[k - 1];
	}
	free(buf);
	return err;
}

struct symimp *lp_symimp_new(const struct lp_symtab_rec *recs, size_t n, const char *names,
			     size_t names_len, size_t nr_tags, const struct lp_symsrc *src, int *err)
{
	struct symimp *m = calloc(1, sizeof *m);
	size_t nb = (n + BLOCK - 1) / BLOCK;
	bool from_file = src && src->fd >= 0;

	*err = !m ? -ENOMEM : n > MAX_ENTS ? -EINVAL : 0;
	if (!*err) {
		*m = (struct symimp){ .recs = from_file ? NULL : recs, .names = names,
				      .names_len = names_len, .nr_tags = nr_tags,
				      .src = from_file ? *src : (struct lp_symsrc){ .fd = -1 } };
		m->made = lp_htab_new(NULL, NULL, NULL);
		m->firsts = malloc((nb ? nb : 1) * sizeof *m->firsts);
		if (from_file) {
			m->blocks = calloc(nb ? nb : 1, sizeof *m->blocks);
			m->bad = calloc(nb ? nb : 1, sizeof *m->bad);
		}
		if (!m->made || !m->firsts || (from_file && (!m->blocks || !m->bad)))
			*err = -ENOMEM;
	}
	if (!*err && n && (!names_len || names[names_len - 1]))
		*err = -EINVAL;
	if (!*err)
		*err = check_recs(m, recs, n);
	if (*err) {
		lp_symimp_free(m);
		return NULL;
	}
	if (from_file)
		m->names = NULL;        /* read from the file from now on */
	return m;
}
