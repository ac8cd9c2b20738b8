/* Part of include/luaprof/: the core's interface to the layer above it (lua/). */
/*
 * perfdata.h - reading and writing perf.data, as `perf record` writes it.
 *
 * Reader: both layouts (the seekable file with header, attrs, data and
 * feature sections; and pipe mode, where attrs and features arrive as
 * in-band records).  Records come out one at a time, in time order (buffered
 * between FINISHED_ROUND records as perf does), each with the event it
 * belongs to.  Every offset, size and count read from the file is checked;
 * a bad file ends with an error message naming the file and the offset.
 *
 * Writer: a seekable perf.data that perf report / perf script read.
 */
#ifndef LUAPROF_PERFDATA_H
#define LUAPROF_PERFDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#include "luaprof/record.h"
#include "luaprof/source.h"

struct lp_tp_format;

/* One event (attr) of a recording. */
struct lp_pd_event {
	const char *name;               /* EVENT_DESC name, else derived from type/config */
	struct perf_event_attr attr;    /* as in the file, zero-extended to this size */
	struct lp_format fmt;
	const uint64_t *ids;
	size_t nr_ids;
	const struct lp_tp_format *format;  /* a tracepoint's, from the recording's
					     * TRACING_DATA (never this machine's
					     * tracefs); NULL when none */
};

struct lp_pd_build_id {
	const char *path;
	uint8_t id[20];
	uint8_t size;
	int32_t pid;                    /* -1 for the kernel/host, as perf writes */
	uint16_t cpumode;               /* PERF_RECORD_MISC_KERNEL, _USER, _GUEST_*; 0 = unknown
					 * (the writer then guesses from the path) */
};

/* Header facts; NULL / 0 when the file does not have them. */
struct lp_pd_info {
	const char *hostname, *os_release, *perf_version, *arch;
	const char **cmdline;           /* argv, nr_cmdline entries */
	size_t nr_cmdline;
	uint32_t nr_cpus_online, nr_cpus_avail;
	const struct lp_pd_build_id *build_ids; /* may move when pipe-mode HEADER_BUILD_ID
						 * records arrive: fetch the info again */
	size_t nr_build_ids;
	const char *cpu_desc, *cpuid;   /* CPUDESC, CPUID */
	uint64_t total_mem;             /* TOTAL_MEM, in kB */
};

/* Reader counters, for diagnostics. */
struct lp_pd_stats {
	uint64_t nr_records;            /* records read (inside compressed ones too) */
	uint64_t nr_unknown_id;         /* kernel records skipped: their id names no event */
	uint64_t nr_unordered;          /* queued with a time before the last delivered one */
	uint64_t nr_half_flushes;       /* queue memory cap reached: delivered early */
};

struct lp_perfdata;

/* Opens path ("-" reads a pipe-mode stream from standard input, or any
 * perf.data when standard input is redirected from a file) and reads
 * everything up to the first data record.  Regular files are mapped;
 * other-endian, version-1 ("PERFFILE") and directory (--threads) recordings
 * are refused with a message saying so.  A file cut short inside its data
 * section opens (its records up to the cut are read, then
 * lp_perfdata_next() reports the cut); one cut before its data section
 * does not.  On failure returns NULL with errno set and one line naming
 * the file ("stdin" for "-"), the offset and the problem in
 * lp_last_error() (err.h). */
struct lp_perfdata *lp_perfdata_open(const char *path);

/* Whether to stop waiting for a stream (a pipe, standard input) that has
 * nothing to read: stop(ctx), asked each time a signal interrupts that
 * wait, on the thread that reads.  When it says true, the input ends
 * there, as at its end: lp_perfdata_next() hands out every whole record
 * read so far (in time order, the ones queued for ordering included),
 * then 0; lp_perfdata_open() fails with errno EINTR.  Without it (NULL, the
 * default) a signal never ends the wait.  Process-wide: one for every
 * reader; a mapped file never waits. */
void lp_perfdata_set_stop(bool (*stop)(void *ctx), void *ctx);
void lp_perfdata_close(struct lp_perfdata *pd);

