/*
 * rows.c - the engine's report rows (include/luaprof/rows.h): samples
 * grouped by perf report's sort keys, self and children shares.
 *
 * A frame becomes a row in two steps.  Its key (the pointers and numbers
 * its row's text is made of: struct fkey) is looked up in `memo`; only a
 * key seen for the first time has its row's text id built (the keys'
 * text joined by NULs, as top.lua built it, with the symbol's object and
 * start and, for an inlined function, the function it is inlined in),
 * which is looked up in `ids`: one id, one row, except under the single
 * key sym, where perf's red-black tree of entries decides (see `tree`).
 * So a sample costs a hash of a few words per frame, and no string is
 * built or compared once its frames were seen.
 *
 * The children walk marks rows and ids with the sample's number instead
 * of keeping a set per sample.
 */
#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "luaprof/hmap.h"
#include "luaprof/rows.h"
#include "luaprof/sym.h"
#include "util/htab.h"
#include "util/strtab.h"

#define NONE UINT32_MAX

/* perf's entry of a row, what its tree compares (sort__sym_cmp). */
struct entry {
	bool named, inlined;
	int64_t ip;             /* unnamed: the address */
	const char *dso;        /* the object's shown name (interned), NULL: none */
	const char *name;       /* named: perf's short name (interned) */
	int64_t start;
};

struct node {
	struct entry e;         /* here, not only in the memo: a walk reads it */
	uint32_t parent, left, right, row;
	bool red;
};

/* What a frame's row is made of: equal keys, equal rows' text. */
struct fkey {
	const char *sym, *mangled, *dso, *file, *within;
	uint64_t addr;          /* unnamed: the address shown; named: the start */
	uint64_t inl_start;
	uint32_t line;
	uint8_t level, named, has_start, inlined;
	int32_t pid, tid;       /* 0 unless a key wants them */
	char comm[16];          /* "" unless a key wants it */
};

struct memo {
	uint32_t id;
	struct entry e;
};

/* The front of `memo`: the frame keys met last, direct-mapped by hash,
 * found again without the map's probe. */
#define FRONT 2048
struct front {
	struct fkey k;
	uint32_t memo;          /* NONE: empty */
};

struct idrec {
	uint32_t row;           /* NONE: not yet */
	uint32_t count;         /* the tree's size when row was found */
	uint64_t seen;          /* the sample that last met it */
};

struct rowrec {
	uint64_t self, children, samples;
	uint64_t seen;
	uint32_t place;
	char *order;            /* lp_rows_sort's tie-breaking text, when made */
	size_t order_len;
};

struct lp_rows {
	struct lp_rows_spec spec;
	bool with[LP_ROWS_NR_KEYS];
	bool perf_tree;                 /* sym alone: perf's tree orders ties */
	bool sample_keys;               /* a key reads the sample (comm, pid, ...) */
	struct lp_hmap *memo;           /* struct fkey -> memos[] */
	struct front *front;            /* FRONT slots */
	struct memo *memos;
	size_t cap_memos;
	struct lp_hmap *ids;            /* text id -> idrecs[] */
	struct idrec *idrecs;
	size_t cap_ids;
	struct rowrec *rows;
	size_t nr_rows, cap_rows;
	const char **cells;             /* nr_keys per row */
	size_t cap_cells;
	struct node *nodes;
	size_t nr_nodes, cap_nodes;
	uint32_t root;
	bool placed;
	struct lp_strtab *strs;         /* every string the rows keep */
	struct lp_htab *shorts;         /* name pointer -> perf's short name */
	struct lp_htab *shorts_m;       /* mangled pointer -> perf's short name */
	struct lp_htab *dsos;           /* path pointer -> shown name */
	struct lp_htab *inl_names;      /* short name -> "NAME (inlined)" */
	struct lp_htab *comms;          /* tid -> its last command */
	char *buf;                      /* scratch: a text id, a cell */
	size_t cap_buf;
	uint64_t samples, total;
};

static bool spec_ok(const struct lp_rows_spec *s)
{
	bool seen[LP_ROWS_NR_KEYS] = { false };
	if (!s->nr_keys || s->nr_keys > LP_ROWS_MAX_KEYS || s->demangle > LP_ROWS_NONE)
		return false;
	for (unsigned i = 0; i < s->nr_keys; i++) {
		if (s->keys[i] >= LP_ROWS_NR_KEYS || seen[s->keys[i]])
			return false;
		seen[s->keys[i]] = true;
	}
	return true;
}

