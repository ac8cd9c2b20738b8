/*
 * replay.h - internal to lua/: a script over a recording.
 */
#ifndef LP_REPLAY_H
#define LP_REPLAY_H

#include "lp.h"

/* Runs the loaded script over the perf.data at file ("-": a pipe-mode
 * stream on stdin).  duration_ns (-d; 0: none) ends the run that long
 * after it starts, as it ends a live run (on_end, exit 0): the wait for a
 * writer to a named pipe, or the reading at the next record.  Errors are
 * reported on stderr.  Returns the exit status for main(): 0,
 * LP_EXIT_FAILURE, or 128+N when signal N stopped the reading
 * (run->interrupted; on_end still ran). */
int lp_replay(struct lp_run *run, const char *file, uint64_t duration_ns);

#endif
