/*
 * perfdata_int.h - internals shared by the perf.data reader and writer
 * (perfdata.c, pderror.c, pdsrc.c, pdevents.c, pdpipe.c, pdfeat.c, pdcomp.c,
 * pdorder.c, pdwrite.c, pdplace.c).  Nothing here is public API.
 *
 * The reader is a pull pipeline:
 *
 *   pdsrc (buffered reads of a file or a pipe) --> pdcomp (zstd inner stream)
 *     --> perfdata.c dispatch: user records (pdpipe/pdfeat) are consumed,
 *         kernel records get their event (pdevents) and time
 *     --> pdorder (perf's ordered_events: queue, flush per FINISHED_ROUND)
 *     --> lp_perfdata_next()
 *
 * Invariants:
 *  - every record handed between stages is whole (header.size bytes, at
 *    least 8), lies at an 8-byte aligned address, and carries the file
 *    offset it came from (for errors);
 *  - a record read from the input lies in a chunk of the order arena
 *    (pdorder.c), which the source fills directly: the order queue keeps
 *    it there, holding a reference on its chunk, and never copies it; a
 *    record elsewhere (decompressed data, a realigned copy) is valid only
 *    until the next fetch, so the queue copies that one into the arena;
 *  - every size or count read from the file is checked against the bytes
 *    that are really there before it is used or multiplied.
 */
#ifndef LP_PERFDATA_INT_H
#define LP_PERFDATA_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "luaprof/perfdata.h"

struct lp_strtab;

/* perf's own record types (tools/perf/util/event.h), ABI of perf.data. */
enum {
	PD_HEADER_ATTR = 64,
	PD_HEADER_EVENT_TYPE = 65,
	PD_HEADER_TRACING_DATA = 66,
	PD_HEADER_BUILD_ID = 67,
	PD_FINISHED_ROUND = 68,
	PD_ID_INDEX = 69,
	PD_AUXTRACE_INFO = 70,
	PD_AUXTRACE = 71,
	PD_AUXTRACE_ERROR = 72,
	PD_EVENT_UPDATE = 78,
	PD_HEADER_FEATURE = 80,
	PD_COMPRESSED = 81,
	PD_FINISHED_INIT = 82,
	PD_COMPRESSED2 = 83,
};

/* Feature bits (HEADER_* in perf's header.h). */
enum {
	PD_FEAT_TRACING_DATA = 1,
	PD_FEAT_BUILD_ID = 2,
	PD_FEAT_HOSTNAME = 3,
	PD_FEAT_OSRELEASE = 4,
	PD_FEAT_VERSION = 5,
	PD_FEAT_ARCH = 6,
	PD_FEAT_NRCPUS = 7,
	PD_FEAT_CPUDESC = 8,
	PD_FEAT_CPUID = 9,
	PD_FEAT_TOTAL_MEM = 10,
	PD_FEAT_CMDLINE = 11,
	PD_FEAT_EVENT_DESC = 12,
	PD_FEAT_COMPRESSED = 27,
	PD_FEAT_BITS = 256,
};

/* build-id entries whose header.misc has this bit carry a size byte */
#define PD_MISC_BUILD_ID_SIZE (1u << 15)
/* perf pads header strings to this */
#define PD_NAME_ALIGN 64
/* perf_file_header: magic, size, attr_size, attrs, data, event_types,
 * adds_features[4] */
#define PD_HEADER_SIZE 104
#define PD_HEADER_SIZE_V0 72 /* before adds_features */
#define PD_PIPE_HEADER_SIZE 16
#define PD_MAGIC "PERFILE2"

static inline uint64_t pd_align8(uint64_t x)
{
	return (x + 7) & ~(uint64_t)7;
}

static inline uint64_t pd_u64(const void *p)
{
	uint64_t v;

	__builtin_memcpy(&v, p, sizeof v);
	return v;
}

static inline uint32_t pd_u32(const void *p)
{
	uint32_t v;

	__builtin_memcpy(&v, p, sizeof v);
	return v;
}

/* ---- byte source (pdsrc.c) ---------------------------------------------- */

#define PD_NO_CHUNK UINT32_MAX

struct pd_src {
	const uint8_t *map;     /* whole file when mapped, else NULL */
	size_t map_len;
	int fd;                 /* the fd records are read from */
	bool own_fd;
	uint8_t *buf;           /* the arena chunk being filled (PD_CHUNK_SIZE
				 * bytes): unread bytes are buf[head, len) */
	uint32_t chunk;         /* its index, PD_NO_CHUNK before the first */
	size_t head, len;
	uint8_t *scratch;       /* aligned copy of an unaligned record */
	uint64_t pos;           /* file offset of the next unread byte */
	uint64_t end;           /* offset where records end (stream: UINT64_MAX) */
	uint64_t data_end;      /* where the header says they end: beyond end when
				 * the file is cut short (mapped only, else = end) */
	bool eof;               /* stream: read(2) returned 0 */
	bool unclosed;          /* a file whose writer never finished it: its
				 * records run to the end, where a cut one ends
				 * them */
};