struct lp_rows *lp_rows_new(const struct lp_rows_spec *spec)
{
	if (!spec_ok(spec)) {
		errno = EINVAL;
		return NULL;
	}
	struct lp_rows *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->spec = *spec;
	for (unsigned i = 0; i < spec->nr_keys; i++)
		r->with[spec->keys[i]] = true;
	r->perf_tree = spec->nr_keys == 1 && r->with[LP_ROWS_SYM];
	r->sample_keys = r->with[LP_ROWS_COMM] || r->with[LP_ROWS_PID] || r->with[LP_ROWS_TID] ||
			 r->with[LP_ROWS_PROCESS];
	r->root = NONE;
	r->front = malloc(FRONT * sizeof *r->front);
	for (size_t i = 0; r->front && i < FRONT; i++)
		r->front[i].memo = NONE;
	r->memo = lp_hmap_new();
	r->ids = lp_hmap_new();
	r->strs = lp_strtab_new();
	r->shorts = lp_htab_new(NULL, NULL, NULL);
	r->shorts_m = lp_htab_new(NULL, NULL, NULL);
	r->dsos = lp_htab_new(NULL, NULL, NULL);
	r->inl_names = lp_htab_new(NULL, NULL, NULL);
	r->comms = lp_htab_new(NULL, NULL, NULL);
	if (!r->front || !r->memo || !r->ids || !r->strs || !r->shorts || !r->shorts_m || !r->dsos ||
	    !r->inl_names || !r->comms) {
		lp_rows_free(r);
		errno = ENOMEM;
		return NULL;
	}
	return r;
}

void lp_rows_free(struct lp_rows *r)
{
	if (!r)
		return;
	free(r->front);
	lp_hmap_free(r->memo);
	lp_hmap_free(r->ids);
	lp_strtab_free(r->strs);
	lp_htab_free(r->shorts);
	lp_htab_free(r->shorts_m);
	lp_htab_free(r->dsos);
	lp_htab_free(r->inl_names);
	lp_htab_free(r->comms);
	free(r->memos);
	free(r->idrecs);
	for (size_t i = 0; i < r->nr_rows; i++)
		free(r->rows[i].order);
	free(r->rows);
	free(r->cells);
	free(r->nodes);
	free(r->buf);
	free(r);
}

/* Room for n elements of size sz in *v (capacity *cap); false: ENOMEM. */
static bool grow(void **v, size_t *cap, size_t n, size_t sz)
{
	if (n <= *cap)
		return true;
	size_t c = *cap ? *cap * 2 : 64;
	while (c < n)
		c *= 2;
	void *p = realloc(*v, c * sz);
	if (!p)
		return false;
	*v = p;
	*cap = c;
	return true;
}

/* --- names ---------------------------------------------------------- */

/* The interned s, cached by the pointer p in t; NULL: ENOMEM. */
static const char *cached(struct lp_rows *r, struct lp_htab *t, const void *p,
			  const char *(*make)(struct lp_rows *, const void *))
{
	struct lp_htab_ent *e = lp_htab_find_int(t, (uintptr_t)p);
	if (e)
		return (const char *)(uintptr_t)e->val;
	const char *s = make(r, p);
	if (!s || !(e = lp_htab_add_hashed(t, (uintptr_t)p, lp_htab_int_hash((uintptr_t)p), NULL)))
		return NULL;
	e->val = (uintptr_t)s;
	return s;
}

static const char *intern(struct lp_rows *r, const void *p)
{
	return lp_strtab_intern(r->strs, p);
}

static const char *demangle_short(struct lp_rows *r, const void *p)
{
	char *d = lp_demangle_name(p, false);
	if (!d)
		return NULL;
	const char *s = lp_strtab_intern(r->strs, d);
	free(d);
	return s;
}

/* perf's short name of a function (perfnames.short_name): its mangled
 * name demangled without parameters, else sym; interned, so that equal
 * names are one pointer.  NULL: no name (or ENOMEM). */
static const char *short_name(struct lp_rows *r, const char *sym, const char *mangled)
{
	if (mangled) {
		struct lp_htab_ent *e = lp_htab_find_int(r->shorts_m, (uintptr_t)mangled);
		if (e)
			return e->val ? (const char *)(uintptr_t)e->val : short_name(r, sym, NULL);
		const char *s = demangle_short(r, mangled);
		if (!(e = lp_htab_add_hashed(r->shorts_m, (uintptr_t)mangled,
					     lp_htab_int_hash((uintptr_t)mangled), NULL)))
			return NULL;
		e->val = (uintptr_t)s;
		return s ? s : short_name(r, sym, NULL);
	}
	return sym ? cached(r, r->shorts, sym, intern) : NULL;
}

