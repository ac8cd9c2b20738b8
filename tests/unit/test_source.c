/*
 * test_source.c - the core's record sources (source.h): the tee that
 * writes a source's records to a perf.data writer as they pass
 * (pdtee.c), and a recording read back as a source (pdreplay.c): what
 * each hands on, its events' names and sample bits, its hooks.
 */
#include <errno.h>
#include <stdbool.h>
#include <linux/perf_event.h>

#include "luaprof/capture.h"
#include "luaprof/live.h"
#include "luaprof/luaprof.h"
#include "luaprof/perfdata.h"
#include "luaprof/record.h"
#include "test.h"

#define NR 4            /* samples the fake source hands out */
#define ID 7            /* their event's id */
#define SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
		     PERF_SAMPLE_TIME)

static struct perf_event_attr event_attr(void)
{
	return (struct perf_event_attr){
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(struct perf_event_attr),
		.config = PERF_COUNT_SW_CPU_CLOCK, .sample_period = 1000,
		.sample_type = SAMPLE_TYPE, .sample_id_all = 1,
	};
}

/* A sample as the kernel lays it out: header, id, ip, pid/tid, time. */
struct raw_sample {
	struct perf_event_header h;
	uint64_t id, ip;
	uint32_t pid, tid;
	uint64_t time;
};

/* The fake inner source: NR samples, a capture of luaprof's own after
 * the first, then the end. */
struct fake {
	struct raw_sample raw[NR];
	struct lp_format fmt;
	int i;
	bool stopped;
};

static int fake_next(void *ctx, struct lp_record *rec, int *event)
{
	struct fake *f = ctx;
	if (f->stopped || f->i > NR)
		return 0;
	int k = f->i++;
	*event = 0;
	if (k == 1) {           /* the capture, which the tee writes not */
		*rec = (struct lp_record){ .type = LP_RECORD_CAPTURE };
		return 1;
	}
	k -= k > 1;
	return lp_record_parse(&f->raw[k], sizeof f->raw[k], &f->fmt, rec) ? -EPROTO : 1;
}

static void fake_stop(void *ctx)
{
	((struct fake *)ctx)->stopped = true;
}

static const char *fake_event_name(void *ctx, int idx)
{
	(void)ctx;
	return idx == 0 ? "cpu-clock" : NULL;
}

static struct lp_source fake_source(struct fake *f)
{
	struct perf_event_attr a = event_attr();
	*f = (struct fake){ 0 };
	lp_format_from_attr(&f->fmt, &a);
	for (int i = 0; i < NR; i++)
		f->raw[i] = (struct raw_sample){
			.h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof f->raw[i] },
			.id = ID, .ip = 0x1000 + (uint64_t)i, .pid = 42, .tid = 42,
			.time = 1000 + 10 * (uint64_t)i,
		};
	return (struct lp_source){ .ctx = f, .next = fake_next, .stop = fake_stop,
				   .event_name = fake_event_name };
}

/* What the tee's hooks saw. */
struct notes {
	int seen, fails, first_err;
	bool failed;            /* what failed() answers */
};

static int note_seen(void *ctx, const struct lp_record *r)
{
	struct notes *n = ctx;
	n->seen += r->type == PERF_RECORD_SAMPLE;
	return 0;
}

static void note_fail(void *ctx, int err)
{
	struct notes *n = ctx;
	if (!n->fails++)
		n->first_err = err;
}

static bool note_failed(void *ctx)
{
	return ((struct notes *)ctx)->failed;
}

/* Tees the fake source into path (nothing written when failed is set),
 * checking what the tee hands on; the notes in *n. */
static void tee_to(const char *path, struct notes *n)
{
	struct fake f;
	struct lp_source src = fake_source(&f), out;
	struct perf_event_attr a = event_attr();
	uint64_t id = ID;
	struct lp_pd_writer *w = lp_pd_writer_open(path);
	TEST_TRUE(w != NULL);
	TEST_EQ(lp_pd_writer_add_event(w, &a, "cpu-clock", &id, 1), 0);
	struct lp_pd_tee_hooks hooks = { note_seen, note_fail, note_failed, n };
	struct lp_pd_tee *tee = lp_pd_tee_new(&src, w, &hooks, &src);  /* in place */
	TEST_TRUE(tee != NULL);
	out = src;
	struct lp_record rec;
	int event, rc, got = 0, captures = 0;
	while ((rc = out.next(out.ctx, &rec, &event)) == 1) {
		got += rec.type == PERF_RECORD_SAMPLE;
		captures += rec.type == LP_RECORD_CAPTURE;
		TEST_EQ(event, 0);
	}
	TEST_EQ(rc, 0);
	TEST_EQ(got, NR);
	TEST_EQ(captures, 1);   /* handed on, not written */
	TEST_STREQ(out.event_name(out.ctx, 0), "cpu-clock");
	TEST_TRUE(out.event_name(out.ctx, 1) == NULL);
	TEST_TRUE(out.event_format(out.ctx, 0) == NULL);        /* inner has none */
	TEST_EQ_U64(out.sample_type(out.ctx, 0), ~(uint64_t)0);
	TEST_TRUE(out.watch == NULL && out.next_ref == NULL);
	out.stop(out.ctx);
	TEST_TRUE(f.stopped);
	TEST_EQ(lp_pd_writer_close(w), 0);
	lp_pd_tee_free(tee);
}

