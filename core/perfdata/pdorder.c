/*
 * pdorder.c - time ordering of records, as perf's ordered_events does it.
 *
 * perf script queues every kernel record that has a time (not 0, not
 * ~0) and delivers queued records only at a flush:
 *  - FINISHED_ROUND: everything with time <= next_flush, then next_flush =
 *    max_timestamp (the largest time queued since the queue was last empty);
 *    so a round releases what the previous round had seen, the first round
 *    releases nothing;
 *  - end of input: everything;
 *  - queue over its memory cap: everything up to the midpoint between the
 *    oldest and the newest time (perf's OE_FLUSH__HALF).
 * Within a flush, records come out by time, and in arrival order for equal
 * times (perf's list insertion is stable).  Records queued after a flush
 * with a time already passed wait for the next flush, as in perf.
 *
 * Layout: q[head, sorted) is the sorted backlog, q[sorted, n) arrived since
 * the last flush.  A flush sorts the new part (stable natural merge sort,
 * skipped when it arrived in order) and merges it behind
 * the backlog, ties going to the backlog, which arrived first.
 *
 * Records live in 2 MiB arena chunks, never one malloc per record: the
 * source reads the input straight into chunks (pdsrc.c), so a record read
 * from the file is queued where it lies, with a reference on its chunk;
 * only records that lie elsewhere (decompressed, realigned) are copied in.
 * A chunk is freed when its last reference is dropped: its records have
 * been delivered and released (the delivered record stays valid until the
 * next call) and nothing fills it any more.  Chunks are 256 KiB slices of
 * 2 MiB huge-page slabs (bigbuf.h): filling a slab costs one page fault,
 * not 512, and a slice taken again none.  A chunk as large as a slab did
 * as well for speed, but the one being filled and the one before it,
 * whose records wait for the next round, held 4 MiB where a recording's
 * rounds are a few hundred KiB (a make -j2 -g's: 230 KiB); slices of one
 * slab hold them in 2 MiB.  The first slab is in small pages and kept to
 * the end: the slices in use gather in it, lowest first, so such a
 * recording pays for the few it touches (4 slices, 1 MiB, for the make
 * -j2 -g one: its peak fell by 1 MiB), and one of large rounds pays its
 * 512 faults once, then huge pages for the slabs after it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/bigbuf.h"
#include "perfdata/perfdata_int.h"

void pd_order_init(struct pd_order *o, size_t max_bytes, struct lp_pd_stats *stats)
{
	memset(o, 0, sizeof *o);
	o->new_in_order = true;
	o->release = PD_NO_CHUNK;
	o->cur = PD_NO_CHUNK;
	o->max_bytes = max_bytes;
	o->stats = stats;
}

void pd_order_free(struct pd_order *o)
{
	for (size_t i = 0; i < o->nr_slabs; i++)
		lp_bigbuf_free(o->slabs[i].mem, PD_SLAB_SIZE);
	free(o->slabs);
	free(o->chunks);
	free(o->q);
	free(o->tmp);
	memset(o, 0, sizeof *o);
}

/* ---- chunks ------------------------------------------------------------ */

/* A free slice of a slab, or NULL; the lowest slab with one first, so
 * that the slices in use gather in as few slabs as they can. */
static uint8_t *slice_take(struct pd_order *o)
{
	for (size_t i = 0; i < o->nr_slabs; i++) {
		struct pd_slab *sl = &o->slabs[i];
		if (!sl->mem || sl->busy == (uint8_t)((1u << PD_SLAB_CHUNKS) - 1))
			continue;
		unsigned k = 0;
		while (sl->busy & (1u << k))
			k++;
		sl->busy |= (uint8_t)(1u << k);
		return sl->mem + k * PD_CHUNK_SIZE;
	}
	return NULL;
}

/* Memory for a new chunk: a free slice, else one of a fresh slab; NULL on
 * ENOMEM. */
static uint8_t *chunk_mem(struct pd_order *o)
{
	uint8_t *mem = slice_take(o);
	void *slab = NULL;
	size_t i, cap = 0;

	if (mem)
		return mem;
	for (i = 0; i < o->nr_slabs && o->slabs[i].mem; i++)
		;
	if (i == o->nr_slabs) {
		struct pd_slab *sl = realloc(o->slabs, (i + 1) * sizeof *sl);
		if (!sl)
			return NULL;
		o->slabs = sl;
		o->slabs[o->nr_slabs++].mem = NULL;
	}
	if (lp_bigbuf_reserve(&slab, &cap, PD_SLAB_SIZE))
		return NULL;            /* cap == PD_SLAB_SIZE: a huge page */
	if (i == 0)             /* made once: chunk_mem_put keeps it */
		lp_bigbuf_small(slab, cap);
	o->slabs[i] = (struct pd_slab){ slab, 0 };
	return slice_take(o);
}

