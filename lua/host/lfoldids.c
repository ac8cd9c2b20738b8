/*
 * lfoldids.c - the names folded strings are made of, as numbers, for the
 * aggregators that count stacks in C (luaprof.stacks): a run-wide table
 * of names (ids 0, 1, ... in the order first seen) and the caches that
 * make a frame seen before cost no resolving, demangling or hashing of
 * its text (lfold.h: lp_foldids_*).
 *
 * A frame's names are cached twice, direct-mapped, newer entries
 * replacing older ones in their slot:
 *  - by its process's maps and its address (proc, gen, ip, how), as the
 *    s.folded cache keys them: the first look, no map lookup;
 *  - by what its names depend on alone: a kernel frame by its address
 *    (and the kernel's maps, which KSYMBOL records change), a
 *    user frame in a file by the file (path, device, inode) and the
 *    offset in it, so that the processes of one program (hundreds of
 *    compilers in a build, each mapped elsewhere by ASLR) share them.
 *    A user frame in no map is unnamed in any process: one key.  Frames
 *    of anonymous memory (JIT code, named by each process's perf map)
 *    have no such key.
 * Behind them, a frame of a file's that neither holds is looked for by
 * its range: the offsets of the file (a symbol's, lp_frame.same_lo and
 * same_hi) that its names were found for, kept per file and kind of frame
 * (ranges.h).  A profile's leaves land anywhere in a hot function, so
 * most of them are at offsets never seen before: on a build's recording,
 * 57,000 of 249,000 frames missed both caches, but its frames name only
 * 4,600 symbols.  Ranges are kept of frames with one name only: an
 * unwound stack's frames add the functions inlined at their address.
 * A name is found by its text's pointer and its annotation's first
 * (resolver and source-line strings stay put and unchanged for the run),
 * so its text is built, demangled and hashed once per pointer.
 */
#include <stdlib.h>
#include <string.h>

#include "lfold.h"
#include "luaprof/buf.h"
#include "luaprof/hmap.h"
#include "luaprof/luaprof.h"
#include "luaprof/ranges.h"
#include "luaprof/sym.h"

#define L1_BITS 11
#define L2_BITS 11
#define SLOT_IDS 6

struct l1_slot {
	const struct lp_proc *proc;     /* NULL: empty */
	uint64_t ip;
	uint32_t gen;
	uint16_t how, n;
	uint32_t ids[SLOT_IDS];
};

struct l2_slot {
	const char *path;               /* NULL: a kernel frame (off: its address,
					 * dev: the kernel maps' generation) or a
					 * user frame in no map */
	uint64_t dev, ino, off;
	uint16_t how, n;                /* n 0: empty */
	uint32_t ids[SLOT_IDS];
};

/* A file's ranges for frames of one kind: the key of lp_foldids.files. */
struct file_key {
	const char *path;
	uint64_t dev, ino, how;
};

struct lp_foldids {
	struct lp_hmap *names;          /* text -> id */
	struct lp_hmap *byptr;          /* (name pointer, annotation pointer) -> id */
	struct lp_hmap *files;          /* file_key -> index in ranges */
	struct lp_ranges **ranges;      /* a file's offsets -> the id of their name */
	size_t nr_ranges, cap_ranges;
	struct file_key last_key;       /* the file of the last ranges used */
	int64_t last_at;                /* its entry in files */
	struct lp_ranges *last;
	struct l1_slot l1[1u << L1_BITS];
	struct l2_slot l2[1u << L2_BITS];
	struct lp_buf text;
};

static struct lp_foldids *ids_of(struct lp_run *run)
{
	struct lp_foldids *c = run->stack.foldids;
	if (c)
		return c;
	if (!(c = calloc(1, sizeof *c)) || !(c->names = lp_hmap_new()) ||
	    !(c->byptr = lp_hmap_new()) || !(c->files = lp_hmap_new())) {
		if (c) {
			lp_hmap_free(c->names);
			lp_hmap_free(c->byptr);
			free(c);
		}
		return NULL;
	}
	return run->stack.foldids = c;
}