/* The name a row shows for a frame's function, as --demangle asks. */
static const char *name_of(struct lp_rows *r, const struct lp_rows_frame *f)
{
	if (!f->mangled || r->spec.demangle == LP_ROWS_FULL)
		return f->sym;
	if (r->spec.demangle == LP_ROWS_NONE)
		return f->mangled;
	return short_name(r, f->sym, f->mangled);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s && s[1] ? s + 1 : path;
}

/* An object's name as perf's dso column shows it: its base name, a perf
 * map (/tmp/perf-PID.map) as "[JIT] tid PID" (perfnames.dso_name). */
static const char *make_dso_name(struct lp_rows *r, const void *p)
{
	const char *path = p;
	if (!strncmp(path, "/tmp/perf-", 10)) {
		const char *d = path + 10;
		char c = d[d[0] == '-'];
		if (c >= '0' && c <= '9') {
			char b[48];
			snprintf(b, sizeof b, "[JIT] tid %lld", strtoll(d, NULL, 10));
			return lp_strtab_intern(r->strs, b);
		}
	}
	return lp_strtab_intern(r->strs, base_name(path));
}

static const char *dso_name(struct lp_rows *r, const char *path)
{
	return path ? cached(r, r->dsos, path, make_dso_name) : NULL;
}

/* --- text ids ------------------------------------------------------- */

/* A source of a row: a frame (or the sample's own), and how it is read. */
struct src {
	const struct lp_rows_frame *f;
	const struct lp_rows_sample *s;
	const char *sym;        /* f->sym, or an inlined function's row name */
	const char *mangled;
	bool level;             /* [k] */
	uint64_t addr;          /* unnamed: the address shown */
	bool has_start;
	uint64_t start;         /* named: the symbol's start */
	bool inlined;
	uint64_t inl_start;
	const char *within;     /* the function an inlined one is in; NULL: none */
};

struct text {
	char *p;
	size_t n, cap;
	bool oom;
};

static void put(struct text *t, const char *s, size_t n)
{
	if (t->n + n + 1 > t->cap) {
		size_t c = t->cap ? t->cap : 256;
		while (c < t->n + n + 1)
			c *= 2;
		char *p = realloc(t->p, c);
		if (!p) {
			t->oom = true;
			return;
		}
		t->p = p;
		t->cap = c;
	}
	memcpy(t->p + t->n, s, n);
	t->n += n;
	t->p[t->n] = '\0';
}

static void puts_(struct text *t, const char *s)
{
	put(t, s, strlen(s));
}

static void put_addr(struct text *t, uint64_t a)
{
	char b[19] = "0x";
	if (!a) {
		puts_(t, "0000000000000000");
		return;
	}
	for (int i = 17; i >= 2; i--, a >>= 4)  /* "0x%016" PRIx64 */
		b[i] = "0123456789abcdef"[a & 15];
	b[18] = '\0';
	puts_(t, b);
}

/* Appends v in decimal ("%" PRId64). */
static void put_int(struct text *t, int64_t v)
{
	char b[24], *p = b + sizeof b;
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
	*--p = '\0';
	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	puts_(t, p);
}

/* Key k's cell of src into t; id: as the row's text id has it (an
 * unnamed row is its address, whatever its level). */
static void put_cell(struct lp_rows *r, struct text *t, enum lp_rows_key k, const struct src *x,
		     bool id)
{
	char b[32];
	const struct lp_rows_frame *f = x->f;
	switch (k) {
	case LP_ROWS_SYM: {
		/* an inlined function's row name is as it is */
		const char *name = x->inlined || !x->sym ? x->sym : name_of(r, f);
		if (name) {
			puts_(t, x->level ? "[k] " : "[.] ");
			puts_(t, name);
		} else {
			if (!id)
				puts_(t, x->level ? "[k] " : "[.] ");
			put_addr(t, x->addr);
		}
		break;
	}
	case LP_ROWS_DSO: puts_(t, f->dso ? dso_name(r, f->dso) : "[unknown]"); break;
	case LP_ROWS_COMM: puts_(t, x->s->comm ? x->s->comm : ""); break;
	case LP_ROWS_PID: case LP_ROWS_TID:
		put_int(t, x->s->tid);
		break;
	case LP_ROWS_PROCESS:
		put_int(t, x->s->pid);
		break;
	default:
		if (f->srcline)
			puts_(t, f->srcline);
		else if (!f->file)
			puts_(t, "??:0");
		else {
			const char *s = strrchr(f->file, '/');
			puts_(t, s ? s + 1 : f->file);
			snprintf(b, sizeof b, ":%" PRIu32, f->line);
			puts_(t, b);
		}
		break;
	}
}