/* Reads path back through the replay source: its samples' ips, in order,
 * into ips (NR at most); returns how many. */
static int replay(const char *path, uint64_t *ips, uint64_t *span)
{
	struct lp_perfdata *pd = lp_perfdata_open(path);
	TEST_TRUE(pd != NULL);
	if (!pd)
		return -1;
	struct lp_source src;
	struct lp_pd_source *ps = lp_pd_source_new(pd, NULL, &src);
	TEST_TRUE(ps != NULL);
	TEST_EQ(lp_pd_source_build_ids(ps), 0);
	TEST_TRUE(src.next == NULL && src.watch == NULL);
	const struct lp_record *rec;
	int event, rc, n = 0;
	while ((rc = src.next_ref(src.ctx, &rec, &event)) == 1) {
		if (rec->type != PERF_RECORD_SAMPLE)
			continue;
		TEST_EQ(event, 0);
		if (n < NR)
			ips[n] = rec->u.sample.ip;
		n++;
	}
	TEST_EQ(rc, 0);
	TEST_STREQ(src.event_name(src.ctx, 0), "cpu-clock");
	TEST_TRUE(src.event_name(src.ctx, 1) == NULL && src.event_name(src.ctx, -1) == NULL);
	TEST_EQ_U64(src.sample_type(src.ctx, 0), SAMPLE_TYPE);
	TEST_EQ_U64(src.sample_type(src.ctx, 3), ~(uint64_t)0);
	TEST_TRUE(src.event_format(src.ctx, 0) == NULL);        /* not a tracepoint */
	TEST_TRUE(lp_pd_source_error(ps) == NULL);
	*span = lp_pd_source_span(ps);
	lp_pd_source_free(ps);
	lp_perfdata_close(pd);
	return n;
}

/* Every sample written, the capture not; read back in order. */
static void tee_then_replay(void)
{
	struct notes n = { 0 };
	const char *path = test_tmp("tee.data");
	uint64_t ips[NR], span = 0;
	tee_to(path, &n);
	TEST_EQ(n.seen, NR);
	TEST_EQ(n.fails, 0);
	TEST_EQ(replay(path, ips, &span), NR);
	for (int i = 0; i < NR; i++)
		TEST_EQ_U64(ips[i], 0x1000 + (uint64_t)i);
	TEST_EQ_U64(span, 10 * (NR - 1));
	test_tmp_cleanup();
}

/* Once the recording has failed, the tee writes nothing more but still
 * hands every record on and notes it. */
static void tee_after_failure(void)
{
	struct notes n = { .failed = true };
	const char *path = test_tmp("failed.data");
	uint64_t ips[NR], span = 1;
	tee_to(path, &n);
	TEST_EQ(n.seen, NR);
	TEST_EQ(n.fails, 0);
	TEST_EQ(replay(path, ips, &span), 0);
	TEST_EQ_U64(span, 0);
	test_tmp_cleanup();
}

static int halts;

static bool halt_after_two(void *ctx)
{
	(void)ctx;
	return ++halts > 2;
}

/* halt is asked before each record and ends the replay; so does stop. */
static void replay_halt_and_stop(void)
{
	struct notes n = { 0 };
	const char *path = test_tmp("halt.data");
	tee_to(path, &n);
	struct lp_perfdata *pd = lp_perfdata_open(path);
	TEST_TRUE(pd != NULL);
	struct lp_source src;
	struct lp_pd_source_hooks hooks = { .halt = halt_after_two };
	struct lp_pd_source *ps = lp_pd_source_new(pd, &hooks, &src);
	const struct lp_record *rec;
	int event;
	TEST_EQ(src.next_ref(src.ctx, &rec, &event), 1);
	TEST_EQ(src.next_ref(src.ctx, &rec, &event), 1);
	TEST_EQ(src.next_ref(src.ctx, &rec, &event), 0);
	TEST_EQ(halts, 3);
	lp_pd_source_free(ps);
	lp_perfdata_close(pd);
	pd = lp_perfdata_open(path);
	ps = lp_pd_source_new(pd, NULL, &src);
	TEST_EQ(src.next_ref(src.ctx, &rec, &event), 1);
	src.stop(src.ctx);
	TEST_EQ(src.next_ref(src.ctx, &rec, &event), 0);
	lp_pd_source_free(ps);
	lp_pd_source_free(NULL);
	lp_perfdata_close(pd);
	test_tmp_cleanup();
}