/* Gives the slice at mem back; its slab goes when none of it is in use,
 * unless it is one of the PD_SPARE_SLABS kept. */
static void chunk_mem_put(struct pd_order *o, uint8_t *mem)
{
	size_t empty = 0;
	struct pd_slab *mine = NULL;

	for (size_t i = 0; i < o->nr_slabs; i++) {
		struct pd_slab *sl = &o->slabs[i];
		if (sl->mem && mem >= sl->mem && mem < sl->mem + PD_SLAB_SIZE) {
			sl->busy &= (uint8_t)~(1u << ((size_t)(mem - sl->mem) / PD_CHUNK_SIZE));
			mine = sl;
		}
		empty += sl->mem && !sl->busy;
	}
	if (mine && mine != o->slabs && !mine->busy && empty > PD_SPARE_SLABS) {
		lp_bigbuf_free(mine->mem, PD_SLAB_SIZE);
		mine->mem = NULL;
	}
}

int pd_chunk_new(struct pd_order *o, uint32_t *idx)
{
	size_t i;

	for (i = 0; i < o->nr_chunks && o->chunks[i].mem; i++)
		;
	if (i == o->nr_chunks) {
		struct pd_chunk *c = i < PD_NO_CHUNK ? realloc(o->chunks, (i + 1) * sizeof *c) : NULL;

		if (!c)
			return -ENOMEM;
		o->chunks = c;
		o->chunks[o->nr_chunks++].mem = NULL;
	}
	uint8_t *mem = chunk_mem(o);
	if (!mem)
		return -ENOMEM;
	o->chunks[i] = (struct pd_chunk){ mem, 0, 1 };
	o->bytes += PD_CHUNK_SIZE;
	*idx = (uint32_t)i;
	return 0;
}

uint8_t *pd_chunk_mem(const struct pd_order *o, uint32_t idx)
{
	return o->chunks[idx].mem;
}

void pd_chunk_put(struct pd_order *o, uint32_t idx)
{
	struct pd_chunk *c = &o->chunks[idx];

	if (--c->refs)
		return;
	chunk_mem_put(o, c->mem);
	c->mem = NULL;
	o->bytes -= PD_CHUNK_SIZE;
}

/* Copies a record into the arena's copy chunk; sets e->rec and e->chunk. */
static int arena_copy(struct pd_order *o, const struct perf_event_header *h,
		      struct pd_oe *e)
{
	size_t need = pd_align8(h->size);
	struct pd_chunk *c;

	if (o->cur == PD_NO_CHUNK || PD_CHUNK_SIZE - o->chunks[o->cur].used < need) {
		uint32_t idx;
		int err = pd_chunk_new(o, &idx);

		if (err)
			return err;
		if (o->cur != PD_NO_CHUNK)
			pd_chunk_put(o, o->cur);
		o->cur = idx;
	}
	c = &o->chunks[o->cur];
	memcpy(c->mem + c->used, h, h->size);
	e->rec = c->mem + c->used;
	e->chunk = o->cur;
	c->used += need;
	c->refs++;
	return 0;
}

/* Queues r where it lies when it is in a chunk, else copies it. */
static int arena_hold(struct pd_order *o, const struct pd_rec *r, struct pd_oe *e)
{
	if (r->chunk == PD_NO_CHUNK)
		return arena_copy(o, r->h, e);
	o->chunks[r->chunk].refs++;
	e->chunk = r->chunk;
	return 0;
}

/* ---- queue ------------------------------------------------------------- */

static int grow(struct pd_order *o)
{
	size_t cap;
	struct pd_oe *q;

	if (o->head && o->head >= o->n / 2) {  /* compact before growing */
		memmove(o->q, o->q + o->head, (o->n - o->head) * sizeof *q);
		o->n -= o->head;
		o->sorted -= o->head;
		o->head = 0;
		if (o->n < o->cap)
			return 0;
	}
	cap = o->cap ? o->cap * 2 : 4096;
	q = realloc(o->q, cap * sizeof *q);
	if (!q)
		return -ENOMEM;
	o->q = q;
	o->cap = cap;
	return 0;
}

static int flush_half(struct pd_order *o);

int pd_order_queue(struct pd_order *o, uint64_t time, const struct pd_rec *r,
		   uint32_t ev)
{
	struct pd_oe e = { time, r->h, r->off, ev, PD_NO_CHUNK };
	int err;

	if (o->n == o->cap && (err = grow(o)))
		return err;
	if ((err = arena_hold(o, r, &e)))
		return err;
	if (time < o->last_flush)
		o->stats->nr_unordered++;
	if (o->head == o->n)
		o->max_ts = time;              /* perf: first event of an empty queue */
	else if (time >= o->max_ts)
		o->max_ts = time;
	if (o->n > o->sorted && time < o->q[o->n - 1].time)
		o->new_in_order = false;
	o->q[o->n++] = e;
	if (o->bytes + (o->n - o->head) * sizeof e > o->max_bytes && !o->flushing)
		return flush_half(o);
	return 0;
}