/* The row's text id of src (top.lua's row_of), in t. */
static void text_id(struct lp_rows *r, struct text *t, const struct src *x)
{
	t->n = 0;
	for (unsigned i = 0; i < r->spec.nr_keys; i++) {
		if (i)
			put(t, "", 1);
		put_cell(r, t, r->spec.keys[i], x, true);
	}
	if (r->with[LP_ROWS_SYM]) {
		put(t, "", 1);
		if (x->sym) {
			if (!r->with[LP_ROWS_DSO] && x->f->dso)
				puts_(t, x->f->dso);
			put(t, "", 1);
			if (x->has_start)
				put_int(t, (int64_t)x->start);
		}
	}
	if (x->within) {
		put(t, "", 1);
		puts_(t, x->within);
	}
}

/* perf's entry of src (top.lua's perf_entry). */
static struct entry make_entry(struct lp_rows *r, const struct src *x)
{
	struct entry e = { .named = x->sym != NULL, .inlined = x->inlined,
			   .ip = (int64_t)x->addr, .dso = dso_name(r, x->f->dso) };
	if (e.named) {
		e.name = x->inlined ? x->sym : short_name(r, x->f->sym, x->f->mangled);
		e.start = (int64_t)(x->inlined ? x->inl_start : x->has_start ? x->start : 0);
	}
	return e;
}

/* --- perf's tree ---------------------------------------------------- */

static int sign(int64_t d)
{
	return d < 0 ? -1 : d > 0;
}

static int cmp_null(const void *l, const void *rr)
{
	if (!l && !rr)
		return 0;
	return !l ? -1 : 1;
}

/* sort__sym_cmp(l, r) as top.lua models it: < 0 sends r left of l. */
static int entry_cmp(const struct entry *l, const struct entry *r)
{
	if (!l->named && !r->named)
		return sign((int64_t)((uint64_t)r->ip - (uint64_t)l->ip));
	if (!l->dso || !r->dso) {
		int c = cmp_null(l->dso, r->dso);
		if (c)
			return c;
	} else if (l->dso != r->dso && strcmp(l->dso, r->dso)) {
		return strcmp(r->dso, l->dso) < 0 ? -1 : 1;
	}
	if (!l->named || !r->named)
		return l->named ? 1 : -1;
	if (l->inlined || r->inlined) {
		if (l->name != r->name && strcmp(l->name, r->name))
			return strcmp(l->name, r->name) < 0 ? -1 : 1;
		if (l->start == r->start)
			return 0;
	}
	return sign((int64_t)((uint64_t)r->start - (uint64_t)l->start));
}

#define N(i) (&r->nodes[i])

static void rotate(struct lp_rows *r, uint32_t x, bool right)
{
	uint32_t y, inner;
	if (right) {
		y = N(x)->left;
		inner = N(y)->right;
		N(x)->left = inner;
	} else {
		y = N(x)->right;
		inner = N(y)->left;
		N(x)->right = inner;
	}
	if (inner != NONE)
		N(inner)->parent = x;
	uint32_t p = N(x)->parent;
	if (p == NONE)
		r->root = y;
	else if (N(p)->left == x)
		N(p)->left = y;
	else
		N(p)->right = y;
	N(y)->parent = p;
	if (right)
		N(y)->right = x;
	else
		N(y)->left = x;
	N(x)->parent = y;
}

static uint32_t new_row(struct lp_rows *r, const struct src *x);

/* perf's __hists__add_entry (top.lua's tree_find_or_add): the row of the
 * node equal to e on the way down, or a new row and node; NONE: ENOMEM. */