/* One whole raw record. */
struct pd_rec {
	const struct perf_event_header *h;
	uint64_t off;           /* file offset (compressed: of the wrapper) */
	bool inner;             /* came out of a compressed record */
	uint32_t chunk;         /* the arena chunk h lies in, else PD_NO_CHUNK */
};

struct lp_perfdata;

int pd_src_open(struct lp_perfdata *pd, const char *path);
void pd_src_close(struct pd_src *s);
/* Copies n bytes at the current position and advances; -EPROTO when fewer
 * are left. */
int pd_src_read(struct lp_perfdata *pd, void *dst, size_t n);
/* The next record: 1 and *r, 0 at a clean end, or -errno (error set). */
int pd_src_next(struct lp_perfdata *pd, struct pd_rec *r);
/* Skips n payload bytes that follow the record just fetched. */
int pd_src_skip(struct lp_perfdata *pd, uint64_t n, const char *what);
/* Copies them into *out instead (malloc'd; the caller frees it). */
int pd_src_take(struct lp_perfdata *pd, uint64_t n, const char *what, uint8_t **out);

/* ---- zstd inner stream (pdcomp.c) -------------------------------------- */

struct pd_comp;
/* Decompresses a COMPRESSED/COMPRESSED2 record into the inner stream. */
int pd_comp_feed(struct lp_perfdata *pd, const struct pd_rec *r);
/* The next whole record of the inner stream: 1, or 0 when it needs more. */
int pd_comp_next(struct lp_perfdata *pd, struct pd_rec *r);
/* Bytes left over at the end of the file (a partial inner record). */
size_t pd_comp_pending(const struct pd_comp *c);
void pd_comp_free(struct pd_comp *c);

/* ---- time ordering (pdorder.c) ----------------------------------------- */

struct pd_oe {
	uint64_t time;
	const void *rec;
	uint64_t off;
	uint32_t ev;
	uint32_t chunk;         /* arena chunk the record lies in */
};

/* Arena chunks: 256 KiB slices of 2 MiB slabs (the first in small
 * pages and kept to the end, the others huge pages), each with a count
 * of references (queued records, and the source or the copier filling
 * it); a chunk's slice is given back when its count drops to 0, and a
 * slab with no slice in use is freed, but for PD_SPARE_SLABS kept for
 * reuse (pdorder.c). */
#define PD_CHUNK_SIZE ((size_t)256 << 10)
#define PD_SLAB_SIZE ((size_t)2 << 20)
#define PD_SLAB_CHUNKS (PD_SLAB_SIZE / PD_CHUNK_SIZE)
_Static_assert(PD_SLAB_CHUNKS <= 8, "pd_slab.busy has a bit per slice");
#define PD_SPARE_SLABS 1

struct pd_slab {
	uint8_t *mem;           /* NULL: free slot */
	uint8_t busy;           /* a bit per slice in use */
};

struct pd_chunk {
	uint8_t *mem;           /* NULL: free slot */
	size_t used;            /* bytes taken by the copier (its own chunks) */
	size_t refs;
};

struct pd_order {
	struct pd_oe *q;        /* pending: [head, sorted) in order, [sorted, n) new */
	size_t head, sorted, n, cap;
	struct pd_oe *tmp;
	size_t tmp_cap;
	bool new_in_order;      /* [sorted, n) is already in time order */
	bool flushing;          /* delivering entries with time <= limit */
	uint64_t limit;
	uint64_t next_flush;    /* perf's oe->next_flush */
	uint64_t max_ts;        /* perf's oe->max_timestamp */
	uint64_t last_flush;    /* time of the last entry delivered */
	struct pd_chunk *chunks;
	size_t nr_chunks;
	uint32_t cur;           /* the chunk records are copied into, or PD_NO_CHUNK */
	struct pd_slab *slabs;  /* the chunks' memory */
	size_t nr_slabs;
	uint32_t release;       /* chunk of the last delivered entry */
	size_t bytes;           /* arena chunks allocated */
	size_t max_bytes;       /* cap on arena + pending entries */
	struct lp_pd_stats *stats;  /* nr_unordered, nr_half_flushes counted here */
};

