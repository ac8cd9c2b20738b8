/*
 * replay.c - running a script over a recording (luaprof run SCRIPT -i FILE):
 * the same hooks, the same sample view and symbolization as a live run, fed
 * by the perf.data reader (as a source: core/perfdata/pdreplay.c, the
 * progress line and the signals added here).  A file that turns out bad
 * part-way through still gets on_end for what was read, with the error,
 * and a failing exit.
 *
 * The recording's build-ids go to the resolver before any sample (and, in
 * pipe mode, as their records arrive), so each object is read only from a
 * file with the build-id it had when recorded.  Guest machines' entries are
 * left out: their objects are not this machine's.  Tracepoint fields decode
 * with the formats the recording stores.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>

#include "lp.h"
#include "lpaux.h"
#include "run.h"
#include "luaprof/err.h"
#include "luaprof/luaprof.h"
#include "luaprof/perfdata.h"
#include "replay.h"
#include "cmd.h"

/* The progress line: on a replay longer than PROGRESS_AFTER with stderr a
 * terminal, redrawn every PROGRESS_EVERY; the clock is read once every
 * PROGRESS_CHECK records. */
#define PROGRESS_AFTER_NS 2000000000ull
#define PROGRESS_EVERY_NS 250000000ull
#define PROGRESS_CHECK 256

struct progress {
	bool tty, shown;
	uint64_t start, last, records;
	uint64_t samples_at_last;
};

/* What the replay adds to the recording's source (core/perfdata/pdreplay.c):
 * the progress line, the signals and -d, the build-ids for the resolver. */
struct replay_src {
	struct lp_perfdata *pd;
	struct lp_pd_source *ps;
	struct progress prog;
	const uint64_t *samples;        /* the run's count of delivered samples */
	struct lp_resolver *resolver;
	const volatile sig_atomic_t *interrupted;       /* by a signal: stop reading */
	bool input_ended;               /* by that, or -d, while the input stalled */
};

static bool guest(uint16_t cpumode)
{
	return cpumode == PERF_RECORD_MISC_GUEST_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_USER;
}

/* A build-id entry of the recording to the resolver, as it comes
 * (lp_pd_source_build_ids).  0 or -ENOMEM. */