/* Events, valid until close.  In pipe mode more may appear while reading. */
size_t lp_perfdata_nr_events(const struct lp_perfdata *pd);
const struct lp_pd_event *lp_perfdata_event(const struct lp_perfdata *pd, size_t idx);

/* Header facts (complete after open for seekable files; in pipe mode after
 * the in-band feature records, which perf writes before the samples).  A
 * malformed feature section is skipped with an lp_log warning (perf ignores
 * them too); it never fails the open. */
const struct lp_pd_info *lp_perfdata_info(const struct lp_perfdata *pd);

/* The next record in time order.  Returns 1 and fills *rec (borrowed until
 * the next call) and *ev (the event of a SAMPLE, or of a record carrying an
 * id; NULL when none applies), 0 at the end, or a negative errno with its
 * message, one line "FILE: offset N: problem", in lp_last_error() (err.h;
 * "" for an error without one: out of memory outside the reader).  When
 * the input turns bad part-way (a file cut short, a corrupt record), the
 * whole records read before it that were still waiting to be ordered come
 * out first, then the error, which every later call returns again, with
 * its message set again.  Records the reader consumes
 * itself (attrs, features, FINISHED_ROUND, compressed wrappers, ...) are not
 * returned.
 *
 * The order is exactly perf script's (perf 6.1 ordered_events): kernel
 * records with a time are queued and released at each FINISHED_ROUND up to
 * the largest time seen before the previous round, sorted by time (file
 * order for equal times), the rest at the end; records with time 0 or none
 * (synthesized MMAP/COMM, records without sample_id_all) come at once, in
 * file order.  A file whose first event has no sample_id_all is delivered
 * in file order, as perf does.  Records are matched to events like perf's
 * evlist__event2evsel; a kernel record whose id names no event is skipped
 * and counted (perf stops there).  Returned without an event: perf's
 * AUXTRACE_ERROR, STAT_CONFIG, STAT, STAT_ROUND and unknown user types.
 * Not done here, as perf script does after reading: one delivery per group
 * member for PERF_SAMPLE_READ group samples, and hiding guest samples. */
int lp_perfdata_next(struct lp_perfdata *pd, struct lp_record *rec,
		     const struct lp_pd_event **ev);

/* lp_perfdata_next without the copy: *rec points at the record where the
 * reader keeps it (reading ahead: in its batch), valid until the next
 * call.  Returns as lp_perfdata_next. */
int lp_perfdata_next_ref(struct lp_perfdata *pd, const struct lp_record **rec,
			 const struct lp_pd_event **ev);

/* Hands the records out in file order from now on, not time order: for a
 * caller whose results cannot depend on their order (a count by fields of
 * the sample itself), which then saves the queueing and sorting, about a
 * tenth of a replay that does little else per record.  The records are
 * the same ones.  Only before the first record is read and before
 * lp_perfdata_read_ahead: -EALREADY after.  Returns 0. */
int lp_perfdata_unordered(struct lp_perfdata *pd);

/* Reads ahead from now on: the records are read, decoded and ordered on a
 * thread of its own, into a bounded queue of batches (about 5.4 MiB,
 * allocated here, none per record), while the caller handles the records
 * before them.  lp_perfdata_next then returns exactly what it would have
 * without the thread, in the same order, errors included; the events and
 * the header facts change only while the caller waits in it (the thread
 * waits for that before a record that changes them), so they may be read
 * between calls as before.  A mapped (regular) file only: input read as a
 * stream is refused with -ESPIPE and stays read by the caller.  Returns 0,
 * -EALREADY, -ESPIPE, -ENOMEM or another -errno from pthread_create.
 * lp_perfdata_close stops the thread. */
int lp_perfdata_read_ahead(struct lp_perfdata *pd);

/* How far the reader is: the offset of the next unread byte (reading
 * ahead: as of the records handed out), and where the records end (0 when
 * unknown: a pipe). */
void lp_perfdata_progress(const struct lp_perfdata *pd, uint64_t *done, uint64_t *total);

/* Counters so far; valid until close. */
const struct lp_pd_stats *lp_perfdata_stats(const struct lp_perfdata *pd);

struct lp_pd_writer;

