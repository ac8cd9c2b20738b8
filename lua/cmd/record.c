/*
 * record.c - writing a live run to perf.data while it runs.
 *
 * Every record the kernel gives is written as it is, as it passes to the
 * script (the tee of core/perfdata/pdtee.c; they carry the ids the
 * events were opened with, declared in the attrs), so perf report and perf
 * script read the file like one of perf record's.  With tracepoints, the
 * TRACING_DATA feature carries their formats from tracefs, as perf record
 * writes it, so perf script prints their fields.
 *
 * Build-ids, as perf record writes them: one for each object a sample
 * landed in (by the sample's ip alone, not its callchain, as perf 6.1),
 * the kernel's ([kernel.kallsyms], from /sys/kernel/notes) when a kernel
 * sample fell in its text, and [vdso]'s whenever a recorded process mapped
 * it, hit or not.  The objects hit are noted while the records stream past
 * (lp_hits: a flag on the map the sample's ip is in), so only they are
 * opened at the end.
 *
 * Then, unless --no-buildid-cache, those objects go into perf's build-id
 * cache (lp_bidcache_add), as perf record puts them, once the file is
 * complete: perf report finds [vdso] and objects rebuilt since only there.
 *
 * -o - writes a pipe-mode stream to standard output instead, as perf
 * record -o - does (lp_pd_writer_open_pipe): no build-ids and no cache
 * then, as perf writes neither for a pipe.  The stream has standard output
 * to itself: it is moved to a descriptor of its own before anything runs,
 * and standard output then leads to standard error, for the script's
 * output and the command's (perf points its command's there too).
 *
 * -o FILE is checked before anything starts (lp_recording_check): a
 * recording goes to a regular file only, never into a device or a FIFO.
 * It is written where no one sees it until the run has started
 * (lp_recording_place): only then does an existing FILE become FILE.old,
 * so that a command that cannot run destroys no earlier recording.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "luaprof/capture.h"
#include "luaprof/hits.h"
#include "luaprof/perfdata.h"
#include "luaprof/sym.h"
#include "luaprof/luaprof.h"
#include "luaprof/trace.h"
#include "record.h"

struct lp_recording {
	struct lp_pd_writer *w;
	const char *path;       /* as messages name it */
	bool pipe;              /* -o -: a stream on standard output */
	bool placed;            /* the run started: the file is at its path */
	struct lp_pd_tee *tee;  /* the source that writes the records (lp_recording_source) */
	struct lp_format fmt;   /* of the events: the trailer of made-up records */
	uint64_t id;            /* the first event's first id, named by that trailer */
	struct lp_procs *procs; /* the run's model, as of the record being teed */
	struct lp_hits *hits;   /* the objects samples landed in */
	bool vdso;              /* a recorded process mapped [vdso] */
	int err;
};

/* Keeps the first failure, and says at once that the recording failed:
 * the run goes on (the script's output is still good), and close cuts the
 * file after its last whole record. */
static void set_err(struct lp_recording *rec, int err)
{
	if (rec->err || !err)
		return;
	rec->err = err;
	fprintf(stderr, "luaprof: writing %s failed: %s (the run goes on; the recording "
		"stops here)\n", LP_SHOW(rec->path), strerror(-err));
}

/* The kernel text's start (_text) and end (_etext) from kallsyms; false
 * when hidden or unreadable. */
static bool kernel_text(uint64_t *start, uint64_t *end)
{
	static const char *const names[] = { "_text", "_etext" };
	uint64_t addrs[2];

	if (lp_kallsyms_lookup("/proc/kallsyms", names, addrs, 2) != 2 || addrs[1] <= addrs[0])
		return false;
	*start = addrs[0];
	*end = addrs[1];
	return true;
}

/* Writes a record luaprof made up, with the sample_id trailer the events
 * declare: the record's pid and tid, time 0 (before every sample, as perf
 * writes its synthesized records), cpu 0 and the first event's id. */
static void write_made_up(struct lp_recording *rec, struct lp_record *r, uint32_t pid,
			  uint32_t tid)
{
	_Alignas(8) uint8_t buf[8192];
	r->has_sid = true;
	r->sid = (struct lp_sample_id){ .pid = pid, .tid = tid, .id = rec->id };
	int n = lp_record_encode(r, &rec->fmt, buf, sizeof buf);
	if (n < 0)
		set_err(rec, n);
	else if (n > 0 && !rec->err)
		set_err(rec, lp_pd_writer_write(rec->w, buf));
}

