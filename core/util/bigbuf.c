/*
 * bigbuf.c - growable buffers, large ones in huge-page mappings (see
 * bigbuf.h).
 *
 * A large buffer is a private anonymous mapping whose start is a multiple
 * of 2 MiB, so that every whole 2 MiB of it can be a huge page; its size
 * is a multiple of 4 KiB only: a table of 1.1 MiB (libLLVM's symbols) in
 * a mapping rounded up to 2 MiB took a whole huge page, 0.9 MiB of it
 * never used.  It
 * grows by mapping a new aligned region and moving the old pages into its
 * start with mremap: page tables move, bytes are not copied.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "util/bigbuf.h"

#define HUGE_SIZE ((size_t)2 << 20)
#define PAGE_SIZE ((size_t)4096)

/* n rounded up to a multiple of PAGE_SIZE; 0 on overflow. */
static size_t round_page(size_t n)
{
	if (n > SIZE_MAX - PAGE_SIZE)
		return 0;
	return (n + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
}

/* A fresh zeroed mapping of size bytes (a multiple of PAGE_SIZE) at a
 * HUGE_SIZE-aligned address, advised for huge pages; NULL on failure.
 * The kernel backs with huge pages only the 2 MiB blocks wholly inside
 * it, so a tail, smaller pages, costs what it holds, not 2 MiB. */
static void *map_huge(size_t size)
{
	size_t len = size + HUGE_SIZE;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	char *q = (char *)(((uintptr_t)p + HUGE_SIZE - 1) & ~(uintptr_t)(HUGE_SIZE - 1));
	if (q > p)
		munmap(p, (size_t)(q - p));
	if (p + len > q + size)
		munmap(q + size, (size_t)(p + len - (q + size)));
	(void)madvise(q, size, MADV_HUGEPAGE);  /* advice: refused is fine */
	return q;
}

int lp_bigbuf_reserve(void **buf, size_t *cap, size_t need)
{
	void *p;

	if (need <= *cap)
		return 0;
	if (need < LP_BIGBUF_MIN) {
		if (!(p = realloc(*buf, need)))
			return -ENOMEM;
		*buf = p;
		*cap = need;
		return 0;
	}
	size_t size = round_page(need);
	if (!size || size > SIZE_MAX - HUGE_SIZE || !(p = map_huge(size)))
		return -ENOMEM;
	if (*cap >= LP_BIGBUF_MIN) {
		if (mremap(*buf, *cap, *cap, MREMAP_MAYMOVE | MREMAP_FIXED, p) == MAP_FAILED) {
			munmap(p, size);
			return -ENOMEM;
		}
	} else {
		if (*cap)
			memcpy(p, *buf, *cap);
		free(*buf);
	}
	*buf = p;
	*cap = size;
	return 0;
}

void lp_bigbuf_small(void *buf, size_t cap)
{
	if (buf && cap >= LP_BIGBUF_MIN)
		(void)madvise(buf, cap, MADV_NOHUGEPAGE);       /* advice */
}

void lp_bigbuf_free(void *buf, size_t cap)
{
	if (!buf)               /* munmap(NULL, cap) would unmap [0, cap) */
		return;
	if (cap >= LP_BIGBUF_MIN)
		munmap(buf, cap);
	else
		free(buf);
}