static uint32_t tree_find_or_add(struct lp_rows *r, uint32_t memo, const struct src *x)
{
	const struct entry e_ = r->memos[memo].e, *e = &e_;
	uint32_t p = NONE, n = r->root;
	bool left = false;
	while (n != NONE) {
		int c = entry_cmp(&N(n)->e, e);
		if (!c)
			return N(n)->row;
		p = n;
		left = c < 0;
		n = left ? N(n)->left : N(n)->right;
	}
	if (!grow((void **)&r->nodes, &r->cap_nodes, r->nr_nodes + 1, sizeof *r->nodes))
		return NONE;
	uint32_t row = new_row(r, x);
	if (row == NONE)
		return NONE;
	uint32_t z = (uint32_t)r->nr_nodes++;
	*N(z) = (struct node){ .parent = p, .left = NONE, .right = NONE, .row = row, .red = true,
			       .e = *e };
	if (p == NONE)
		r->root = z;
	else if (left)
		N(p)->left = z;
	else
		N(p)->right = z;
	while (N(z)->parent != NONE && N(N(z)->parent)->red) {
		uint32_t q = N(z)->parent, g = N(q)->parent;
		bool qleft = N(g)->left == q;
		uint32_t u = qleft ? N(g)->right : N(g)->left;
		uint32_t inner = qleft ? N(q)->right : N(q)->left;
		if (u != NONE && N(u)->red) {
			N(q)->red = N(u)->red = false;
			N(g)->red = true;
			z = g;
		} else {
			if (z == inner) {
				z = q;
				rotate(r, z, !qleft);
				q = N(z)->parent;
			}
			N(q)->red = false;
			N(g)->red = true;
			rotate(r, g, qleft);
		}
	}
	N(r->root)->red = false;
	r->placed = false;
	return row;
}

/* --- rows ----------------------------------------------------------- */

static uint32_t new_row(struct lp_rows *r, const struct src *x)
{
	size_t nk = r->spec.nr_keys;
	if (!grow((void **)&r->rows, &r->cap_rows, r->nr_rows + 1, sizeof *r->rows) ||
	    !grow((void **)&r->cells, &r->cap_cells, (r->nr_rows + 1) * nk, sizeof *r->cells))
		return NONE;
	struct rowrec *w = &r->rows[r->nr_rows];
	const char **cells = &r->cells[r->nr_rows * nk];
	memset(w, 0, sizeof *w);
	struct text t = { .p = r->buf, .cap = r->cap_buf };
	for (unsigned i = 0; i < r->spec.nr_keys; i++) {
		t.n = 0;
		put_cell(r, &t, r->spec.keys[i], x, false);
		r->buf = t.p;
		r->cap_buf = t.cap;
		if (t.oom || !(cells[i] = lp_strtab_intern(r->strs, t.p)))
			return NONE;
	}
	r->placed = false;
	return (uint32_t)r->nr_rows++;
}

/* The frame key of src; a sample's parts only when a key reads them. */
static void make_fkey(const struct lp_rows *r, const struct src *x, struct fkey *k)
{
	memset(k, 0, sizeof *k);
	k->sym = x->sym;
	k->mangled = x->mangled;
	k->dso = x->f->dso;
	if (r->with[LP_ROWS_SRCLINE]) {
		k->file = x->f->srcline ? x->f->srcline : x->f->file;
		k->line = x->f->srcline ? UINT32_MAX : x->f->line;
	}
	k->within = x->within;
	k->addr = x->sym ? x->start : x->addr;
	k->inl_start = x->inl_start;
	k->level = x->level;
	k->named = x->sym != NULL;
	k->has_start = x->has_start;
	k->inlined = x->inlined;
	if (r->sample_keys) {
		k->pid = x->s->pid;
		k->tid = x->s->tid;
		if (r->with[LP_ROWS_COMM] && x->s->comm)
			memcpy(k->comm, x->s->comm, strnlen(x->s->comm, sizeof k->comm));
	}
}

/* The memo of src's frame key, made when new: its id (and entry). */
static struct memo *find_memo(struct lp_rows *r, const struct src *x)
{
	struct fkey k;
	bool added = false;     /* lp_hmap_find sets it only when true */
	make_fkey(r, x, &k);
	/* the sample's parts only when a key reads them */
	size_t n = r->sample_keys ? sizeof k : offsetof(struct fkey, pid);
	uint64_t h = lp_hash(&k, n);
	struct front *fr = &r->front[(h ^ (h >> 29)) & (FRONT - 1)];
	if (fr->memo != NONE && !memcmp(&fr->k, &k, n))
		return &r->memos[fr->memo];
	int64_t i = lp_hmap_find(r->memo, &k, n, h, true, &added);
	if (i < 0)
		return NULL;
	if (!added) {
		memcpy(&fr->k, &k, n);
		fr->memo = (uint32_t)i;
		return &r->memos[i];
	}
	if (!grow((void **)&r->memos, &r->cap_memos, (size_t)i + 1, sizeof *r->memos))
		return NULL;
	struct memo *m = &r->memos[i];
	struct text t = { .p = r->buf, .cap = r->cap_buf };
	text_id(r, &t, x);
	r->buf = t.p;
	r->cap_buf = t.cap;
	if (t.oom)
		return NULL;
	added = false;
	int64_t id = lp_hmap_find(r->ids, t.p, t.n, lp_hash(t.p, t.n), true, &added);
	if (id < 0)
		return NULL;
	if (added) {
		if (!grow((void **)&r->idrecs, &r->cap_ids, (size_t)id + 1, sizeof *r->idrecs))
			return NULL;
		r->idrecs[id] = (struct idrec){ .row = NONE };
	}
	m->id = (uint32_t)id;
	if (r->perf_tree)
		m->e = make_entry(r, x);
	memcpy(&fr->k, &k, n);
	fr->memo = (uint32_t)i;
	return m;
}