/* ---- sorting ----------------------------------------------------------- */

static int tmp_reserve(struct pd_order *o, size_t n)
{
	struct pd_oe *t;

	if (n <= o->tmp_cap)
		return 0;
	t = realloc(o->tmp, n * sizeof *t);
	if (!t)
		return -ENOMEM;
	o->tmp = t;
	o->tmp_cap = n;
	return 0;
}

/* Stable merge of a[0, na) and b[0, nb) into out; ties take a first. */
static void merge(const struct pd_oe *a, size_t na, const struct pd_oe *b, size_t nb,
		  struct pd_oe *out)
{
	size_t i = 0, j = 0, k = 0;

	while (i < na && j < nb)
		out[k++] = b[j].time < a[i].time ? b[j++] : a[i++];
	while (i < na)
		out[k++] = a[i++];
	while (j < nb)
		out[k++] = b[j++];
}

/* The end of the ascending run (by time, ties allowed) starting at lo. */
static size_t run_end(const struct pd_oe *v, size_t lo, size_t n)
{
	size_t i = lo + 1;

	while (i < n && !(v[i].time < v[i - 1].time))
		i++;
	return i;
}

/* Stable natural merge sort of v[0, n) using tmp (n entries): each pass
 * merges neighbouring ascending runs, until one is left.  A round's records
 * arrive as one ascending run per CPU ring, so one pass or two sort them,
 * where a bottom-up sort from single records took log2(n) passes
 * (docs/performance.md, "Measured choices in the code"). */
static void sort_stable(struct pd_oe *v, size_t n, struct pd_oe *tmp)
{
	struct pd_oe *src = v, *dst = tmp;
	size_t runs;

	do {
		runs = 0;
		for (size_t lo = 0; lo < n; runs++) {
			size_t mid = run_end(src, lo, n);
			size_t hi = mid < n ? run_end(src, mid, n) : n;

			merge(src + lo, mid - lo, src + mid, hi - mid, dst + lo);
			lo = hi;
		}
		struct pd_oe *t = src;
		src = dst;
		dst = t;
	} while (runs > 1);
	if (src != v)
		memcpy(v, src, n * sizeof *v);
}

/* Makes q[head, n) one sorted run. */
static int sort_pending(struct pd_order *o)
{
	size_t nb = o->n - o->sorted, na = o->sorted - o->head;
	int err;

	if (!nb)
		return 0;       /* (q may still be NULL: no arithmetic on it) */
	struct pd_oe *a = o->q + o->head, *b = o->q + o->sorted;
	if ((err = tmp_reserve(o, na + nb)))
		return err;
	if (!o->new_in_order)
		sort_stable(b, nb, o->tmp);
	if (na && b[0].time < a[na - 1].time) {
		merge(a, na, b, nb, o->tmp);
		memcpy(a, o->tmp, (na + nb) * sizeof *a);
	}
	o->sorted = o->n;
	o->new_in_order = true;
	return 0;
}

/* ---- flushing ---------------------------------------------------------- */

static int flush_to(struct pd_order *o, uint64_t limit)
{
	int err = sort_pending(o);

	if (err)
		return err;
	o->limit = limit;
	o->flushing = true;
	return 0;
}

int pd_order_round(struct pd_order *o)
{
	uint64_t limit = o->next_flush;
	int err = 0;

	if (limit)                              /* perf: a zero limit flushes nothing */
		err = flush_to(o, limit);
	o->next_flush = o->max_ts;
	return err;
}

int pd_order_final(struct pd_order *o)
{
	return flush_to(o, UINT64_MAX);
}

static int flush_half(struct pd_order *o)
{
	int err = sort_pending(o);
	uint64_t first, last;

	if (err || o->head == o->n)
		return err;
	first = o->q[o->head].time;
	last = o->q[o->n - 1].time;
	o->next_flush = first + (last - first) / 2;
	o->stats->nr_half_flushes++;
	return flush_to(o, o->next_flush);
}

int pd_order_pop(struct pd_order *o, struct pd_oe *e)
{
	if (!o->flushing)
		return 0;
	if (o->head == o->n || o->q[o->head].time > o->limit) {
		o->flushing = false;
		if (o->head == o->n)
			o->head = o->sorted = o->n = 0;
		return 0;
	}
	*e = o->q[o->head++];
	o->last_flush = e->time;
	o->release = e->chunk;
	return 1;
}