void pd_order_init(struct pd_order *o, size_t max_bytes, struct lp_pd_stats *stats);
void pd_order_free(struct pd_order *o);
/* A new chunk with one reference (the caller's): 0 and *idx, or -ENOMEM. */
int pd_chunk_new(struct pd_order *o, uint32_t *idx);
/* Its memory, PD_CHUNK_SIZE bytes. */
uint8_t *pd_chunk_mem(const struct pd_order *o, uint32_t idx);
/* Drops a reference; the chunk goes when none is left. */
void pd_chunk_put(struct pd_order *o, uint32_t idx);
/* Queues a record: in place when it lies in a chunk (one more reference
 * on it), else a copy in the arena.  -ENOMEM. */
int pd_order_queue(struct pd_order *o, uint64_t time, const struct pd_rec *r,
		   uint32_t ev);
/* FINISHED_ROUND: releases everything up to the previous round's max. */
int pd_order_round(struct pd_order *o);
/* End of input: releases everything. */
int pd_order_final(struct pd_order *o);
/* 1 and *e when an entry is due, else 0.  e->rec stays valid until the
 * next pd_order_release(). */
int pd_order_pop(struct pd_order *o, struct pd_oe *e);
/* Drops the reference on the chunk of the entry popped last; inline, as
 * the reader asks for every record and there is mostly none (file order,
 * records delivered at once). */
static inline void pd_order_release(struct pd_order *o)
{
	if (o->release != PD_NO_CHUNK) {
		pd_chunk_put(o, o->release);
		o->release = PD_NO_CHUNK;
	}
}

/* ---- events (pdevents.c) ------------------------------------------------ */

struct pd_idmap {
	uint64_t *keys;
	uint32_t *vals;         /* event index + 1; 0 = empty slot */
	size_t cap, n;
};

/* Adds an event from an on-file attr of attr_len bytes (zero-extended) and
 * its ids.  Returns the index or -errno (error set). */
int pd_event_add(struct lp_perfdata *pd, const void *attr, size_t attr_len,
		 const uint8_t *ids, size_t nr_ids, uint64_t off);
/* Sets the name of event idx unless it has one (force: always). */
int pd_event_set_name(struct lp_perfdata *pd, size_t idx, const char *name,
		      size_t len, bool force);
/* The event with this id, or -ENOENT. */
int pd_event_by_id(const struct lp_perfdata *pd, uint64_t id);
/* perf's evlist__event2evsel: the event of a kernel record, -ENOENT for an
 * unknown id, -EPROTO when the record is too short to hold the id. */
int pd_event_of(const struct lp_perfdata *pd, const struct perf_event_header *h);
void pd_events_free(struct lp_perfdata *pd);

/* ---- features and in-band header records (pdfeat.c, pdpipe.c) ---------- */

/* Parses the payload of feature feat: [p, p + len) read from file offset
 * off.  Unknown features are ignored.  Returns 0 or -errno (error set). */
int pd_feat_parse(struct lp_perfdata *pd, unsigned feat, const uint8_t *p,
		  size_t len, uint64_t off);
/* The feature section table of a seekable file. */
int pd_feat_read_sections(struct lp_perfdata *pd, const uint64_t bits[4],
			  uint64_t table_off);
/* A TRACING_DATA block (feature section or pipe payload): its formats go
 * to pd->formats and to the tracepoint events.  A malformed block is
 * warned about and its good formats kept; returns 0 or -ENOMEM (error set). */
int pd_feat_tracing(struct lp_perfdata *pd, const uint8_t *p, size_t len, uint64_t off);
/* Points every tracepoint event at its format, where one is known. */
void pd_events_link_formats(struct lp_perfdata *pd);
/* One build-id entry (feature entry or HEADER_BUILD_ID record). */
int pd_feat_build_id(struct lp_perfdata *pd, const uint8_t *p, size_t len, bool quirk);

/* Consumes a perf user record (type >= 64).  Returns 0 when consumed, 1
 * when the caller should return it to the user, or -errno. */
int pd_user_record(struct lp_perfdata *pd, const struct pd_rec *r);
/* True for the in-band header records read at open in pipe mode. */
bool pd_is_header_record(uint32_t type);

/* ---- reading ahead on a thread (pdahead.c) ----------------------------- */

struct pd_ahead;
/* pdread.c: the reader's own loop, lp_perfdata_next without a thread: run by the
 * thread once there is one, by the caller otherwise. */
int pd_read_next(struct lp_perfdata *pd, struct lp_record *rec, const struct lp_pd_event **ev);
/* pdread.c: an error err in the input ends the reading; true when the
 * records queued before it are delivered first (then the error). */
bool pd_drain(struct lp_perfdata *pd, int err);
/* lp_perfdata_next_ref once the thread runs: the records it read, in
 * order, where they lie in the batches. */
