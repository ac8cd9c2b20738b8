/*
 * slack.h - internal to core/live: how long the live merge waits for a
 * record the kernel writes after a later one, and what came later still.
 *
 * A record is handed out once the clock read before a pass over the rings
 * is more than the slack past its time stamp (live.c): the kernel writes a
 * record soon after stamping it, but a vCPU the host stops between the two
 * can take milliseconds.  A record that comes after one with a later stamp
 * went out is out of order: it is counted (the user is told at the end),
 * and the slack grows to twice what that record needed, up to
 * LP_SLACK_MAX_NS, so that the run's later records are in order again.
 */
#ifndef LP_LIVE_SLACK_H
#define LP_LIVE_SLACK_H

#include <stdbool.h>
#include <stdint.h>

#define LP_SLACK_NS     20000000ull     /* 20 ms: see docs/performance.md */
#define LP_SLACK_MAX_NS 1000000000ull   /* 1 s */

struct lp_slack {
	uint64_t ns;            /* the wait now */
	uint64_t last_out;      /* the newest time stamp handed out */
	uint64_t late;          /* records handed out after a newer one */
	uint64_t max_late_ns;   /* how far behind it, at most */
};

/* Starts with the wait of LP_SLACK_NS, nothing handed out. */
void lp_slack_init(struct lp_slack *s);

/* Notes that the record stamped t goes out now.  Returns true when a
 * record stamped later went out before it (it is then counted, and the
 * wait grown), false when it is in order. */
bool lp_slack_note(struct lp_slack *s, uint64_t t);

#endif