/* The row of src, and its id in *id; NONE: ENOMEM. */
static uint32_t row_of(struct lp_rows *r, const struct src *x, uint32_t *id)
{
	struct memo *m = find_memo(r, x);
	if (!m)
		return NONE;
	*id = m->id;
	struct idrec *d = &r->idrecs[m->id];
	if (r->perf_tree) {
		/* looked up again only when the tree grew since (top.lua) */
		if (d->row != NONE && d->count == r->nr_nodes)
			return d->row;
		uint32_t row = tree_find_or_add(r, (uint32_t)(m - r->memos), x);
		d = &r->idrecs[*id];
		d->row = row;
		d->count = (uint32_t)r->nr_nodes;
		return row;
	}
	if (d->row == NONE)
		d->row = new_row(r, x);
	return d->row;
}

/* The row source of a frame f at level `level` (caller frames' unnamed
 * rows show the call: ip - 1). */
static void frame_src(const struct lp_rows_sample *s, const struct lp_rows_frame *f, bool level,
		      struct src *x)
{
	*x = (struct src){ .f = f, .s = s, .sym = f->sym, .mangled = f->mangled, .level = level,
			   .addr = f->caller ? f->ip - 1 : f->ip };
	if (f->sym) {
		x->has_start = true;
		x->start = (f->offset ? f->offset : f->ip) - f->symoff;
	}
}

/* The row of the function inlined at f, inside frame base (top.lua's
 * inlined_row): base's own row when it is base's function. */
static uint32_t inlined_row(struct lp_rows *r, const struct lp_rows_sample *s,
			    const struct lp_rows_frame *f, const struct lp_rows_frame *base,
			    uint32_t *id)
{
	struct src x;
	const char *name = short_name(r, f->sym, f->mangled);
	if (!name)
		name = "[unknown]";
	if (base && name == short_name(r, base->sym, base->mangled)) {
		frame_src(s, base, base->kernel, &x);
		return row_of(r, &x, id);
	}
	struct lp_htab_ent *e = lp_htab_find_int(r->inl_names, (uintptr_t)name);
	if (!e) {
		size_t n = strlen(name);
		char *b = malloc(n + sizeof " (inlined)");
		if (!b)
			return NONE;
		memcpy(b, name, n);
		memcpy(b + n, " (inlined)", sizeof " (inlined)");
		const char *in = lp_strtab_intern(r->strs, b);
		free(b);
		if (!in || !(e = lp_htab_add_hashed(r->inl_names, (uintptr_t)name,
						    lp_htab_int_hash((uintptr_t)name), NULL)))
			return NONE;
		e->val = (uintptr_t)in;
	}
	x = (struct src){ .f = f, .s = s, .sym = (const char *)(uintptr_t)e->val, .level = f->kernel,
			  .inlined = true, .within = base && base->sym ? base->sym : "" };
	if (base && base->sym)
		x.inl_start = (base->offset ? base->offset : base->ip) - base->symoff;
	return row_of(r, &x, id);
}

/* Adds period to row's children once per sample. */
static void count_child(struct lp_rows *r, uint32_t row, uint32_t id, uint64_t period)
{
	struct rowrec *w = &r->rows[row];
	struct idrec *d = &r->idrecs[id];
	if (w->seen == r->samples || d->seen == r->samples)
		return;
	w->seen = d->seen = r->samples;
	w->children += period;
}