/* Writes a kernel map luaprof made up, and applies it to the model (for
 * kernel hits, and the live run's names). */
static int write_kernel_record(const struct lp_record *r, void *arg)
{
	struct lp_recording *rec = arg;
	struct lp_record copy = *r;
	write_made_up(rec, &copy, UINT32_MAX, 0);
	if (lp_procs_apply(rec->procs, r))
		set_err(rec, -ENOMEM);
	return 0;
}

/* perf record's synthesized maps of the kernel, which perf needs to
 * place kernel symbols: MMAP pid -1 "[kernel.kallsyms]_text", then one
 * per loaded module ("[ext4]"). */
static void write_kernel_map(struct lp_recording *rec)
{
	uint64_t start, end;
	if (!kernel_text(&start, &end))
		return;
	struct lp_record r = { .type = PERF_RECORD_MMAP, .misc = PERF_RECORD_MISC_KERNEL };
	r.u.mmap = (struct lp_mmap){ .pid = UINT32_MAX, .start = start, .len = end - start,
				     .pgoff = start, .filename = "[kernel.kallsyms]_text" };
	write_kernel_record(&r, rec);
	if (lp_kernel_modules_scan("/proc/modules", write_kernel_record, rec))
		set_err(rec, -ENOMEM);
}

/* Notes a map of [vdso], whose build-id perf writes whenever it is mapped. */
static void note_mmap(struct lp_recording *rec, const struct lp_record *r)
{
	if (!rec->vdso && (r->type == PERF_RECORD_MMAP || r->type == PERF_RECORD_MMAP2))
		rec->vdso = !strcmp(r->u.mmap.filename, "[vdso]");
}

void lp_recording_synth(struct lp_recording *rec, const struct lp_record *r)
{
	struct lp_record copy = *r;
	note_mmap(rec, r);
	switch (r->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		write_made_up(rec, &copy, r->u.mmap.pid, r->u.mmap.tid);
		break;
	case PERF_RECORD_COMM:
		write_made_up(rec, &copy, r->u.comm.pid, r->u.comm.tid);
		break;
	case PERF_RECORD_KSYMBOL:       /* perf's trailer of zeros */
		write_made_up(rec, &copy, 0, 0);
		break;
	default:
		write_made_up(rec, &copy, r->u.task.pid, r->u.task.tid);
	}
}

/* The TRACING_DATA feature perf needs to decode the tracepoints' samples,
 * built from tracefs as perf record builds it (*data NULL without
 * tracepoints).  0, or -1 after a line. */
static int tracing_data(const char *path, const struct lp_event_spec *events, size_t nr_events,
			void **data, size_t *len)
{
	const char **names = calloc(nr_events + 1, sizeof *names);
	struct perf_event_attr none = { 0 }, pmu;  /* a probe declared as the PMU's: none */
	size_t n = 0;
	int rc = names ? 0 : -ENOMEM;
	*data = NULL;
	for (size_t i = 0; names && i < nr_events; i++)
		if (events[i].type == PERF_TYPE_TRACEPOINT && !lp_event_file_attr(&events[i], &none, &pmu))
			names[n++] = events[i].dyn_event ? events[i].dyn_event : events[i].name;
	if (!rc && n)
		rc = lp_tdata_build(names, n, data, len);
	free(names);
	if (rc)
		fprintf(stderr, "luaprof: cannot write the tracepoint formats into %s: %s\n",
			LP_SHOW(path), strerror(-rc));
	return rc ? -1 : 0;
}

/* Standard output as it was, taken for -o -'s stream, or -1. */
static int stream_fd = -1;