int pd_ahead_next(struct lp_perfdata *pd, const struct lp_record **rec,
		  const struct lp_pd_event **ev);
/* The source's offset as of the records handed out. */
uint64_t pd_ahead_progress(const struct lp_perfdata *pd);
/* Stops and joins the thread, frees its batches; nothing without one. */
void pd_ahead_stop(struct lp_perfdata *pd);

/* ---- the reader object (perfdata.c) ------------------------------------ */

struct lp_perfdata {
	char *path;             /* as messages show it (lp_show): they alone use it */
	char *failmsg;          /* the first error's message, given again with it */
	int failed;             /* sticky -errno once an error was reported */
	bool draining;          /* failed, but records queued before it still go out */
	bool pipe, eof, ordered;
	bool started;           /* a record was asked for (lp_perfdata_unordered) */
	struct pd_src src;
	struct pd_comp *comp;
	uint32_t comp_mmap_len; /* HEADER_COMPRESSED mmap_len, 0 when absent */

	struct lp_pd_event **evs;
	size_t nr_evs, cap_evs;
	struct pd_idmap ids;
	size_t nr_ids_total;
	int id_pos, is_pos;     /* perf's id positions, from the first event */

	struct lp_strtab *strs;
	struct lp_tp_set *formats;      /* from TRACING_DATA, NULL before */
	struct lp_pd_info info;
	struct lp_pd_build_id *bids;
	size_t cap_bids;
	const char **cmdline;

	struct pd_rec pending;  /* first data record, read by open */
	bool has_pending;
	struct pd_order order;
	struct lp_pd_stats stats;
	struct lp_format nofmt; /* for user records */
	struct pd_ahead *ahead; /* the thread reading ahead, or NULL */
	/* Set by pdahead.c while a thread reads ahead, else NULL: called on
	 * the thread before a record that changes the header (so the record
	 * code needs no link to the thread's): waits until the caller has
	 * taken every record before it and waits for more; 0, or -ECANCELED
	 * when the reader is being closed. */
	int (*barrier)(struct lp_perfdata *pd);
	struct lp_record cur;   /* lp_perfdata_next_ref's record without it */
};

#define PD_NO_OFF UINT64_MAX
#define PD_USER_TYPE_START 64

/* ---- errors and strings (pderror.c) ----------------------------------- */

/* Words the first error as "PATH: offset OFF: message" (no offset part
 * for PD_NO_OFF) with lp_err, keeps a copy for the calls that return it
 * again, and returns err, a negative errno.  Later errors do not
 * replace it: their message is the first one's. */
int pd_error(struct lp_perfdata *pd, uint64_t off, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Sets lp_last_error() again for err returned to the caller: the first
 * error's message, or "" when the reader has not failed (an error of no
 * message).  Returns err.  The message thus crosses from the read-ahead
 * thread, where it was worded, to the caller's. */
int pd_error_again(const struct lp_perfdata *pd, int err);
/* A copy of [s, s + n) up to the first NUL, owned by pd; NULL on ENOMEM. */
const char *pd_strdup(struct lp_perfdata *pd, const void *s, size_t n);

/* Caps that bound what a hostile file can make the reader allocate. */
#define PD_MAX_EVENTS 65536
#define PD_MAX_IDS (4u << 20)
#define PD_MAX_BUILD_IDS (1u << 20)
#define PD_MAX_PAYLOAD (1ull << 30)   /* AUXTRACE / tracing data skipped */
#define PD_MAX_QUEUE_BYTES (1ull << 30)  /* then perf's half flush */

/* ---- where a written file goes (pdplace.c) ---------------------------- */

/* Opens the file a recording meant for path is written to until it is
 * placed: unnamed in path's directory (O_TMPFILE), or where the file
 * system has no such thing a new PATH.tmp.XXXXXX, whose name goes to *tmp
 * (malloc'd; NULL for an unnamed one).  Mode 0600.  The fd, or -errno (the
 * directory is missing, read-only, not writable). */
int pd_temp_open(const char *path, char **tmp);

/* Puts the file of fd (opened by pd_temp_open, *tmp its name or NULL) at
 * path: an existing path becomes path.old first (see pdplace.c; an empty
 * regular file is replaced), after checking again what lp_pd_writer_check
 * checks.  On success *tmp is freed and set to NULL.  0 or -errno (-EEXIST:
 * something not a regular file is in the way); on failure path is as it
 * was, path.old may have been replaced. */
int pd_place(int fd, char **tmp, const char *path);

/* Removes the named temporary file *tmp, if any, and frees the name. */
void pd_discard(char **tmp);

#endif