/* Whether a recording may be written at path: 0 when path is absent or
 * a regular file (through symbolic links) and, when path would be kept as
 * path.old (anything but an empty regular file), path.old is absent, a
 * regular file or a symbolic link, which perf too replaces.  -EEXIST when
 * something else is in the way (a directory, a device, a FIFO, a socket:
 * writing or renaming over it would destroy it), with *old true when it
 * is path.old and *mode its type (st_mode); another -errno when it cannot
 * be told (EACCES, ENOMEM). */
int lp_pd_writer_check(const char *path, bool *old, mode_t *mode);

/* A writer of a recording meant for path that leaves path and path.old as
 * they are until lp_pd_writer_place: the file is made in path's directory
 * (mode 0600) with no name, or a name of its own (path.tmp.XXXXXX) where
 * the file system cannot do without one.  path is checked first
 * (lp_pd_writer_check).  NULL and errno on failure (EEXIST: see
 * lp_pd_writer_check; ENOENT, EACCES, EROFS: of the directory). */
struct lp_pd_writer *lp_pd_writer_create(const char *path);

/* Puts the file at its path, once the run it records has started: an
 * existing path becomes path.old, as perf keeps it (an empty regular file
 * is replaced instead, so that it does not take the place of an earlier
 * recording kept as path.old), after checking again as lp_pd_writer_check
 * does.  Does nothing for a pipe or a file already placed.  0 or -errno;
 * on failure the file stays unnamed (lp_pd_writer_discard it). */
int lp_pd_writer_place(struct lp_pd_writer *w);

/* Throws away a writer whose file was never placed: the file goes, and
 * nothing at its path was ever changed.  A placed writer (or a pipe's) is
 * closed as by lp_pd_writer_close instead.  NULL is accepted. */
void lp_pd_writer_discard(struct lp_pd_writer *w);

/* lp_pd_writer_create and lp_pd_writer_place at once: path is written
 * from the start (an existing file is kept as path.old).  NULL and errno
 * on failure, path then as it was. */
struct lp_pd_writer *lp_pd_writer_open(const char *path);

/* A writer of a pipe-mode stream to fd (perf record -o -'s layout: a
 * 16-byte header, then the events as HEADER_ATTR records, the header
 * facts as HEADER_FEATURE records and the tracepoint formats as a
 * HEADER_TRACING_DATA record before the first record; no build-ids, as
 * perf writes none there).  Facts and tracing data must be set before the
 * first record; lp_pd_writer_close() closes fd.  NULL and errno on
 * failure (fd is left open then). */
struct lp_pd_writer *lp_pd_writer_open_pipe(int fd);

/* Declares an event before the first record: its attr, name and the ids
 * its fds were given (PERF_EVENT_IOC_ID).  Returns 0 or -errno. */
int lp_pd_writer_add_event(struct lp_pd_writer *w, const struct perf_event_attr *attr,
			   const char *name, const uint64_t *ids, size_t nr_ids);

/* Sets header facts written at close (strings copied; in pipe mode, at
 * the first record).  Returns 0 or -errno (a failed write of the
 * writer's before it stays the answer). */
int lp_pd_writer_set_info(struct lp_pd_writer *w, const struct lp_pd_info *info);

/* Appends one raw record (header.size bytes) to the data section.  Readers
 * sort by time at the end of the file unless the caller also writes perf's
 * FINISHED_ROUND records (type 68, 8 bytes) between rounds.  Returns 0 or
 * -errno (-EINVAL for a malformed record; a failed write stays the
 * answer of every later call). */
int lp_pd_writer_write(struct lp_pd_writer *w, const void *rec);

/* Sets the TRACING_DATA feature (lp_tdata_build's block, copied): the
 * tracepoint formats perf needs to decode the samples' raw data.  Returns 0
 * or -errno. */
int lp_pd_writer_set_tracing_data(struct lp_pd_writer *w, const void *data, size_t len);

/* Adds a build-id entry for an object that got samples (path < 4096
 * bytes).  Returns 0 or -errno (-EINVAL for a longer path). */
int lp_pd_writer_add_build_id(struct lp_pd_writer *w, const struct lp_pd_build_id *b);

