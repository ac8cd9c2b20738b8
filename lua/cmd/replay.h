/*
 * replay.h - internal to lua/: a script over a recording.
 */
#ifndef LP_REPLAY_H
#define LP_REPLAY_H

#include "lp.h"

/* Runs the loaded script over the perf.data at file ("-": a pipe-mode
 * stream on stdin).  Errors are reported on stderr.  Returns the exit
 * status for main(): 0, LP_EXIT_FAILURE, or 128+N when signal N stopped
 * the reading (run->interrupted; on_end still ran). */
int lp_replay(struct lp_run *run, const char *file);

#endif
