/*
 * record.h - internal to lua/: keeping a recording of a live run (luaprof
 * record, or run -o FILE) in perf.data format that perf reads.
 */
#ifndef LP_RECORD_H
#define LP_RECORD_H

#include "lp.h"
#include "luaprof/live.h"
#include "luaprof/source.h"

struct lp_recording;

/* For -o -: takes standard output for the stream (refused, with a line,
 * when it is a terminal), and points standard output at standard error
 * for everything else.  Call it before the script is loaded.  0, or -1
 * after a line. */
int lp_recording_take_stdout(void);

/* Whether -o path may be written (lp_pd_writer_check): "-", a new file or
 * an existing regular file, and no directory, device, FIFO or socket at
 * path.old when path would be kept there.  Call it before anything starts.
 * 0, or -1 after one line. */
int lp_recording_check(const char *path);

/* Starts the recording of path, written where no one sees it until
 * lp_recording_place ("-": the stream on the standard output
 * lp_recording_take_stdout took, in pipe mode), and declares the run's
 * events (nr_events of them, named as in events, as opened in lv).  argv
 * is luaprof's command line, for the CMDLINE feature.  procs is the run's
 * process model, borrowed until lp_recording_close(): the recording adds
 * the kernel's text map to it and reads it to tell which object each
 * sample landed in, so every record the source hands on must be applied
 * to it (as lp_run_loop does) before the next is read.  NULL after
 * printing one line on failure. */
struct lp_recording *lp_recording_open(const char *path, struct lp_live *lv,
				       struct lp_procs *procs, const struct lp_event_spec *events,
				       size_t nr_events, int argc, char **argv);

/* Puts the recording at its path once the run has really started (the
 * command's exec done, the events of -p or -a enabled): an existing file
 * becomes path.old, as perf keeps it.  Until then path and path.old are
 * untouched, so that a run that never starts changes neither.  Nothing
 * to do for a stream.  0, or -1 after one line. */
int lp_recording_place(struct lp_recording *rec);

/* Writes r, a record made up from /proc for what existed before the run
 * (lp_procfs_scan's COMM, FORK, MMAP2), as perf record writes its
 * synthesized records: time 0, so that readers put it before every sample,
 * and the sample_id trailer the events declare.  Call it before the first
 * record of the live source.  A failure is reported by
 * lp_recording_close(). */
void lp_recording_synth(struct lp_recording *rec, const struct lp_record *r);

/* A source that writes every record of inner to the recording, notes the
 * object of each sample, then hands it on (the tee of pdtee.c, freed with
 * rec).  A failure to write is said at once, as "writing FILE failed:
 * ... (the run goes on; the recording stops here)", and the run goes
 * on.  inner is copied (it and *out may be the same); the returned
 * source borrows rec.  0, or -1 after a line (out of memory). */
int lp_recording_source(struct lp_recording *rec, const struct lp_source *inner,
			struct lp_source *out);

/* Adds the build-ids perf record would (the objects samples landed in,
 * the kernel's when a kernel sample fell in its text, [vdso]'s when it was
 * mapped), writes the header, closes and frees rec.  Then, when cache is
 * true and the file was written, puts those objects into perf's build-id
 * cache as perf record does (lp_bidcache_add); a cache that cannot be
 * written gets one notice line and does not fail the recording.  Returns
 * 0, or -1 after printing a line (the first failure is printed when it
 * happens; a file whose writing failed is cut after its last whole record,
 * or removed when nothing usable was written).  A recording never placed
 * (the run did not start) is thrown away instead, its path untouched: 0. */
int lp_recording_close(struct lp_recording *rec, bool cache);

#endif