/* Writes the attrs, feature sections and final header, and closes the file
 * (placing it first when that was not done: lp_pd_writer_place; a file that
 * cannot be placed is discarded, and its -errno returned).
 * Returns 0 or -errno; the writer is freed either way.  After a failed
 * write (a full disk) the file is cut after its last whole record on disk
 * and gets a header without features, which perf reads; a file whose
 * attrs were not written whole is removed.  Either is said with lp_log. */
int lp_pd_writer_close(struct lp_pd_writer *w);

/* ---- a recording as a source of records (source.h) ---- */

/* What the replay's user adds to the source, all called from next. */
struct lp_pd_source_hooks {
	/* Asked before each record is read (the caller's progress line, its
	 * signals and deadline): true ends the replay there, next returning 0.
	 * NULL: never. */
	bool (*halt)(void *ctx);
	/* Handed each build-id entry of the recording once, in order: those
	 * of its header by lp_pd_source_build_ids, those a stream sends later
	 * as they arrive.  0, or -errno, which fails next with it.  NULL:
	 * none wanted. */
	int (*build_id)(void *ctx, const struct lp_pd_build_id *b);
	void *ctx;
};

struct lp_pd_source;

/* pd's records as a source, for the loop (next_ref; no watch): event idx
 * is pd's idx-th, its name, its samples' bits (all bits for an index of
 * no event), and its tracepoint format from the recording's own
 * TRACING_DATA, never this machine's tracefs (a recording made on
 * another kernel decodes as recorded); a tracepoint it holds no format
 * for is said through lp_log at LP_WARN at each ask (the loop asks once
 * per event).  next returns pd's -errno with the message in
 * lp_last_error() (kept for later: lp_pd_source_error), or the build_id
 * hook's -errno, with no message.  pd is borrowed, hooks copied, until
 * lp_pd_source_free.  Fills *out, whose ctx is the returned
 * context.  NULL with errno ENOMEM. */
struct lp_pd_source *lp_pd_source_new(struct lp_perfdata *pd, const struct lp_pd_source_hooks *hooks,
				      struct lp_source *out);

/* Hands the build-id entries read so far, not handed yet, to the hook.
 * 0, or the first -errno it returned. */
int lp_pd_source_build_ids(struct lp_pd_source *ps);

/* The message of next's first failure, kept past later calls into the
 * core, or NULL when it has not failed (or the hook failed it). */
const char *lp_pd_source_error(const struct lp_pd_source *ps);

/* The time from the earliest to the latest sample handed out (0 before
 * two). */
uint64_t lp_pd_source_span(const struct lp_pd_source *ps);

/* Frees the context.  Accepts NULL. */
void lp_pd_source_free(struct lp_pd_source *ps);

/* ---- a tee: a source whose records are also written (source.h) ---- */

/* What the tee's user adds, all called from next. */
struct lp_pd_tee_hooks {
	/* Handed each record the tee wrote (or would have, once failed),
	 * after it: what the caller notes of it (the objects samples landed
	 * in).  0, or -errno, a failure handed to fail.  NULL: nothing. */
	int (*seen)(void *ctx, const struct lp_record *r);
	/* Told each failure (-errno: the writer's, seen's); the caller keeps
	 * the first and says so.  Required. */
	void (*fail)(void *ctx, int err);
	/* Whether the recording has failed (by the tee or otherwise): nothing
	 * more is written then, the records still handed on.  Required. */
	bool (*failed)(void *ctx);
	void *ctx;
};

struct lp_pd_tee;

/* A source that writes every record of inner to w as it hands it on, as
 * the kernel gave it, but for luaprof's own captures (LP_RECORD_CAPTURE),
 * which perf would refuse; the end, an alarm and input pass through.  Its
 * names, formats and sample bits are inner's.  inner (copied), w and
 * hooks' ctx are borrowed until lp_pd_tee_free; inner and *out may be
 * the same.  NULL with errno ENOMEM. */
struct lp_pd_tee *lp_pd_tee_new(const struct lp_source *inner, struct lp_pd_writer *w,
				const struct lp_pd_tee_hooks *hooks, struct lp_source *out);

/* Frees the tee (not inner nor w).  Accepts NULL. */
void lp_pd_tee_free(struct lp_pd_tee *tee);

#endif
