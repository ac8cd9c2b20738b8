/*
 * record.c - writing a live run to perf.data while it runs.
 *
 * Every record the kernel gives is written as it is (they carry the ids the
 * events were opened with, declared in the attrs), so perf report and perf
 * script read the file like one of perf record's.  Build-ids are added at
 * the end for every object the recorded processes mapped.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "luaprof/perfdata.h"
#include "luaprof/luaprof.h"
#include "record.h"

struct lp_recording {
	struct lp_pd_writer *w;
	const char *path;
	struct lp_source inner;
	struct lp_format fmt;   /* of the events: the trailer of made-up records */
	uint64_t id;            /* the first event's first id, named by that trailer */
	int err;
};

/* The kernel text's start (_text) and end (_etext) from kallsyms; false
 * when hidden or unreadable. */
static bool kernel_text(uint64_t *start, uint64_t *end)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], name[256], type;
	unsigned long long addr;
	*start = *end = 0;
	while (f && fgets(line, sizeof line, f) && !(*start && *end)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
			continue;
		if (!strcmp(name, "_text"))
			*start = addr;
		else if (!strcmp(name, "_etext"))
			*end = addr;
	}
	if (f)
		fclose(f);
	return *start && *end > *start;
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
	if (n < 0 && !rec->err)
		rec->err = n;
	else if (n > 0 && !rec->err)
		rec->err = lp_pd_writer_write(rec->w, buf);
}

/* perf record's synthesized map of the kernel text, which perf needs to
 * place kernel symbols: MMAP pid -1 "[kernel.kallsyms]_text". */
static void write_kernel_map(struct lp_recording *rec)
{
	uint64_t start, end;
	if (!kernel_text(&start, &end))
		return;
	struct lp_record r = { .type = PERF_RECORD_MMAP, .misc = PERF_RECORD_MISC_KERNEL };
	r.u.mmap = (struct lp_mmap){ .pid = UINT32_MAX, .start = start, .len = end - start,
				     .pgoff = start, .filename = "[kernel.kallsyms]_text" };
	write_made_up(rec, &r, UINT32_MAX, 0);
}

void lp_recording_synth(struct lp_recording *rec, const struct lp_record *r)
{
	struct lp_record copy = *r;
	switch (r->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		write_made_up(rec, &copy, r->u.mmap.pid, r->u.mmap.tid);
		break;
	case PERF_RECORD_COMM:
		write_made_up(rec, &copy, r->u.comm.pid, r->u.comm.tid);
		break;
	default:
		write_made_up(rec, &copy, r->u.task.pid, r->u.task.tid);
	}
}

struct lp_recording *lp_recording_open(const char *path, struct lp_live *lv,
				       const struct lp_event_spec *events, size_t nr_events,
				       int argc, char **argv)
{
	struct lp_recording *rec = calloc(1, sizeof *rec);
	uint64_t ids[4096];
	if (!rec || !(rec->w = lp_pd_writer_open(path))) {
		fprintf(stderr, "luaprof: cannot create %s: %s\n", path, strerror(errno));
		free(rec);
		return NULL;
	}
	rec->path = path;
	rec->fmt = *lp_live_format(lv);
	for (size_t i = 0; i < nr_events; i++) {
		size_t n = lp_live_ids(lv, i, ids, sizeof ids / sizeof ids[0]);
		const struct perf_event_attr *a = lp_live_attr(lv, i);
		if (lp_pd_writer_add_event(rec->w, a, events[i].name, ids, n))
			rec->err = -EIO;
	}
	if (nr_events && lp_live_ids(lv, 0, ids, 1))
		rec->id = ids[0];
	write_kernel_map(rec);
	const char **cmd = calloc((size_t)argc + 1, sizeof *cmd);
	for (int i = 0; cmd && i < argc; i++)
		cmd[i] = argv[i];
	struct lp_pd_info info = { .cmdline = cmd, .nr_cmdline = cmd ? (size_t)argc : 0,
				   .perf_version = "luaprof " LP_VERSION };
	if (lp_pd_writer_set_info(rec->w, &info))       /* copies the strings */
		rec->err = -EIO;
	free(cmd);
	return rec;
}

static int tee_next(void *ctx, struct lp_record *r, int *event)
{
	struct lp_recording *rec = ctx;
	int rc = rec->inner.next(rec->inner.ctx, r, event);
	if (rc > 0 && !rec->err)
		rec->err = lp_pd_writer_write(rec->w, r->data);
	return rc;
}

static void tee_stop(void *ctx)
{
	struct lp_recording *rec = ctx;
	rec->inner.stop(rec->inner.ctx);
}

static const char *tee_event_name(void *ctx, int idx)
{
	struct lp_recording *rec = ctx;
	return rec->inner.event_name(rec->inner.ctx, idx);
}

void lp_recording_source(struct lp_recording *rec, const struct lp_source *inner,
			 struct lp_source *out)
{
	rec->inner = *inner;
	*out = (struct lp_source){ rec, tee_next, tee_stop, tee_event_name };
}

/* Collects the build-id of every object mapped by a thread's process; dsos
 * dedupes (one lp_dso per file), seen keeps what was added. */
struct bid_walk {
	struct lp_recording *rec;
	struct lp_dsos *dsos;
	const struct lp_dso **seen;
	size_t nr_seen, cap_seen;
};

static bool seen_before(struct bid_walk *bw, const struct lp_dso *d)
{
	for (size_t i = 0; i < bw->nr_seen; i++)
		if (bw->seen[i] == d)
			return true;
	if (bw->nr_seen == bw->cap_seen) {
		size_t cap = bw->cap_seen ? bw->cap_seen * 2 : 64;
		const struct lp_dso **v = realloc(bw->seen, cap * sizeof *v);
		if (!v)
			return true;    /* out of memory: skip, the file stays valid */
		bw->seen = v;
		bw->cap_seen = cap;
	}
	bw->seen[bw->nr_seen++] = d;
	return false;
}

static int add_thread_objects(struct lp_thread *t, void *arg)
{
	struct bid_walk *bw = arg;
	const struct lp_proc *p = t->proc;
	for (uint32_t i = 0; p && i < p->nr_maps; i++) {
		const struct lp_dso *d = lp_dsos_get(bw->dsos, &p->maps[i]);
		const uint8_t *id;
		size_t n = d ? lp_dso_build_id(d, &id) : 0;
		if (!n || seen_before(bw, d))
			continue;
		struct lp_pd_build_id b = { .path = p->maps[i].path, .size = (uint8_t)(n > 20 ? 20 : n),
					    .pid = -1, .cpumode = PERF_RECORD_MISC_USER };
		memcpy(b.id, id, b.size);
		lp_pd_writer_add_build_id(bw->rec->w, &b);
	}
	return 0;
}

int lp_recording_close(struct lp_recording *rec, struct lp_procs *procs)
{
	struct bid_walk bw = { .rec = rec, .dsos = lp_dsos_new() };
	if (bw.dsos)
		lp_procs_each(procs, add_thread_objects, &bw);
	free(bw.seen);
	lp_dsos_free(bw.dsos);
	int rc = lp_pd_writer_close(rec->w);
	if (rec->err || rc)
		fprintf(stderr, "luaprof: writing %s failed: %s\n", rec->path,
			strerror(-(rec->err ? rec->err : rc)));
	int failed = rec->err || rc;
	free(rec);
	return failed ? -1 : 0;
}
