/*
 * pdahead.c - reading ahead: the records of a perf.data read, decoded and
 * ordered on a thread of their own, while the caller (a Lua script)
 * handles the ones before them on its own core.
 *
 * The thread runs the reader's own loop (pd_read_next) and copies each
 * record it yields into a batch: the decoded lp_record, its event, and the
 * record's bytes, to which the record's pointers are moved
 * (lp_record_rebase).  A fixed ring of AHEAD_BATCHES batches, allocated
 * once, bounds the memory: nothing is allocated per record, and the thread
 * waits when every batch is full.  lp_perfdata_next then hands out the
 * batches' records in the order the thread read them, which is the order
 * of the reader without a thread, record for record, errors included.
 *
 * Hand-over, under one mutex: `full` counts the batches filled and not yet
 * given back (the one being read included).  The thread waits for room
 * while all are full and is woken only once half of them are free again,
 * so that it fills several batches per wake-up; the caller waits while
 * none is full and is woken once half of them are full again (or at the
 * end, or a barrier), so that it too takes several per wake-up: on a
 * machine whose other core is busy the two threads share one.
 *
 * What the caller may read between two lp_perfdata_next calls (the
 * events, the header facts) changes only at the records that change it
 * (perf's HEADER_ATTR, EVENT_UPDATE, HEADER_FEATURE, HEADER_BUILD_ID,
 * TRACING_DATA: pipe mode's header, rare in a file).  Before one of those
 * the thread publishes what it has read and waits at a barrier
 * (pd->barrier, ahead_barrier) until the caller has taken every record before it and
 * waits in lp_perfdata_next, where it reads none of that; the change is
 * then made, and published to the caller with the next batch.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "perfdata/perfdata_int.h"
#include "luaprof/thread.h"

#define AHEAD_BATCHES 8
#define AHEAD_RECORDS 512                       /* records per batch */
#define AHEAD_BYTES ((size_t)512 << 10)         /* their bytes, per batch */
#define MAX_RECORD ((size_t)65536)              /* header.size is 16 bits */

struct pd_ahead_ent {
	struct lp_record rec;
	const struct lp_pd_event *ev;
};

#define CACHE_LINE 64

/* A cache line each: the thread writes n of the batch it fills while the
 * caller reads n of the one before. */
struct pd_batch {
	_Alignas(CACHE_LINE) struct pd_ahead_ent *ents;
	size_t n;
	uint8_t *bytes;
	size_t used;
	int end;                /* 1: more follow; else what next returns after them */
	uint64_t pos;           /* the source's offset once it was filled */
};

struct pd_ahead {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t ready;   /* a batch was published (the caller waits on it) */
	pthread_cond_t room;    /* a batch was given back, or the caller waits */
	struct pd_batch b[AHEAD_BATCHES];
	/* under mu */
	size_t full;            /* batches published and not given back */
	bool reader_waits, thread_waits;
	int quit;               /* also read without mu, by the thread */
	/* the thread's, on a line of its own: it reads them for every record,
	 * as the caller writes its own for every record */
	_Alignas(CACHE_LINE) size_t wr;         /* the batch it fills */
	/* the caller's */
	_Alignas(CACHE_LINE) size_t rd;         /* the batch it reads, when cur */
	struct pd_batch *cur;
	size_t at;              /* the next entry of cur */
	bool ended;
	int end;
	uint64_t done;          /* progress: the offset of the last batch taken */
};

static void batch_clear(struct pd_batch *b)
{
	b->n = 0;
	b->used = 0;
	b->end = 1;
}

/* Publishes the batch being filled (unless it is empty and more follow)
 * and moves on to the next; under mu.  A waiting caller is woken once
 * half of the batches are full, at the end, or when now (a barrier): on
 * a machine whose other core is busy the two threads share one, and a
 * wake-up per batch would cost two context switches each. */