int lp_rows_add(struct lp_rows *r, const struct lp_rows_sample *s)
{
	struct src x;
	uint32_t id;
	r->samples++;
	r->total += s->period;
	if (r->with[LP_ROWS_PID] && s->comm) {
		uint64_t k = (uint32_t)s->tid;
		struct lp_htab_ent *e = lp_htab_find_int(r->comms, k);
		const char *c = e ? (const char *)(uintptr_t)e->val : NULL;
		if (!c || strcmp(c, s->comm)) {
			if (!(c = lp_strtab_intern(r->strs, s->comm)) ||
			    !(e = lp_htab_add_hashed(r->comms, k, lp_htab_int_hash(k), NULL)))
				return -ENOMEM;
			e->val = (uintptr_t)c;
		}
	}
	/* the sample's own row: an unnamed one is its offset in the file */
	frame_src(s, s->leaf, s->leaf->kernel, &x);
	x.addr = s->leaf->offset && !s->leaf->kernel ? s->leaf->offset : s->leaf->ip;
	uint32_t row = row_of(r, &x, &id);
	if (row == NONE)
		return -ENOMEM;
	struct rowrec *w = &r->rows[row];
	w->self += s->period;
	w->samples++;
	if (!r->spec.children)
		return 0;
	count_child(r, row, id, s->period);
	/* from the root; an unmapped frame keeps the level of the nearest
	 * mapped one rootwards (perf's fill_callchain_info) */
	bool level = s->leaf->kernel;
	const struct lp_rows_frame *base = NULL;
	for (size_t i = s->nr; i-- > 0;) {
		const struct lp_rows_frame *f = &s->stack[i];
		if (f->dso)
			level = f->kernel;
		if (!f->inlined) {
			base = f;
			frame_src(s, f, level, &x);
			row = row_of(r, &x, &id);
		} else if (r->with[LP_ROWS_SYM]) {
			row = inlined_row(r, s, f, base, &id);
		} else {
			continue;
		}
		if (row == NONE)
			return -ENOMEM;
		count_child(r, row, id, s->period);
	}
	return 0;
}

uint64_t lp_rows_samples(const struct lp_rows *r)
{
	return r->samples;
}

uint64_t lp_rows_total(const struct lp_rows *r)
{
	return r->total;
}

size_t lp_rows_count(const struct lp_rows *r)
{
	return r->nr_rows;
}

struct lp_row lp_rows_get(const struct lp_rows *r, size_t i)
{
	const struct rowrec *w = &r->rows[i];
	struct lp_row row = { .self = w->self, .children = w->children, .samples = w->samples };
	memcpy(row.cells, &r->cells[i * r->spec.nr_keys], r->spec.nr_keys * sizeof *r->cells);
	return row;
}

static uint32_t leftmost(const struct lp_rows *r, uint32_t x)
{
	while (x != NONE && N(x)->left != NONE)
		x = N(x)->left;
	return x;
}

/* Numbers the nodes in order, through their parent links. */
static void place_all(struct lp_rows *r)
{
	size_t n = 0;
	for (uint32_t x = leftmost(r, r->root); x != NONE;) {
		r->rows[N(x)->row].place = (uint32_t)++n;
		if (N(x)->right != NONE) {
			x = leftmost(r, N(x)->right);
			continue;
		}
		while (N(x)->parent != NONE && N(N(x)->parent)->right == x)
			x = N(x)->parent;
		x = N(x)->parent;
	}
	r->placed = true;
}

size_t lp_rows_place(struct lp_rows *r, size_t i)
{
	if (!r->perf_tree)
		return 0;
	if (!r->placed)
		place_all(r);
	return r->rows[i].place;
}

const char *lp_rows_last_comm(const struct lp_rows *r, int32_t tid)
{
	struct lp_htab_ent *e = lp_htab_find_int(r->comms, (uint32_t)tid);
	return e ? (const char *)(uintptr_t)e->val : NULL;
}

/* --- perf's order of rows -------------------------------------------- */

/* Whether cell c (its level taken off) is an unnamed row's address. */
static bool is_addr(const char *c)
{
	if (!strcmp(c, "0000000000000000"))
		return true;
	if (c[0] != '0' || c[1] != 'x' || !c[2])
		return false;
	for (c += 2; *c; c++)
		if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f') || (*c >= 'A' && *c <= 'F')))
			return false;
	return true;
}

/* Row w's text for ties (top.lua's r.order): its cells without [k]/[.],
 * NUL-separated; an address as "\377" and, unless perf's tree orders
 * the ties, its value with the sign bit flipped (perf compares addresses
 * as signed 64-bit numbers).  false: ENOMEM. */
