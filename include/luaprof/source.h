/* Part of include/luaprof/: the core's interface to the layer above it (lua/). */
/*
 * source.h - a source of records: the seam between what reads records (a
 * live run, a perf.data file, the recording tee that writes a live run's
 * records as they pass) and the loop that hands them to a script.
 *
 * A source is a table of functions and the context they are called with.
 * Its maker owns ctx and what it points to: the loop only borrows the
 * source for the time it runs and never frees ctx; the maker frees it after
 * the loop, as its constructor's contract says.  A source is used from one thread.
 *
 * Errors come back as the core's are (err.h): next and next_ref return a
 * negative errno, and where the source words why, the message is in
 * lp_last_error() (each maker's contract says whether it does).  A
 * source never prints: a warning that stops nothing goes through lp_log()
 * at LP_WARN, to the program's log hook.
 */
#ifndef LUAPROF_SOURCE_H
#define LUAPROF_SOURCE_H

#include <stdint.h>

#include "luaprof/record.h"

struct lp_tp_format;

/* Where records come from: a live run, a recording, or a tee of either. */
struct lp_source {
	void *ctx;
	/* The next record in time order, copied into *rec (its payload,
	 * rec->raw, valid until the next call), with its event's index in
	 * *event (-1: none, e.g. a record not of a sample).  Returns 1 with
	 * a record, 2 with none when an alarm set by the loop went off (a
	 * live run's lp_live_set_alarm), 3 with none when the fd of watch is
	 * readable, 0 at the end, -errno on failure.  NULL when next_ref
	 * is set. */
	int (*next)(void *ctx, struct lp_record *rec, int *event);
	/* Asks the source to end: next returns 0 once it has handed on what
	 * it must (a live run drains what the kernel wrote; a replay ends at
	 * once). */
	void (*stop)(void *ctx);
	/* The name of event index idx (from next), or NULL for an index of no
	 * event (so that 0, 1, ... until NULL lists them).  The string is the
	 * source's, valid while it lives. */
	const char *(*event_name)(void *ctx, int idx);
	/* The tracepoint format of event idx: NULL for other events, or when
	 * none is known (a live source says why through lp_log, at LP_WARN).
	 * Asked once per event, at its first sample; the format is the
	 * source's, valid while it lives.  NULL when the source has none. */
	const struct lp_tp_format *(*event_format)(void *ctx, int idx);
	/* The PERF_SAMPLE_* bits of event idx's samples (what they carry),
	 * all bits set for an index of no event; asked at each event's first
	 * sample and for each switch record, so it must be a lookup.  NULL
	 * when the source has none. */
	uint64_t (*sample_type)(void *ctx, int idx);
	/* Watch fd (-1: none) for input while waiting for records (next then
	 * returns 3); NULL when the source cannot (a replay). */
	void (*watch)(void *ctx, int fd);
	/* When not NULL, used instead of next: the same without a copy, *rec
	 * valid until the next call. */
	int (*next_ref)(void *ctx, const struct lp_record **rec, int *event);
};

#endif
