/*
 * slack.c - the live merge's wait for late records (slack.h).
 */
#include "live/slack.h"

void lp_slack_init(struct lp_slack *s)
{
	*s = (struct lp_slack){ .ns = LP_SLACK_NS };
}

bool lp_slack_note(struct lp_slack *s, uint64_t t)
{
	if (t >= s->last_out) {
		s->last_out = t;
		return false;
	}
	uint64_t behind = s->last_out - t;
	s->late++;
	if (behind > s->max_late_ns)
		s->max_late_ns = behind;
	/* it was written at least the wait and how far behind it is after
	 * its stamp: twice that */
	uint64_t need = behind < LP_SLACK_MAX_NS ? 2 * (s->ns + behind) : LP_SLACK_MAX_NS;
	s->ns = need < LP_SLACK_MAX_NS ? need : LP_SLACK_MAX_NS;
	return true;
}