int lp_recording_take_stdout(void)
{
	if (isatty(STDOUT_FILENO)) {
		fprintf(stderr, "luaprof: -o - writes a binary perf.data stream to standard output, "
				"which is a terminal: pipe it (| perf report -i -) or redirect it\n");
		return -1;
	}
	int fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		fprintf(stderr, "luaprof: -o -: cannot take standard output for the stream: %s\n",
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	stream_fd = fd;
	return 0;
}

/* What a file of type mode is, for a message. */
static const char *kind(mode_t mode)
{
	return S_ISDIR(mode) ? "a directory" : S_ISCHR(mode) ? "a character device" :
	       S_ISBLK(mode) ? "a block device" : S_ISFIFO(mode) ? "a FIFO" :
	       S_ISSOCK(mode) ? "a socket" : "not a regular file";
}

/* One line for what lp_pd_writer_check found in the way of path. */
static void say_in_the_way(const char *path, bool old, mode_t mode)
{
	if (old)
		fprintf(stderr, "luaprof: cannot rename %s to %s.old, as a new recording keeps the "
				"old one: %s.old is %s (move it away, or choose another -o)\n", LP_SHOW(path),
			LP_SHOW(path), LP_SHOW(path), kind(mode));
	else
		fprintf(stderr, "luaprof: -o %s is %s, not a regular file: a recording is written "
				"only to a new or existing regular file, or with -o - to standard "
				"output\n", LP_SHOW(path), kind(mode));
}

int lp_recording_check(const char *path)
{
	bool old;
	mode_t mode;
	if (!strcmp(path, "-"))
		return 0;
	int err = lp_pd_writer_check(path, &old, &mode);
	if (err == -EEXIST)
		say_in_the_way(path, old, mode);
	else if (err)
		fprintf(stderr, "luaprof: cannot create %s: %s\n", LP_SHOW(path), strerror(-err));
	return err ? -1 : 0;
}

/* The writer of path: a file no one sees until lp_recording_place, or for
 * "-" the stream on the standard output lp_recording_take_stdout took.
 * NULL after a line. */
static struct lp_pd_writer *open_writer(struct lp_recording *rec, const char *path)
{
	struct lp_pd_writer *w = NULL;
	if (!strcmp(path, "-")) {
		rec->pipe = true;
		rec->path = "standard output";
		if (stream_fd < 0)
			errno = EBADF;
		else if ((w = lp_pd_writer_open_pipe(stream_fd)) != NULL)
			stream_fd = -1;         /* the writer's, closed with it */
		if (!w)
			fprintf(stderr, "luaprof: cannot write the stream to standard output: %s\n",
				strerror(errno));
		return w;
	}
	rec->path = path;
	if ((w = lp_pd_writer_create(path)))
		return w;
	if (errno == EEXIST)    /* put there since lp_recording_check */
		lp_recording_check(path);
	else
		fprintf(stderr, "luaprof: cannot create %s: %s\n", LP_SHOW(path), strerror(errno));
	return NULL;
}

int lp_recording_place(struct lp_recording *rec)
{
	int err = lp_pd_writer_place(rec->w);
	if (err == -EEXIST)
		lp_recording_check(rec->path);
	else if (err)
		fprintf(stderr, "luaprof: cannot put the recording at %s: %s\n", LP_SHOW(rec->path),
			strerror(-err));
	rec->placed = !err;
	return err ? -1 : 0;
}

struct lp_recording *lp_recording_open(const char *path, struct lp_live *lv,
				       struct lp_procs *procs, const struct lp_event_spec *events,
				       size_t nr_events, int argc, char **argv)
{
	uint64_t ids[4096];
	void *tdata;
	size_t tdata_len;
	if (tracing_data(path, events, nr_events, &tdata, &tdata_len))
		return NULL;
	struct lp_recording *rec = calloc(1, sizeof *rec);
	if (!rec || !(rec->hits = lp_hits_new())) {
		fprintf(stderr, "luaprof: out of memory\n");
		free(rec);
		free(tdata);
		return NULL;
	}
	if (!(rec->w = open_writer(rec, path))) {
		free(tdata);
		lp_hits_free(rec->hits);
		free(rec);
		return NULL;
	}
	rec->procs = procs;
	rec->fmt = *lp_live_format(lv);
	for (size_t i = 0; i < nr_events; i++) {
		size_t n = lp_live_ids(lv, i, ids, sizeof ids / sizeof ids[0]);
		const struct perf_event_attr *a = lp_live_attr(lv, i);
		struct perf_event_attr pmu;
		if (lp_event_file_attr(&events[i], a, &pmu))
			a = &pmu;       /* a tracefs probe's samples, declared as the PMU's */
		if (lp_pd_writer_add_event(rec->w, a, events[i].name, ids, n))
			set_err(rec, -EIO);
	}
	if (nr_events && lp_live_ids(lv, 0, ids, 1))
		rec->id = ids[0];
	if (tdata && lp_pd_writer_set_tracing_data(rec->w, tdata, tdata_len))
		rec->err = -ENOMEM;
	free(tdata);
	/* the facts before the first record: a stream writes them there */
	const char **cmd = calloc((size_t)argc + 1, sizeof *cmd);
	for (int i = 0; cmd && i < argc; i++)
		cmd[i] = argv[i];
	struct lp_pd_info info = { .cmdline = cmd, .nr_cmdline = cmd ? (size_t)argc : 0,
				   .perf_version = "luaprof " LP_VERSION };
	if (lp_pd_writer_set_info(rec->w, &info))       /* copies the strings */
		set_err(rec, -EIO);
	free(cmd);
	write_kernel_map(rec);
	return rec;
}

/* The tee's notes of each record it wrote (pdtee.c): the objects samples
 * landed in, and a map of [vdso]. */
static int tee_seen(void *ctx, const struct lp_record *r)
{
	struct lp_recording *rec = ctx;
	if (r->type != PERF_RECORD_SAMPLE)
		note_mmap(rec, r);
	else if (lp_hits_sample(rec->hits, rec->procs, r))
		return -ENOMEM;
	return 0;
}

static void tee_fail(void *ctx, int err)
{
	set_err(ctx, err);
}

static bool tee_failed(void *ctx)
{
	return ((struct lp_recording *)ctx)->err != 0;
}

int lp_recording_source(struct lp_recording *rec, const struct lp_source *inner,
			struct lp_source *out)
{
	struct lp_pd_tee_hooks hooks = { tee_seen, tee_fail, tee_failed, rec };
	lp_pd_tee_free(rec->tee);
	if ((rec->tee = lp_pd_tee_new(inner, rec->w, &hooks, out)))
		return 0;
	fprintf(stderr, "luaprof: out of memory\n");
	return -1;
}

/* An object of the build-id table, for perf's build-id cache. */
struct bid_obj {
	const char *path;       /* interned by the model, or a literal */
	uint8_t id[20];
	uint8_t size;
};

/* The build-id table being made at close: the paths written so far (a
 * file replaced while recording is hit under two inodes: one entry, as
 * perf has one dso per name), and whether the kernel's and [vdso]'s are. */
struct bid_table {
	struct lp_recording *rec;
	const char **seen;
	size_t nr_seen, cap_seen;
	struct bid_obj *objs;   /* the entries written, in order */
	size_t nr_objs, cap_objs;
	bool kernel, vdso;
};

/* Keeps the entry for the cache (out of memory: left out of the cache). */
static void keep_obj(struct bid_table *bt, const struct lp_pd_build_id *b)
{
	if (bt->nr_objs == bt->cap_objs) {
		size_t cap = bt->cap_objs ? bt->cap_objs * 2 : 16;
		struct bid_obj *v = realloc(bt->objs, cap * sizeof *v);
		if (!v)
			return;
		bt->objs = v;
		bt->cap_objs = cap;
	}
	struct bid_obj *o = &bt->objs[bt->nr_objs++];
	o->path = b->path;
	o->size = b->size;
	memcpy(o->id, b->id, b->size);
}

static void add_build_id(struct bid_table *bt, const char *path, const uint8_t *id, size_t n,
			 uint16_t cpumode)
{
	struct lp_pd_build_id b = { .path = path, .size = (uint8_t)(n > 20 ? 20 : n), .pid = -1,
				    .cpumode = cpumode };
	memcpy(b.id, id, b.size);
	if (lp_pd_writer_add_build_id(bt->rec->w, &b) == -ENOMEM)
		set_err(bt->rec, -ENOMEM);
	keep_obj(bt, &b);
}

/* Paths are interned by the process model: one pointer per name. */
static bool seen_before(struct bid_table *bt, const char *path)
{
	for (size_t i = 0; i < bt->nr_seen; i++)
		if (bt->seen[i] == path)
			return true;
	if (bt->nr_seen == bt->cap_seen) {
		size_t cap = bt->cap_seen ? bt->cap_seen * 2 : 64;
		const char **v = realloc(bt->seen, cap * sizeof *v);
		if (!v)
			return true;    /* out of memory: skip, the file stays valid */
		bt->seen = v;
		bt->cap_seen = cap;
	}
	bt->seen[bt->nr_seen++] = path;
	return false;
}

/* The entry of the object m maps, unless written already or it has none;
 * the kernel's text map stands for the kernel, named as perf names it. */
static void add_object(struct bid_table *bt, const struct lp_map *m)
{
	uint8_t id[20];
	size_t n;
	if (!strncmp(m->path, "[kernel.kallsyms]", 17)) {
		if (!bt->kernel && (n = lp_kernel_build_id(NULL, id, sizeof id)))
			add_build_id(bt, "[kernel.kallsyms]", id, n, PERF_RECORD_MISC_KERNEL);
		bt->kernel = true;
		return;
	}
	if (m->ksymbol)         /* a BPF program's code: no file */
		return;
	bool vdso = !strcmp(m->path, "[vdso]");
	if ((vdso && bt->vdso) || (!vdso && seen_before(bt, m->path)))
		return;
	bt->vdso |= vdso;
	if ((n = lp_map_build_id(m, id, sizeof id)))
		add_build_id(bt, m->path, id, n, PERF_RECORD_MISC_USER);
}

/* Puts the table's objects into perf's build-id cache, as perf record
 * does: one notice when the cache cannot be written, and the recording is
 * complete either way.  An object this machine no longer has as recorded
 * is left out. */
static void fill_cache(const struct bid_table *bt)
{
	char dir[4096] = "";

	for (size_t i = 0; i < bt->nr_objs; i++) {
		const struct bid_obj *o = &bt->objs[i];
		int rc = lp_bidcache_add(o->path, o->id, o->size);
		if (rc >= 0 || rc == -ESTALE)
			continue;
		if (!lp_bidcache_dir(dir, sizeof dir))
			fprintf(stderr, "luaprof: no build-id cache (neither HOME nor PERF_BUILDID_DIR "
				"is set): perf report may leave [vdso] and rebuilt objects unnamed\n");
		else if (rc == -EPERM)
			fprintf(stderr, "luaprof: the build-id cache %s is another user's (or a "
				"symbolic link): not written (the recording is complete; set "
				"PERF_BUILDID_DIR to a directory of yours, or use --no-buildid-cache)\n",
				LP_SHOW(dir));
		else if (rc == -ELOOP)
			fprintf(stderr, "luaprof: the build-id cache %s holds a symbolic link or another "
				"user's directory where a directory of its own should be: not "
				"written through it (the recording is complete; remove it)\n",
				LP_SHOW(dir));
		else
			fprintf(stderr, "luaprof: cannot fill the build-id cache %s: %s (the recording "
				"is complete; make it writable, set PERF_BUILDID_DIR, or use "
				"--no-buildid-cache)\n", LP_SHOW(dir), strerror(-rc));
		return;
	}
}

int lp_recording_close(struct lp_recording *rec, bool cache)
{
	if (!rec->placed && !rec->pipe) {       /* the run never started */
		lp_pd_writer_discard(rec->w);
		lp_hits_free(rec->hits);
		lp_pd_tee_free(rec->tee);
		free(rec);
		return 0;
	}
	struct bid_table bt = { .rec = rec };
	for (size_t i = 0; !rec->pipe && i < lp_hits_count(rec->hits); i++)
		add_object(&bt, lp_hits_get(rec->hits, i));
	if (rec->vdso && !rec->pipe)
		add_object(&bt, &(struct lp_map){ .path = "[vdso]" });
	free(bt.seen);
	lp_hits_free(rec->hits);
	int rc = lp_pd_writer_close(rec->w);   /* a failed file is cut (it logs how) */
	if (!rec->err && rc)
		fprintf(stderr, "luaprof: writing %s failed: %s\n", LP_SHOW(rec->path),
			strerror(-rc));
	int failed = rec->err || rc;
	if (cache && !failed && !rec->pipe)
		fill_cache(&bt);
	free(bt.objs);
	lp_pd_tee_free(rec->tee);
	free(rec);
	return failed ? -1 : 0;
}
