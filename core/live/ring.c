/*
 * ring.c - reading a perf mmap ring buffer.
 *
 * Memory ordering follows the contract in <linux/perf_event.h>: the head is
 * loaded with acquire semantics before any record is read, and the tail is
 * stored with release semantics after the records are done with, so the
 * kernel never overwrites bytes still being read.  data_head and data_tail
 * only grow; positions are taken modulo the power-of-two data size.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "luaprof/ring.h"

struct lp_ring {
	struct perf_event_mmap_page *page;
	uint8_t *data;
	uint64_t size, mask;
	uint64_t head;          /* snapshot of data_head */
	uint64_t pos;           /* next byte to read */
	void *map;              /* the mmap, NULL for lp_ring_over() */
	size_t map_len;
	_Alignas(8) uint8_t copy[65536];  /* a record that wraps, made contiguous */
};

static struct lp_ring *ring_init(struct perf_event_mmap_page *pg, uint8_t *data, size_t size)
{
	if (!size || (size & (size - 1)))
		return errno = EINVAL, NULL;
	struct lp_ring *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->page = pg;
	r->data = data;
	r->size = size;
	r->mask = size - 1;
	r->pos = r->head = __atomic_load_n(&pg->data_tail, __ATOMIC_RELAXED);
	return r;
}

struct lp_ring *lp_ring_mmap(int fd, size_t data_pages)
{
	size_t pagesz = (size_t)sysconf(_SC_PAGESIZE);
	size_t len = (data_pages + 1) * pagesz;
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return NULL;
	struct lp_ring *r = ring_init(m, (uint8_t *)m + pagesz, data_pages * pagesz);
	if (!r) {
		int e = errno;
		munmap(m, len);
		return errno = e, NULL;
	}
	r->map = m;
	r->map_len = len;
	return r;
}

struct lp_ring *lp_ring_over(void *mem, size_t data_offset, size_t data_size)
{
	return ring_init(mem, (uint8_t *)mem + data_offset, data_size);
}

void lp_ring_free(struct lp_ring *r)
{
	if (!r)
		return;
	if (r->map)
		munmap(r->map, r->map_len);
	free(r);
}

uint64_t lp_ring_begin(struct lp_ring *r)
{
	r->head = __atomic_load_n(&r->page->data_head, __ATOMIC_ACQUIRE);
	return r->head - r->pos;
}

const struct perf_event_header *lp_ring_next(struct lp_ring *r, int *err)
{
	uint64_t avail = r->head - r->pos;
	if (avail == 0)
		return NULL;
	const struct perf_event_header *h = (const void *)(r->data + (r->pos & r->mask));
	if (avail < sizeof *h || (r->pos & 7) || h->size < sizeof *h || (h->size & 7) ||
	    h->size > avail) {
		*err = -EPROTO;
		r->pos = r->head;       /* resynchronise: drop what is unreadable */
		return NULL;
	}
	uint64_t off = r->pos & r->mask;
	r->pos += h->size;
	if (off + h->size <= r->size)
		return h;
	size_t first = r->size - off;   /* the record wraps: copy both parts */
	memcpy(r->copy, r->data + off, first);
	memcpy(r->copy + first, r->data, h->size - first);
	return (const void *)r->copy;
}

void lp_ring_consume(struct lp_ring *r)
{
	__atomic_store_n(&r->page->data_tail, r->pos, __ATOMIC_RELEASE);
}

size_t lp_ring_size(const struct lp_ring *r)
{
	return r->size;
}