static bool make_order(const struct lp_rows *r, struct rowrec *w)
{
	struct text t = { 0 };
	const char **cells = &r->cells[(size_t)(w - r->rows) * r->spec.nr_keys];
	for (unsigned i = 0; i < r->spec.nr_keys; i++) {
		const char *c = cells[i];
		if (i)
			put(&t, "", 1);
		if ((c[0] == '[' && (c[1] == 'k' || c[1] == '.') && c[2] == ']' && c[3] == ' '))
			c += 4;
		if (!is_addr(c)) {
			puts_(&t, c);
			continue;
		}
		put(&t, "\377", 1);
		if (!r->perf_tree) {
			char b[24];
			uint64_t a = strtoull(c, NULL, 16) ^ (UINT64_C(1) << 63);
			snprintf(b, sizeof b, "%016" PRIx64, a);
			puts_(&t, b);
		}
	}
	if (t.oom) {
		free(t.p);
		return false;
	}
	w->order = t.p ? t.p : strdup("");
	w->order_len = t.n;
	return w->order != NULL;
}

struct sort_ctx {
	struct lp_rows *r;
	bool children;
	bool oom;
};

/* Lua's string order (strcoll in the C locale: bytes, NUL the least). */
static int order_cmp(const struct rowrec *a, const struct rowrec *b)
{
	size_t n = a->order_len < b->order_len ? a->order_len : b->order_len;
	int c = memcmp(a->order, b->order, n);
	if (c)
		return c;
	return a->order_len < b->order_len ? -1 : a->order_len > b->order_len;
}

static int row_cmp(const void *pa, const void *pb, void *arg)
{
	struct sort_ctx *x = arg;
	struct rowrec *a = &x->r->rows[*(const uint32_t *)pa], *b = &x->r->rows[*(const uint32_t *)pb];
	uint64_t fa = x->children ? a->children : a->self;
	uint64_t fb = x->children ? b->children : b->self;
	if (fa != fb)
		return fa > fb ? -1 : 1;
	if (a->self != b->self)
		return a->self > b->self ? -1 : 1;
	if ((!a->order && !make_order(x->r, a)) || (!b->order && !make_order(x->r, b))) {
		x->oom = true;
		return 0;
	}
	int c = order_cmp(a, b);
	if (c)
		return c;
	if (x->r->perf_tree && a->place != b->place)
		return a->place < b->place ? -1 : 1;
	return a < b ? -1 : a > b;      /* else in the order made */
}

/* Moves v[i] down the heap v[0, k) whose top sorts last (row_cmp). */
static void sift(uint32_t *v, size_t k, size_t i, struct sort_ctx *x)
{
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= k)
			return;
		if (c + 1 < k && row_cmp(&v[c + 1], &v[c], x) > 0)
			c++;
		if (row_cmp(&v[c], &v[i], x) <= 0)
			return;
		uint32_t t = v[c];
		v[c] = v[i];
		v[i] = t;
		i = c;
	}
}

/* Puts the k rows of v[0, n) that sort first at its front, in order, the
 * rest after them in no order: a heap of the best k met, the worst of
 * them on top, which most rows (of a few samples, under a long table's
 * top) are compared with once, on their counts alone. */
static void select_first(uint32_t *v, size_t n, size_t k, struct sort_ctx *x)
{
	for (size_t i = k / 2; i-- > 0;)
		sift(v, k, i, x);
	for (size_t i = k; i < n; i++)
		if (row_cmp(&v[i], &v[0], x) < 0) {
			uint32_t t = v[i];
			v[i] = v[0];
			v[0] = t;
			sift(v, k, 0, x);
		}
	qsort_r(v, k, sizeof *v, row_cmp, x);
}

long lp_rows_sort(struct lp_rows *r, bool children, size_t limit, uint32_t **out)
{
	*out = NULL;
	if (r->perf_tree && !r->placed)
		place_all(r);
	uint32_t *v = malloc((r->nr_rows ? r->nr_rows : 1) * sizeof *v);
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < r->nr_rows; i++)
		v[i] = (uint32_t)i;
	struct sort_ctx x = { .r = r, .children = children };
	if (limit && limit < r->nr_rows / 8)
		select_first(v, r->nr_rows, limit, &x);
	else
		qsort_r(v, r->nr_rows, sizeof *v, row_cmp, &x);
	if (x.oom) {
		free(v);
		return -ENOMEM;
	}
	*out = v;
	return (long)(limit < r->nr_rows ? limit : r->nr_rows);
}
