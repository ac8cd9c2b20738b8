/*
 * bigbuf.h - internal: growable buffers whose large sizes live in their own
 * anonymous mappings, with transparent huge pages asked for.
 *
 * Filling fresh memory costs one page fault per 4 KiB page touched, and a
 * fault is a trap into the kernel (slow under virtualization); a 2 MiB huge
 * page is one fault.  A buffer smaller than LP_BIGBUF_MIN bytes is ordinary
 * malloc memory; from that size on it is an mmap aligned to 2 MiB and
 * marked MADV_HUGEPAGE (where THP is off the kernel ignores the advice and
 * uses 4 KiB pages: only slower).  Pages are touched, so paid for, only
 * when written, but a huge page is paid for whole: reserving more than is
 * used costs address space, and up to 2 MiB of memory.  The kind of storage follows from the capacity, so a caller keeps
 * just the pointer and the capacity.
 */
#ifndef LP_BIGBUF_H
#define LP_BIGBUF_H

#include <stddef.h>

#define LP_BIGBUF_MIN ((size_t)1 << 20)

/* Makes the buffer *buf of capacity *cap bytes (NULL and 0 for none yet)
 * hold at least need bytes, keeping its first *cap bytes; a buffer that is
 * large enough already is left alone.  The new capacity may exceed need.
 * Returns 0, or -ENOMEM with *buf and *cap unchanged. */
int lp_bigbuf_reserve(void **buf, size_t *cap, size_t need);

/* Takes back the huge-page advice of a buffer of capacity cap made by
 * lp_bigbuf_reserve, before it is written: its pages are then paid for
 * 4 KiB at a time, as touched (no effect on a malloc one).  For memory
 * that is often only partly used. */
void lp_bigbuf_small(void *buf, size_t cap);

/* Frees a buffer made by lp_bigbuf_reserve with its capacity (NULL is
 * fine). */
void lp_bigbuf_free(void *buf, size_t cap);

#endif