static void publish_locked(struct pd_ahead *a, bool now)
{
	struct pd_batch *b = &a->b[a->wr];
	if (b->n || b->end <= 0) {
		a->full++;
		a->wr = (a->wr + 1) % AHEAD_BATCHES;
	}
	if (a->reader_waits && a->full && (now || b->end <= 0 || a->full >= AHEAD_BATCHES / 2))
		pthread_cond_signal(&a->ready);
}

/* The thread's wait, entered under mu and left without it: until the
 * batch to fill is free, or at a barrier until the caller has taken every
 * batch and waits; then that batch is cleared.  0, or -ECANCELED at
 * close. */
static int wait_locked(struct pd_ahead *a, bool barrier)
{
	while (!a->quit && (barrier ? a->full || !a->reader_waits : a->full == AHEAD_BATCHES)) {
		a->thread_waits = true;
		pthread_cond_wait(&a->room, &a->mu);
	}
	a->thread_waits = false;
	int quit = a->quit;
	pthread_mutex_unlock(&a->mu);
	if (quit)
		return -ECANCELED;
	batch_clear(&a->b[a->wr]);
	return 0;
}

/* Waits until the batch to fill is free.  0, or -ECANCELED at close. */
static int wait_room(struct pd_ahead *a)
{
	pthread_mutex_lock(&a->mu);
	return wait_locked(a, false);
}

/* Copies the record the reader yielded into the batch being filled. */
static void keep(struct pd_batch *b, const struct lp_record *rec, const struct lp_pd_event *ev)
{
	struct pd_ahead_ent *e = &b->ents[b->n++];
	e->rec = *rec;
	e->ev = ev;
	if (!rec->data)
		return;
	uint8_t *to = b->bytes + b->used;
	memcpy(to, rec->data, rec->size);
	lp_record_rebase(&e->rec, to);
	b->used += pd_align8(rec->size);
}

static bool batch_full(const struct pd_batch *b)
{
	return b->n == AHEAD_RECORDS || AHEAD_BYTES - b->used < MAX_RECORD;
}

static void *ahead_main(void *arg)
{
	struct lp_perfdata *pd = arg;
	struct pd_ahead *a = pd->ahead;
	struct lp_record rec;
	const struct lp_pd_event *ev;
	int n = 1;
	while (n > 0 && !wait_room(a)) {
		/* a->wr is read again after each record: a barrier inside
		 * pd_read_next publishes the batch and moves on */
		while (!batch_full(&a->b[a->wr]) && !__atomic_load_n(&a->quit, __ATOMIC_RELAXED)) {
			n = pd_read_next(pd, &rec, &ev);
			if (n <= 0)
				break;
			keep(&a->b[a->wr], &rec, ev);
		}
		if (__atomic_load_n(&a->quit, __ATOMIC_RELAXED))
			break;
		struct pd_batch *b = &a->b[a->wr];
		b->end = n > 0 ? 1 : n;
		b->pos = pd->src.pos;
		pthread_mutex_lock(&a->mu);
		publish_locked(a, false);
		pthread_mutex_unlock(&a->mu);
	}
	return NULL;
}

/* pd->barrier while the thread runs (perfdata_int.h). */
static int ahead_barrier(struct lp_perfdata *pd)
{
	struct pd_ahead *a = pd->ahead;
	a->b[a->wr].pos = pd->src.pos;
	pthread_mutex_lock(&a->mu);
	publish_locked(a, true);
	return wait_locked(a, true);    /* the caller took everything: the batch is free */
}

static void ahead_free(struct pd_ahead *a)
{
	for (size_t i = 0; i < AHEAD_BATCHES; i++) {
		free(a->b[i].ents);
		free(a->b[i].bytes);
	}
	pthread_cond_destroy(&a->ready);
	pthread_cond_destroy(&a->room);
	pthread_mutex_destroy(&a->mu);
	free(a);
}

