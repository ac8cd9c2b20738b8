/* Part of include/luaprof/: the core's interface to the layer above it (lua/). */
/*
 * ring.h - one perf mmap ring buffer, read through a cursor.
 *
 *   lp_ring_begin()    snapshot the kernel's head (acquire)
 *   lp_ring_next()     the next whole record, or NULL at the snapshot's end
 *   lp_ring_consume()  hand everything read so far back to the kernel
 *                      (release store of the tail)
 *
 * A record that wraps around the end of the buffer is copied into the ring's
 * own scratch buffer, so lp_ring_next() always returns contiguous bytes;
 * they are valid until the next lp_ring_next() or lp_ring_consume().
 */
#ifndef LUAPROF_RING_H
#define LUAPROF_RING_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

struct lp_ring;

/* Maps the ring of perf event fd: one control page plus data_pages (a power
 * of two) data pages.  NULL and errno on failure (EPERM/ENOMEM from mmap
 * when the size exceeds perf_event_mlock_kb).  The fd stays the caller's. */
struct lp_ring *lp_ring_mmap(int fd, size_t data_pages);

/* A ring over caller memory laid out as the kernel lays it out: a
 * perf_event_mmap_page followed, data_offset bytes from its start, by
 * data_size (a power of two) bytes.  For tests and replays; mem stays the
 * caller's and must outlive the ring. */
struct lp_ring *lp_ring_over(void *mem, size_t data_offset, size_t data_size);

/* Unmaps (when mapped) and frees.  Accepts NULL. */
void lp_ring_free(struct lp_ring *r);

/* Snapshots the head; returns the number of unread bytes. */
uint64_t lp_ring_begin(struct lp_ring *r);

/* The next record up to the snapshot, or NULL at its end.  A header that
 * cannot be right (size < 8, not 8-aligned, or past the head) sets *err to
 * -EPROTO, skips everything up to the head, and returns NULL. */
const struct perf_event_header *lp_ring_next(struct lp_ring *r, int *err);

/* Releases what lp_ring_next() returned so far to the kernel. */
void lp_ring_consume(struct lp_ring *r);

/* Size of the data area in bytes. */
size_t lp_ring_size(const struct lp_ring *r);

#endif