static int give_build_id(void *ctx, const struct lp_pd_build_id *b)
{
	struct replay_src *rs = ctx;
	if (guest(b->cpumode) || !b->size)
		return 0;
	if (lp_resolver_expect_build_id(rs->resolver, b->path, b->id, b->size) == -ENOMEM)
		return -ENOMEM;
	return 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Redraws "luaprof: 42% (120.0/285.5 MiB), 3.1M samples/s" on stderr. */
static void progress_draw(struct replay_src *rs, uint64_t now)
{
	struct progress *p = &rs->prog;
	uint64_t done, total;
	lp_perfdata_progress(rs->pd, &done, &total);
	double secs = (double)(now - p->last) / 1e9;
	double rate = secs > 0 ? (double)(*rs->samples - p->samples_at_last) / secs : 0;
	char pct[32] = "";
	if (total)
		snprintf(pct, sizeof pct, "%.0f%% ", 100.0 * (double)done / (double)total);
	const char *unit = rate >= 1e6 ? "M" : rate >= 1e3 ? "K" : "";
	double scaled = rate >= 1e6 ? rate / 1e6 : rate >= 1e3 ? rate / 1e3 : rate;
	fprintf(stderr, "\rluaprof: %s(%.1f/%.1f MiB), %.1f%s samples/s  ", pct,
		(double)done / 1048576.0, (double)total / 1048576.0, scaled, unit);
	p->shown = true;
	p->last = now;
	p->samples_at_last = *rs->samples;
}

static void progress_tick(struct replay_src *rs)
{
	struct progress *p = &rs->prog;
	if (!p->tty || ++p->records % PROGRESS_CHECK)
		return;
	uint64_t now = mono_ns();
	if (now - p->start >= PROGRESS_AFTER_NS && now - p->last >= PROGRESS_EVERY_NS)
		progress_draw(rs, now);
}

/* Erases the line, so that what follows starts clean. */
static void progress_end(struct replay_src *rs)
{
	if (rs->prog.shown)
		fprintf(stderr, "\r%60s\r", "");
}

/* Asked before each record (lp_pd_source_hooks.halt): the progress
 * line, and whether a signal or -d ends the replay while the script
 * works (while the input stalls, input_stop ends the input instead). */
static bool replay_halt(void *ctx)
{
	struct replay_src *rs = ctx;
	progress_tick(rs);
	return (*rs->interrupted || lp_deadline_passed()) && !rs->input_ended;
}

/* The reader's question while a stream stalls and a signal came (its
 * own, -d's or one that stops the run): a stop or -d ends the input there,
 * and the records read so far still go to the script, in time order,
 * those waiting to be ordered included (lp_perfdata_set_stop).  Stopped
 * while the script works, the replay ends at once instead (replay_halt). */
static bool input_stop(void *ctx)
{
	struct replay_src *rs = ctx;
	if (*rs->interrupted || lp_deadline_passed())
		rs->input_ended = true;
	return rs->input_ended;
}

static void set_string(lua_State *L, const char *key, const char *val)
{
	if (val) {
		lua_pushstring(L, val);
		lua_setfield(L, -2, key);
	}
}

static void push_build_ids(lua_State *L, const struct lp_pd_info *in)
{
	lua_createtable(L, 0, (int)in->nr_build_ids);
	for (size_t i = 0; i < in->nr_build_ids; i++) {
		char hex[41];
		const struct lp_pd_build_id *b = &in->build_ids[i];
		for (size_t k = 0; k < b->size && k < 20; k++)
			snprintf(hex + 2 * k, 3, "%02x", b->id[k]);
		hex[2 * (b->size < 20 ? b->size : 20)] = '\0';
		lua_pushstring(L, hex);
		lua_setfield(L, -2, b->path);
	}
	lua_setfield(L, -2, "build_ids");
}

static void push_info(lua_State *L, struct replay_src *rs, const char *file)
{
	const struct lp_pd_info *in = lp_perfdata_info(rs->pd);
	size_t n = lp_perfdata_nr_events(rs->pd);
	lua_createtable(L, 0, 8);
	set_string(L, "file", file);
	lua_createtable(L, (int)n, 0);
	for (size_t i = 0; i < n; i++) {
		lua_pushstring(L, lp_perfdata_event(rs->pd, i)->name);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	lua_setfield(L, -2, "events");
	const struct perf_event_attr *a = n ? &lp_perfdata_event(rs->pd, 0)->attr : NULL;
	if (a && a->sample_period) {    /* the first event's rate: sample_freq when freq */
		lua_pushinteger(L, (lua_Integer)a->sample_period);
		lua_setfield(L, -2, a->freq ? "freq" : "period");
	}
	set_string(L, "hostname", in->hostname);
	set_string(L, "os_release", in->os_release);
	set_string(L, "perf_version", in->perf_version);
	set_string(L, "arch", in->arch);
	if (in->nr_cpus_online) {
		lua_pushinteger(L, in->nr_cpus_online);
		lua_setfield(L, -2, "nr_cpus");
	}
	if (in->nr_cmdline) {
		lp_push_strings(L, in->cmdline, in->nr_cmdline);
		lua_setfield(L, -2, "cmdline");
	}
	push_build_ids(L, in);
	lp_fields_set_strict(L, &lp_run_start_fields);
}

/* -d passed before a writer came to the named pipe, or before a stream
 * sent its header (err: the reader's line, which says which): the run
 * ends as a -d run does, its hooks seeing an empty recording. */
static int no_writer(struct lp_run *run, const char *file, uint64_t duration_ns, const char *err)
{
	if (strstr(err, "waiting for a writer"))
		fprintf(stderr, "luaprof: no writer came to the named pipe %s in the %.9g s of -d: "
			"nothing read\n", LP_SHOW(file), (double)duration_ns / 1e9);
	else
		fprintf(stderr, "luaprof: %s sent no recording in the %.9g s of -d: nothing read\n",
			strcmp(file, "-") ? LP_SHOW(file) : "stdin", (double)duration_ns / 1e9);
	if (run->vm.ref[LP_HOOK_START] != LUA_NOREF) {
		lua_State *L = run->vm.L;
		lua_createtable(L, 0, 2);
		set_string(L, "file", file);
		lua_newtable(L);
		lua_setfield(L, -2, "events");
		lp_vm_call(run, LP_HOOK_START, 1);
	}
	if (!run->failed)
		lp_run_end(run, 0, -1);
	return run->failed ? LP_EXIT_FAILURE : 0;
}

/* Whether work runs for the samples beside reading them: a report's, or
 * Lua: on_sample, a handler in on_event (as
 * on_start left it: the table is read at each event's first sample), or
 * on_switch.  Read raw: no metamethod runs outside a protected call. */
static bool lua_per_sample(const struct lp_run *run)
{
	lua_State *L = run->vm.L;
	if (!L)
		return false;
	if (run->reports.n)     /* luaprof.report's work: resolving every frame */
		return true;
	if (run->vm.ref[LP_HOOK_SAMPLE] != LUA_NOREF || run->vm.ref[LP_HOOK_SWITCH] != LUA_NOREF)
		return true;
	bool any = false;
	lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_GLOBALS);
	lua_pushliteral(L, "on_event");
	if (lua_rawget(L, -2) == LUA_TTABLE) {
		lua_pushnil(L);
		any = lua_next(L, -2) != 0;
		if (any)
			lua_pop(L, 2);
	}
	lua_pop(L, 2);
	return any;
}

/* Reading, decoding and ordering on a core of their own, the script on
 * another: where this process may run on two (its affinity: taskset), and
 * the input is a file (a stream is read here).  Without the thread the
 * records are the same, read here.  Where no Lua runs per sample (a
 * one-liner that counts in C, run->aggs.only; a script of on_end alone)
 * the thread would only add its copies and hand-overs, across cores
 * (docs/performance.md, "Measured choices in the code").  When the answer
 * cannot depend on the records' order (lp_agg_order_free), they come in
 * file order, unsorted, which saves the sort.  Called after on_start, before the first
 * record. */
static void read_ahead(struct lp_run *run, struct lp_perfdata *pd)
{
	cpu_set_t cpus;
	if (run->aggs.only && lp_agg_order_free(run, run->loop->interval.ns != 0))
		lp_perfdata_unordered(pd);
	if (run->aggs.only || !lua_per_sample(run))
		return;
	if (sched_getaffinity(0, sizeof cpus, &cpus) ? sysconf(_SC_NPROCESSORS_ONLN) < 2
						      : CPU_COUNT(&cpus) < 2)
		return;
	int err = lp_perfdata_read_ahead(pd);
	if (err && err != -ESPIPE)
		fprintf(stderr, "luaprof: cannot read the recording on a thread (%s): reading it "
			"between the script's calls\n", strerror(-err));
}

/* The script's on_event keys against the recording's events, when its
 * header lists them (a stream's may come later): 0, or -1 after the line
 * (lp_run_check_handlers). */
static int check_handlers(struct lp_run *run, struct lp_perfdata *pd)
{
	size_t n = lp_perfdata_nr_events(pd);
	const char **names = n ? calloc(n, sizeof *names) : NULL;
	int rc = 0;
	for (size_t i = 0; names && i < n; i++)
		names[i] = lp_perfdata_event(pd, i)->name;
	if (names)
		rc = lp_run_check_handlers(run, names, n);
	free(names);
	return rc;
}

static int replay(struct lp_run *run, const char *file, uint64_t duration_ns)
{
	struct replay_src rs = { .resolver = run->resolver, .samples = &run->loop->stats.samples,
				 .interrupted = &run->loop->interrupted };
	lp_perfdata_set_stop(input_stop, &rs);  /* until lp_replay returns */
	/* a named pipe is waited on until a writer comes, or a signal that
	 * ends the run (another one, say SIGCHLD, has it waited on again),
	 * or the end of -d */
	while (!(rs.pd = lp_perfdata_open(file)) && errno == EINTR &&
	       !run->loop->interrupted && !lp_deadline_passed())
		;
	if (!rs.pd && run->loop->interrupted)
		return 128 + (run->loop->end_signal = run->loop->interrupted);
	if (!rs.pd && errno == EINTR)
		return no_writer(run, file, duration_ns, lp_last_error());
	if (!rs.pd) {
		fprintf(stderr, "luaprof: %s\n", *lp_last_error() ? lp_last_error() : LP_SHOW(file));
		return LP_EXIT_FAILURE;
	}
	rs.prog.tty = isatty(STDERR_FILENO);
	rs.prog.start = rs.prog.last = mono_ns();
	struct lp_source src;
	struct lp_pd_source_hooks hooks = { replay_halt, give_build_id, &rs };
	if (!(rs.ps = lp_pd_source_new(rs.pd, &hooks, &src)) || lp_pd_source_build_ids(rs.ps)) {
		fprintf(stderr, "luaprof: out of memory\n");
		lp_pd_source_free(rs.ps);
		lp_perfdata_close(rs.pd);
		return LP_EXIT_FAILURE;
	}
	if (!run->aggs.on && check_handlers(run, rs.pd)) {      /* -x checks in on_start */
		lp_pd_source_free(rs.ps);
		lp_perfdata_close(rs.pd);
		return LP_EXIT_FAILURE;
	}
	if (run->vm.ref[LP_HOOK_START] != LUA_NOREF) {
		push_info(run->vm.L, &rs, file);
		run->aggs.start_src = &src;     /* a one-liner checks its names */
		lp_vm_call(run, LP_HOOK_START, 1);
		run->aggs.start_src = NULL;
	}
	read_ahead(run, rs.pd);
	int rc = run->failed ? -1 : 0;
	if (!rc)
		rc = lp_run_loop(run, &src);
	progress_end(&rs);
	const char *why = lp_pd_source_error(rs.ps) ? lp_pd_source_error(rs.ps) : "";
	if (rc < 0 && !run->failed)
		fprintf(stderr, "luaprof: %s (on_end sees the %llu samples read before it)\n",
			rc == -ENOMEM && !*why ? "out of memory" : why,
			(unsigned long long)run->loop->stats.samples);
	if (!run->failed || run->loop->hook_error)
		lp_run_end(run, lp_pd_source_span(rs.ps), -1);
	lp_pd_source_free(rs.ps);
	lp_perfdata_close(rs.pd);
	if (rc || run->failed)
		return LP_EXIT_FAILURE;
	run->loop->end_signal = run->loop->interrupted;
	return run->loop->end_signal ? 128 + run->loop->end_signal : 0;
}

int lp_replay(struct lp_run *run, const char *file, uint64_t duration_ns)
{
	int err = duration_ns ? lp_deadline_arm(duration_ns) : 0;
	if (err) {
		fprintf(stderr, "luaprof: cannot start the -d timer: %s\n", strerror(-err));
		return LP_EXIT_FAILURE;
	}
	int status = replay(run, file, duration_ns);
	lp_perfdata_set_stop(NULL, NULL);
	lp_deadline_disarm();
	return status;
}
