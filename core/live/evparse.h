/*
 * evparse.h - internal to core/live/: the parts of the -e syntax
 * (evparse.c: the list and groups; evpmu.c: PMU events and per-event terms;
 * evitem.c: one plain item, tracepoints; evcache.c: raw and cache events;
 * evprobe.c: probes and watchpoints; evspecs.c: the list of specs).  Each
 * file calls only those after it in that order (evparse.c's comment).
 *
 * Each form's parser appends to the list and returns 0, or returns -errno
 * with one line in lp_last_error() and leaves the list as it found it.
 */
#ifndef LP_EVPARSE_H
#define LP_EVPARSE_H

#include <stdbool.h>
#include <stddef.h>

#include "luaprof/event.h"

/* A new zeroed spec at the end of l (callchain -1: the run's), or NULL
 * (evspecs.c). */
struct lp_event_spec *lp_evparse_push(struct lp_event_list *l);

/* Drops the specs after the first keep (freeing what they own). */
void lp_evparse_truncate(struct lp_event_list *l, size_t keep);

/* Applies perf's modifiers (u, k, p, pp, ppp, P) to e.  0 or -EINVAL
 * (event.c). */
int lp_event_modifiers(const char *mods, struct lp_event_spec *e);

/* One item without its terms: a named event, raw, cache or PMU-less form,
 * a probe, or a tracepoint (evitem.c). */
int lp_evparse_item(struct lp_event_list *l, const char *item);

/* "rNNNN[:mods]" and the generic cache events ("L1-dcache-load-misses[:u]")
 * (evcache.c): 1 when item is not one of them (nothing added), else 0 or
 * -errno. */
int lp_evparse_raw_cache(struct lp_event_list *l, const char *item);

/* "BASE/terms/[mods]" (evpmu.c): a PMU's event when BASE names a PMU,
 * else BASE's event(s) with perf's common terms.  0 or -errno. */
int lp_evparse_terms(struct lp_event_list *l, const char *item);

/* Whether item is one of the probe forms (uprobe:, uretprobe:, usdt:,
 * kprobe:, kretprobe:, mem:), whose text may hold slashes (paths)
 * (evitem.c). */
bool lp_evparse_is_probe(const char *item);

/* A probe or watchpoint (evprobe.c).  0 or -errno. */
int lp_evparse_probe(struct lp_event_list *l, const char *item);

#endif