static uint64_t mix(uint64_t h)
{
	h ^= h >> 31;
	h *= 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

static struct l1_slot *l1_slot(struct lp_foldids *c, const struct lp_fold_frame *k)
{
	uint64_t h = mix(k->ip ^ (uint64_t)(uintptr_t)k->proc * 0xff51afd7ed558ccdull ^
			 (uint64_t)k->gen << 40 ^ (uint64_t)k->how << 56);
	return &c->l1[h >> (64 - L1_BITS)];
}

/* Whether frames in map m are named by the file alone: a file's map,
 * not anonymous memory a perf map names (as resolve.c's jit_map). */
static bool file_map(const struct lp_map *m)
{
	const char *p = m->path;
	return p && p[0] == '/' && strcmp(p, "//anon") && strncmp(p, "/dev/zero", 9) &&
	       strncmp(p, "/anon_hugepage", 14);
}

/* The second key of frame k: false when it has none.  *map gets the
 * user frame's map (else NULL). */
static bool l2_key(const struct lp_fold_frame *k, struct l2_slot *key, const struct lp_map **map)
{
	*map = NULL;
	if (k->how & LP_FOLD_HOW_KERNEL) {     /* dev: the kernel's maps */
		*key = (struct l2_slot){ NULL, k->kgen, 0, k->ip, (uint16_t)k->how, 0, { 0 } };
		return true;
	}
	if (!k->proc)
		return false;
	const struct lp_map *m = *map = lp_proc_find_map(k->proc, k->ip);
	if (!m) {               /* in no map: unnamed, whatever the process */
		*key = (struct l2_slot){ NULL, 0, 0, 0, (uint16_t)k->how, 0, { 0 } };
		return true;
	}
	if (!file_map(m))
		return false;
	*key = (struct l2_slot){ m->path, (uint64_t)m->maj << 32 | m->min, m->ino,
				 k->ip - m->start + m->pgoff, (uint16_t)k->how, 0, { 0 } };
	return true;
}

static struct l2_slot *l2_slot(struct lp_foldids *c, const struct l2_slot *key)
{
	uint64_t h = mix((uint64_t)(uintptr_t)key->path * 0xff51afd7ed558ccdull ^ key->off ^
			 key->ino * 0xc4ceb9fe1a85ec53ull ^ key->dev ^ (uint64_t)key->how << 56);
	return &c->l2[h >> (64 - L2_BITS)];
}

static bool l2_same(const struct l2_slot *a, const struct l2_slot *b)
{
	return a->n && a->path == b->path && a->off == b->off && a->ino == b->ino &&
	       a->dev == b->dev && a->how == b->how;
}

/* A new set of ranges for lp_foldids.files' value (see file_ranges),
 * of kernel maps gen; 0 when out of memory. */
static uint64_t new_ranges(struct lp_foldids *c, uint64_t gen)
{
	struct lp_ranges *r = NULL;
	if (c->nr_ranges == c->cap_ranges) {
		size_t cap = c->cap_ranges ? 2 * c->cap_ranges : 16;
		struct lp_ranges **v = realloc(c->ranges, cap * sizeof *v);
		if (v) {
			c->ranges = v;
			c->cap_ranges = cap;
		}
	}
	if (c->nr_ranges < c->cap_ranges && (r = lp_ranges_new()))
		c->ranges[c->nr_ranges++] = r;
	return r ? c->nr_ranges | gen << 32 : 0;
}

/* The ranges of the file and kind of frame of key (a file's frame),
 * made when absent and create; NULL when none (or out of memory).  The
 * kernel's, one set per kind of frame as a file's, are of addresses
 * under the kernel maps of one generation (key->dev): when a KSYMBOL
 * record changed the maps, the set is emptied and serves the new ones. */
static struct lp_ranges *file_ranges(struct lp_foldids *c, const struct l2_slot *key, bool create)
{
	/* a first frame and a return address are both named at their
	 * address (frames of unwound stacks have no ranges) */
	struct file_key fk = { key->path, key->path ? key->dev : 0, key->ino,
			       key->how & ~(unsigned)(LP_FOLD_HOW_FIRST | LP_FOLD_HOW_RET) };
	int64_t i = c->last_at;
	if (!c->last || memcmp(&fk, &c->last_key, sizeof fk)) {
		bool added = false;
		i = lp_hmap_find(c->files, &fk, sizeof fk, lp_hash(&fk, sizeof fk), create, &added);
		if (i < 0)
			return NULL;
		if (added)
			*lp_hmap_value(c->files, (size_t)i) = new_ranges(c, key->dev);
	}
	/* the value: the set's index + 1 (0: none, out of memory), and the
	 * kernel maps' generation its ranges are of above it */
	uint64_t *v = lp_hmap_value(c->files, (size_t)i);
	if (!(*v & UINT32_MAX))
		return NULL;
	struct lp_ranges *r = c->ranges[(*v & UINT32_MAX) - 1];
	if (!key->path && *v >> 32 != key->dev) {
		lp_ranges_clear(r);
		*v = (*v & UINT32_MAX) | key->dev << 32;
	}
	c->last_key = fk;
	c->last_at = i;
	return c->last = r;
}

/* Whether frames of key have ranges kept: a kernel frame, or a file's
 * frame, named once (not of an unwound stack, with its inlined
 * functions): the kernel's ranges are of addresses, key->off's. */
static bool ranged(const struct l2_slot *key)
{
	return (key->path || (key->how & LP_FOLD_HOW_KERNEL)) && !(key->how & LP_FOLD_HOW_UNWOUND);
}

/* Caches the n ids of frame k (keys key, l2's, and k itself, l1's). */
static void keep(struct lp_foldids *c, const struct lp_fold_frame *k, const struct l2_slot *key,
		 const uint32_t *ids, size_t n)
{
	if (k->proc) {
		struct l1_slot *w = l1_slot(c, k);
		*w = (struct l1_slot){ k->proc, k->ip, k->gen, (uint16_t)k->how, (uint16_t)n, { 0 } };
		memcpy(w->ids, ids, n * sizeof *ids);
	}
	if (key) {
		struct l2_slot *t = l2_slot(c, key);
		*t = *key;
		t->n = (uint16_t)n;
		memcpy(t->ids, ids, n * sizeof *ids);
	}
}

size_t lp_foldids_get(struct lp_run *run, const struct lp_fold_frame *k, uint32_t *ids)
{
	struct lp_foldids *c = ids_of(run);
	if (!c)
		return 0;
	const struct l1_slot *s = l1_slot(c, k);
	if (k->proc && s->proc == k->proc && s->ip == k->ip && s->gen == k->gen && s->how == k->how) {
		memcpy(ids, s->ids, s->n * sizeof *ids);
		return s->n;
	}
	struct l2_slot key;
	const struct lp_map *m;
	if (!l2_key(k, &key, &m))
		return 0;
	const struct l2_slot *t = l2_slot(c, &key);
	if (l2_same(t, &key)) {
		if (k->proc)    /* the first key too, for next time */
			keep(c, k, NULL, t->ids, t->n);
		memcpy(ids, t->ids, t->n * sizeof *ids);
		return t->n;
	}
	uint64_t id, lo, hi;
	struct lp_ranges *r = ranged(&key) ? file_ranges(c, &key, false) : NULL;
	if (!r || !lp_ranges_find(r, key.off, &id, &lo, &hi))
		return 0;
	ids[0] = (uint32_t)id;
	keep(c, k, &key, ids, 1);
	return 1;
}

void lp_foldids_put(struct lp_run *run, const struct lp_fold_frame *k, const uint32_t *ids,
		    size_t n, uint64_t same_lo, uint64_t same_hi)
{
	struct lp_foldids *c = run->stack.foldids;
	if (!c || !n || n > SLOT_IDS)
		return;
	struct l2_slot key;
	const struct lp_map *m;
	bool keyed = l2_key(k, &key, &m);
	keep(c, k, keyed ? &key : NULL, ids, n);
	if (!keyed || n != 1 || !ranged(&key) || same_lo >= same_hi)
		return;
	if (!m)                 /* the kernel's: addresses */
		lp_ranges_add(file_ranges(c, &key, true), same_lo, same_hi, ids[0]);
	else if (same_lo >= m->start && same_hi - m->start <= UINT64_MAX - m->pgoff)
		lp_ranges_add(file_ranges(c, &key, true), same_lo - m->start + m->pgoff,
			      same_hi - m->start + m->pgoff, ids[0]);  /* offsets in the file */
}

/* Appends s with the characters the folded format reserves replaced, as
 * lstack.c's add_name: ';' by ':', a newline (and in a command name a
 * space) by '_'. */
static void add_name(struct lp_buf *b, const char *s, bool comm)
{
	const char *reserved = comm ? ";\n " : ";\n";
	for (;;) {
		size_t n = strcspn(s, reserved);
		lp_buf_add(b, s, n);
		if (!s[n])
			return;
		lp_buf_add(b, s[n] == ';' ? ":" : "_", 1);
		s += n + 1;
	}
}

/* The id of the text in c->text. */
static int64_t intern(struct lp_foldids *c)
{
	struct lp_buf *b = &c->text;
	if (b->err) {
		b->err = 0;
		return -1;
	}
	const char *p = b->p ? b->p : "";
	int64_t id = lp_hmap_find(c->names, p, b->len, lp_hash(p, b->len), true, NULL);
	return id < 0 ? -1 : id;
}

int64_t lp_foldids_name(struct lp_run *run, const struct lp_fold_name *n)
{
	struct lp_foldids *c = ids_of(run);
	if (!c)
		return -1;
	const void *key[2] = { n->key, n->suffix };
	bool added = false;
	int64_t e = -1;
	if (n->key) {
		e = lp_hmap_find(c->byptr, key, sizeof key, lp_hash(key, sizeof key), true, &added);
		if (e < 0)
			return -1;
		if (!added)
			return (int64_t)*lp_hmap_value(c->byptr, (size_t)e);
	}
	char *brief = n->mangled ? lp_demangle_name(n->mangled, false) : NULL;
	c->text.len = 0;
	add_name(&c->text, brief ? brief : n->name, false);
	lp_buf_puts(&c->text, n->suffix);
	free(brief);
	int64_t id = intern(c);
	if (e >= 0)
		*lp_hmap_value(c->byptr, (size_t)e) = id < 0 ? 0 : (uint64_t)id;
	/* a failed intern leaves 0 cached: out of memory ends the run */
	return id;
}

int64_t lp_foldids_comm(struct lp_run *run, const char *comm)
{
	struct lp_foldids *c = ids_of(run);
	if (!c)
		return -1;
	c->text.len = 0;
	add_name(&c->text, comm, true);
	return intern(c);
}

int64_t lp_foldids_text_id(struct lp_run *run, const char *text, size_t len)
{
	struct lp_foldids *c = ids_of(run);
	if (!c)
		return -1;
	int64_t id = lp_hmap_find(c->names, text, len, lp_hash(text, len), true, NULL);
	return id < 0 ? -1 : id;
}

const char *lp_foldids_text(struct lp_run *run, uint32_t id, size_t *len)
{
	struct lp_foldids *c = run->stack.foldids;
	if (!c || id >= lp_hmap_count(c->names))
		return NULL;
	const char *p = lp_hmap_key(c->names, id, len);
	return p ? p : "";
}

void lp_foldids_free(struct lp_run *run)
{
	struct lp_foldids *c = run->stack.foldids;
	if (!c)
		return;
	lp_hmap_free(c->names);
	lp_hmap_free(c->byptr);
	lp_hmap_free(c->files);
	for (size_t i = 0; i < c->nr_ranges; i++)
		lp_ranges_free(c->ranges[i]);
	free(c->ranges);
	lp_buf_free(&c->text);
	free(c);
	run->stack.foldids = NULL;
}