int lp_perfdata_read_ahead(struct lp_perfdata *pd)
{
	if (pd->ahead)
		return -EALREADY;
	if (!pd->src.map)
		return -ESPIPE;
	size_t size = (sizeof(struct pd_ahead) + CACHE_LINE - 1) / CACHE_LINE * CACHE_LINE;
	struct pd_ahead *a = aligned_alloc(CACHE_LINE, size);  /* calloc's alignment is 16 */
	if (!a)
		return -ENOMEM;
	memset(a, 0, size);
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->ready, NULL);
	pthread_cond_init(&a->room, NULL);
	for (size_t i = 0; i < AHEAD_BATCHES; i++) {
		a->b[i].ents = malloc(AHEAD_RECORDS * sizeof *a->b[i].ents);
		a->b[i].bytes = malloc(AHEAD_BYTES);
		if (!a->b[i].ents || !a->b[i].bytes) {
			ahead_free(a);
			return -ENOMEM;
		}
	}
	batch_clear(&a->b[0]);
	a->done = pd->src.pos;
	pd->ahead = a;
	pd->barrier = ahead_barrier;
	int rc = lp_thread_start(&a->thread, ahead_main, pd);
	if (rc) {
		pd->ahead = NULL;
		pd->barrier = NULL;
		ahead_free(a);
		return rc;
	}
	return 0;
}

/* Gives the batch read back to the thread; under mu. */
static void give_back_locked(struct pd_ahead *a)
{
	a->cur = NULL;
	a->full--;
	a->rd = (a->rd + 1) % AHEAD_BATCHES;
	if (a->thread_waits && a->full <= AHEAD_BATCHES / 2)
		pthread_cond_signal(&a->room);
}

/* The next published batch, waited for. */
static struct pd_batch *take(struct pd_ahead *a)
{
	pthread_mutex_lock(&a->mu);
	if (a->cur)
		give_back_locked(a);
	while (!a->full) {
		a->reader_waits = true;
		if (a->thread_waits)    /* at a barrier */
			pthread_cond_signal(&a->room);
		pthread_cond_wait(&a->ready, &a->mu);
	}
	a->reader_waits = false;
	a->cur = &a->b[a->rd];
	pthread_mutex_unlock(&a->mu);
	a->at = 0;
	a->done = a->cur->pos;
	return a->cur;
}

int pd_ahead_next(struct lp_perfdata *pd, const struct lp_record **rec,
		  const struct lp_pd_event **ev)
{
	struct pd_ahead *a = pd->ahead;
	for (;;) {
		if (a->ended)
			return a->end;
		struct pd_batch *b = a->cur;
		if (b && a->at < b->n) {
			const struct pd_ahead_ent *e = &b->ents[a->at++];
			if (a->at + 1 < b->n) {  /* written on the other core: ask early */
				const struct pd_ahead_ent *f = e + 2;
				__builtin_prefetch(f);
				__builtin_prefetch((const char *)f + 64);
				__builtin_prefetch(&f->ev);
				__builtin_prefetch(f->rec.data);
			}
			*rec = &e->rec;         /* in the batch, which stays ours until the next call */
			*ev = e->ev;
			return 1;
		}
		if (b && b->end <= 0) {
			a->ended = true;
			a->end = b->end;
			continue;
		}
		take(a);
	}
}

uint64_t pd_ahead_progress(const struct lp_perfdata *pd)
{
	return pd->ahead->done;
}

void pd_ahead_stop(struct lp_perfdata *pd)
{
	struct pd_ahead *a = pd->ahead;
	if (!a)
		return;
	pthread_mutex_lock(&a->mu);
	__atomic_store_n(&a->quit, 1, __ATOMIC_RELAXED);
	pthread_cond_signal(&a->room);
	pthread_mutex_unlock(&a->mu);
	pthread_join(a->thread, NULL);
	pd->ahead = NULL;
	pd->barrier = NULL;
	ahead_free(a);
}