/* The warnings the sources give, through the log hook. */
static char logged[512];
static int nr_logged;

static void log_hook(enum lp_log_level level, const char *msg, void *ctx)
{
	(void)ctx;
	if (level != LP_WARN)
		return;
	nr_logged++;
	snprintf(logged, sizeof logged, "%s", msg);
}

/* A recording's tracepoint with no TRACING_DATA: no format, and one
 * warning per ask, the line luaprof prints (after "luaprof: "). */
static void replay_tracepoint_without_format(void)
{
	const char *path = test_tmp("tp.data");
	struct perf_event_attr a = event_attr();
	uint64_t id = ID;
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = 316;
	struct lp_pd_writer *w = lp_pd_writer_open(path);
	TEST_TRUE(w != NULL);
	TEST_EQ(lp_pd_writer_add_event(w, &a, "sched:sched_switch", &id, 1), 0);
	TEST_EQ(lp_pd_writer_close(w), 0);
	struct lp_perfdata *pd = lp_perfdata_open(path);
	TEST_TRUE(pd != NULL);
	struct lp_source src;
	struct lp_pd_source *ps = lp_pd_source_new(pd, NULL, &src);
	lp_log_set_hook(log_hook, NULL);
	TEST_TRUE(src.event_format(src.ctx, 0) == NULL);
	TEST_TRUE(src.event_format(src.ctx, 1) == NULL);        /* no event: no word */
	TEST_EQ(nr_logged, 1);
	TEST_STREQ(logged, "the recording holds no format for tracepoint 'sched:sched_switch' "
		   "(no TRACING_DATA): s.args is nil for its samples");
	lp_log_set_hook(NULL, NULL);
	lp_pd_source_free(ps);
	lp_perfdata_close(pd);
	test_tmp_cleanup();
}

/* A live tracepoint whose format tracefs does not have: the line luaprof
 * prints; other events have none to read.  Nothing of the run (lv) is
 * read for names and formats. */
static void live_format_unreadable(void)
{
	char tp[] = "nosuch_sys:nosuch_event", clock[] = "cpu-clock";
	struct lp_event_spec events[2] = {
		{ .name = tp, .type = PERF_TYPE_TRACEPOINT, .config = 999999 },
		{ .name = clock, .type = PERF_TYPE_SOFTWARE },
	};
	struct lp_source src;
	struct lp_live_source *ls = lp_live_source_new(NULL, events, 2, &src);
	TEST_TRUE(ls != NULL);
	TEST_STREQ(src.event_name(src.ctx, 1), "cpu-clock");
	TEST_TRUE(src.event_name(src.ctx, 2) == NULL && src.event_name(src.ctx, -1) == NULL);
	TEST_EQ_U64(src.sample_type(src.ctx, 2), ~(uint64_t)0);
	TEST_TRUE(src.next != NULL && src.watch != NULL && src.next_ref == NULL);
	lp_log_set_hook(log_hook, NULL);
	TEST_TRUE(src.event_format(src.ctx, 1) == NULL);
	TEST_TRUE(src.event_format(src.ctx, 5) == NULL);
	TEST_EQ(nr_logged, 0);
	TEST_TRUE(src.event_format(src.ctx, 0) == NULL);
	TEST_EQ(nr_logged, 1);
	TEST_TRUE(!strncmp(logged, "cannot read the format of 'nosuch_sys:nosuch_event' (", 53));
	TEST_TRUE(strstr(logged, "): s.args is nil for its samples") != NULL);
	lp_log_set_hook(NULL, NULL);
	lp_live_source_free(ls);
	lp_live_source_free(NULL);
}

TEST_MAIN("source", TEST_CASE(tee_then_replay), TEST_CASE(tee_after_failure),
	  TEST_CASE(replay_halt_and_stop), TEST_CASE(replay_tracepoint_without_format),
	  TEST_CASE(live_format_unreadable))
