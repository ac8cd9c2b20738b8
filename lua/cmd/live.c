/*
 * live.c - a script's live run: the events opened on the command, the -p
 * processes or the whole system, their records handed to the driver loop
 * (run.c) as a source (core/live/livesrc.c), as replay.c hands a
 * recording's.
 *
 * A run is three steps: live_open opens the events (and the recording of
 * -o), live_loop starts them and feeds the script until the end, and
 * live_finish waits for the command, reports and ends the run, closes
 * what live_open opened and chooses the exit status; every path out goes
 * through live_finish once the events are open.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <linux/perf_event.h>

#include <lauxlib.h>

#include "cmd.h"
#include "cli.h"
#include "lp.h"
#include "lpaux.h"
#include "luaprof/err.h"
#include "luaprof/luaprof.h"
#include "luaprof/live.h"
#include "luaprof/probe.h"
#include "luaprof/sym.h"
#include "record.h"
#include "run.h"

/* ---- what the run adds to the loop ---- */

static void source_alarm(void *ctx, uint64_t t)
{
	lp_live_set_alarm(ctx, t);
}


static int source_counts(void *ctx, struct lp_count *out)
{
	return lp_live_read_counts(ctx, out);
}


/* info.values for the script: the live run's counters, read at each
 * on_interval and at the end.  0 or -1 (out of memory). */
static int setup_counts(struct lp_run *run, struct lp_live *lv, const struct lp_cli *cli)
{
	run->live.specs = cli->events.v;
	run->live.nr_specs = cli->events.n;
	run->live.on = true;
	run->loop->live.counts_now = calloc(cli->events.n, sizeof *run->loop->live.counts_now);
	run->loop->live.counts_prev = calloc(cli->events.n, sizeof *run->loop->live.counts_prev);
	if (!run->loop->live.counts_now || !run->loop->live.counts_prev) {
		fprintf(stderr, "luaprof: out of memory\n");
		return -1;
	}
	run->loop->live.read_counts = source_counts;
	run->loop->live.counts_ctx = lv;
	return 0;
}


/* The command's user and system CPU time, for on_end. */
static void set_usage(struct lp_run *run, const struct lp_live *lv)
{
	const struct rusage *ru = lp_live_usage(lv);
	if (!ru)
		return;
	run->loop->live.user_ns = (int64_t)ru->ru_utime.tv_sec * 1000000000 + ru->ru_utime.tv_usec * 1000;
	run->loop->live.sys_ns = (int64_t)ru->ru_stime.tv_sec * 1000000000 + ru->ru_stime.tv_usec * 1000;
}

/* How far the script fell behind, for on_end's info.backlog. */
static void set_backlog(struct lp_run *run, const struct lp_live *lv)
{
	const struct lp_live_stats *st = lp_live_stats(lv);
	run->loop->live.has_backlog = true;
	run->loop->live.max_backlog = st->max_backlog;
	run->loop->live.max_lag_ns = st->max_lag_ns;
}


static void notices(const struct lp_cli *cli, unsigned fb)
{
	if (fb & LP_FALLBACK_CPU_CLOCK)
		fprintf(stderr, "luaprof: no hardware 'cycles' event on this machine (no PMU, "
				"as in most VMs): sampling cpu-clock instead\n");
	if (fb & LP_FALLBACK_USER_ONLY)
		fprintf(stderr, "luaprof: kernel samples not allowed (kernel.perf_event_paranoid=%d): "
				"profiling user space only (:u)\n", lp_event_paranoid());
	if (fb & LP_FALLBACK_NO_INHERIT)
		fprintf(stderr, "luaprof: this kernel reads a group with each sample only in the "
				"threads it was opened on (Linux 6.12 follows new ones): the threads "
				"and processes the command starts are not profiled\n");
	(void)cli;
}


static void push_events(lua_State *L, const struct lp_cli *cli)
{
	lua_createtable(L, (int)cli->events.n, 0);
	for (size_t i = 0; i < cli->events.n; i++) {
		lua_pushstring(L, cli->events.v[i].name);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
}


/* on_start's facts of the machine and the run that a replay reads from
 * the recording's header, so that info has one shape: cmdline (luaprof's
 * own command line), hostname, os_release, arch, nr_cpus and perf_version
 * (the recorder: "luaprof VERSION", as luaprof record writes it). */
static void push_machine(lua_State *L, const struct lp_cli *cli)
{
	struct utsname u;
	if (cli->all_argv && cli->argc > 0) {
		lp_push_strings(L, (const char *const *)cli->all_argv, (size_t)cli->argc);
		lua_setfield(L, -2, "cmdline");
	}
	if (!uname(&u)) {
		lua_pushstring(L, u.nodename);
		lua_setfield(L, -2, "hostname");
		lua_pushstring(L, u.release);
		lua_setfield(L, -2, "os_release");
		lua_pushstring(L, u.machine);
		lua_setfield(L, -2, "arch");
	}
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n > 0) {
		lua_pushinteger(L, n);
		lua_setfield(L, -2, "nr_cpus");
	}
	lua_pushliteral(L, "luaprof " LP_VERSION);
	lua_setfield(L, -2, "perf_version");
}

/* info.freq (samples per second) or info.period (events per sample): the
 * first event's rate as opened; neither when it only counts. */
static void push_rate(lua_State *L, struct lp_live *lv, const struct lp_cli *cli)
{
	const struct perf_event_attr *a = cli->events.n ? lp_live_attr(lv, 0) : NULL;
	if (!a || cli->sampling.count_only || !a->sample_period)
		return;
	lua_pushinteger(L, (lua_Integer)a->sample_period);     /* sample_freq, when freq */
	lua_setfield(L, -2, a->freq ? "freq" : "period");
}


static void call_on_start(struct lp_run *run, const struct lp_cli *cli, struct lp_live *lv)
{
	lua_State *L = run->vm.L;
	pid_t pid = lp_live_pid(lv);
	if (run->vm.ref[LP_HOOK_START] == LUA_NOREF)
		return;
	lua_createtable(L, 0, 5);
	push_rate(L, lv, cli);
	push_events(L, cli);
	lua_setfield(L, -2, "events");
	if (cli->argv) {
		size_t n = 0;
		while (cli->argv[n])
			n++;
		lp_push_strings(L, (const char *const *)cli->argv, n);
		lua_setfield(L, -2, "command");
		lua_pushinteger(L, pid);
		lua_setfield(L, -2, "pid");
	}
	if (cli->nr_pids) {
		lua_createtable(L, (int)cli->nr_pids, 0);
		for (size_t i = 0; i < cli->nr_pids; i++) {
			lua_pushinteger(L, cli->pids[i]);
			lua_rawseti(L, -2, (lua_Integer)i + 1);
		}
		lua_setfield(L, -2, "pids");
	}
	lua_pushboolean(L, cli->system_wide || cli->script_system_wide);
	lua_setfield(L, -2, "all_cpus");
	push_machine(L, cli);
	lp_fields_set_strict(L, &lp_run_start_fields);
	lp_vm_call(run, LP_HOOK_START, 1);
}


/* 128+N for a signal, the code for an exit. */
static int exit_code(int status)
{
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}


/* What a /proc scan feeds: the model, the script's process hooks and,
 * when recording, the file. */
struct seed {
	struct lp_run *run;
	struct lp_recording *recording;
};


static int seed_record(const struct lp_record *r, void *arg)
{
	struct seed *s = arg;
	if (s->recording)
		lp_recording_synth(s->recording, r);
	int rc = lp_procs_apply(s->run->procs, r);
	if (!rc && !s->run->failed)
		lp_run_task_hook(s->run, r);    /* a failure stops the run before it starts */
	return rc;
}


/* Reads the BPF programs loaded now (lp_bpf_scan) and the processes that
 * exist already (-p, -a) from /proc once, into the model, the script's
 * on_comm/on_fork and the recording, as perf record synthesizes them (so
 * a replay of the recording sees the same): with -a
 * every process, kernel threads included, with FORKs too.  A process that
 * exits meanwhile is simply left out.  Called once the events are on
 * (live_go), so that what changes meanwhile is in the records too. */
static void seed_procs(struct lp_run *run, const struct lp_cli *cli,
		       struct lp_recording *recording)
{
	struct seed s = { run, recording };
	/* the BPF programs loaded now, as perf record writes them: the
	 * kernel reports those loaded and unloaded from now on */
	if (!cli->sampling.count_only)
		lp_bpf_scan(seed_record, &s);
	for (size_t i = 0; i < cli->nr_pids; i++)
		lp_procfs_scan(cli->pids[i], LP_SCAN_MAPS, seed_record, &s);
	if (!cli->system_wide)
		return;
	DIR *d = opendir("/proc");
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (de->d_name[0] >= '1' && de->d_name[0] <= '9')
			lp_procfs_scan(atoi(de->d_name), LP_SCAN_MAPS | LP_SCAN_FORK, seed_record, &s);
	if (d)
		closedir(d);
}


/* Whether the queue's bound cost samples, or nearly did: a script that
 * fell behind while the queue held the backlog with room to spare lost
 * nothing and is not worth a line (on_end's info.backlog has it). */
static void report_backlog(const struct lp_live_stats *st)
{
	if (st->queue_full)
		fprintf(stderr, "luaprof: the queue of records waiting for the script reached its "
				"bound (%zu KiB) %llu time%s, and the kernel dropped samples meanwhile: "
				"use a larger --queue-size\n", st->queue_bytes >> 10,
			(unsigned long long)st->queue_full, st->queue_full == 1 ? "" : "s");
	else if (st->queue_bytes && st->queue_peak >= st->queue_bytes / 2)
		fprintf(stderr, "luaprof: the script fell behind the samples by up to %llu samples "
				"(%.2f s), and the queue held up to %zu KiB of its %zu KiB bound: "
				"near the point where the kernel drops samples (a larger "
				"--queue-size, a lower -F)\n", (unsigned long long)st->max_backlog,
			(double)st->max_lag_ns / 1e9, st->queue_peak >> 10, st->queue_bytes >> 10);
}

static void report_losses(const struct lp_live *lv)
{
	const struct lp_live_stats *st = lp_live_stats(lv);
	if (st->lost)
		fprintf(stderr, "luaprof: the kernel lost %llu samples (ring full): use a larger "
				"-m or a lower -F\n", (unsigned long long)st->lost);
	/* A throttle in the idle task is no sign of too high a rate: an idle
	 * CPU's tick stops, and the kernel counts its timer's samples against
	 * the last tick until the count passes its per-tick limit. */
	uint64_t busy = st->throttle - st->throttle_idle, idle = st->throttle_idle;
	if (busy)
		fprintf(stderr, "luaprof: the kernel throttled sampling %llu time%s: use a lower -F "
				"(its limit is kernel.perf_event_max_sample_rate)\n",
			(unsigned long long)busy, busy == 1 ? "" : "s");
	if (idle)
		fprintf(stderr, "luaprof: the kernel throttled sampling %llu time%s on idle CPUs (their "
				"tick stops): only the idle task and at most a tick of what ran next "
				"went unsampled\n", (unsigned long long)idle, idle == 1 ? "" : "s");
	if (st->bad_records)
		fprintf(stderr, "luaprof: %llu malformed records were skipped\n",
			(unsigned long long)st->bad_records);
	if (st->late)
		fprintf(stderr, "luaprof: %llu record%s reached the script out of time order, up to "
				"%.1f ms behind (the kernel wrote %s more than the merge's wait after "
				"stamping %s: a stalled CPU); the wait grew to %.0f ms\n",
			(unsigned long long)st->late, st->late == 1 ? "" : "s",
			(double)st->max_late_ns / 1e6, st->late == 1 ? "it" : "them",
			st->late == 1 ? "it" : "them", (double)st->slack_ns / 1e6);
	report_backlog(st);
}

/* One line for each watchpoint (mem:) that counted nothing.  The kernel
 * places a watchpoint even where the breakpoint PMU never fires (many
 * VMs), and perf then says nothing; a user deserves to know that zero
 * may mean "cannot watch here" rather than "never written". */
static void report_silent_watchpoints(struct lp_live *lv, const struct lp_cli *cli)
{
	size_t n = cli->events.n;
	struct lp_count *c = calloc(n ? n : 1, sizeof *c);
	if (c && lp_live_read_counts(lv, c) == 0)
		for (size_t i = 0; i < n; i++)
			if (cli->events.v[i].type == PERF_TYPE_BREAKPOINT && c[i].supported &&
			    c[i].enabled && !c[i].value)
				fprintf(stderr, "luaprof: %s counted nothing: no such access happened, "
						"or hardware breakpoints do not fire on this machine "
						"(as in many VMs)\n",
						LP_SHOW(cli->events.v[i].name));
	free(c);
}

/* Warns of on_event keys that name none of the run's events, or stops
 * the run (run->failed) when one was meant for an event no hook takes. */
static void check_handlers(struct lp_run *run, const struct lp_cli *cli)
{
	const char **names = calloc(cli->events.n + 1, sizeof *names);
	for (size_t i = 0; names && i < cli->events.n; i++)
		names[i] = cli->events.v[i].name;
	if (names && lp_run_check_handlers(run, names, cli->events.n))
		run->failed = true;
	free(names);
}


/* Whether any event is a watchpoint on a variable not yet found. */
static bool watches_symbols(const struct lp_cli *cli)
{
	for (size_t i = 0; i < cli->events.n; i++)
		if (cli->events.v[i].probe == LP_PROBE_WATCH && cli->events.v[i].probe_str &&
		    !cli->events.v[i].config1)
			return true;
	return false;
}


/* Finds the variables of mem:SYMBOL events in the program they watch:
 * the command's (moved at its exec when it is PIE), or the first -p
 * process's.  exe gets the program's file ("" when there is none to
 * find).  0 or -1 after a message. */
static int resolve_watches(struct lp_cli *cli, char *exe, size_t size)
{
	pid_t pid = -1;
	*exe = '\0';
	if (!watches_symbols(cli))
		return 0;
	if (cli->argv) {
		int rc = lp_probe_find_object(cli->argv[0], exe, size);
		if (rc) {
			fprintf(stderr, "luaprof: cannot find the program '%s' whose variables "
				"mem: watches: %s\n", LP_SHOW(cli->argv[0]), strerror(-rc));
			return -1;
		}
	} else if (cli->nr_pids) {
		char link[64];
		pid = cli->pids[0];
		snprintf(link, sizeof link, "/proc/%d/exe", (int)pid);
		ssize_t n = readlink(link, exe, size - 1);
		if (n <= 0) {
			fprintf(stderr, "luaprof: cannot read %s for mem:'s variables: %s\n", link,
				strerror(errno));
			return -1;
		}
		exe[n] = '\0';
	} else {
		fprintf(stderr, "luaprof: mem:VARIABLE watches a variable of a program: give the "
			"command (-- CMD) or -p PID, or watch an address (mem:0xADDRESS)\n");
		return -1;
	}
	if (lp_event_list_resolve(&cli->events, exe, pid)) {
		fprintf(stderr, "luaprof: %s\n", lp_last_error());
		return -1;
	}
	return 0;
}


/* A script's run with kernel call stacks reads the kernel's symbols
 * before its loop starts (live_go says when): read at the first stack,
 * they would hold the script up for a tenth of a second or more while the
 * records pile up.  -1 (said) when out of memory, else 0. */
static int preload_kernel(struct lp_run *run, const struct lp_cli *cli, unsigned fb)
{
	if (!run->vm.L || !(cli->sampling.callchain || cli->sampling.dwarf_stack) ||
	    (fb & LP_FALLBACK_USER_ONLY) || !lp_resolver_load_kernel(run->resolver))
		return 0;
	fprintf(stderr, "luaprof: out of memory\n");
	return -1;
}


/* After a second signal ended the loop: the records the script did not
 * get, counted for one line, and still written to the -o recording (src
 * is then its tee, which reads the model's maps: they are applied). */
static void skip_rest(struct lp_run *run, const struct lp_source *src, bool recording)
{
	struct lp_record rec;
	int event, rc;
	uint64_t skipped = 0;
	while ((rc = src->next(src->ctx, &rec, &event)) > 0) {
		if (rc != 1)
			continue;
		if (rec.type == PERF_RECORD_SAMPLE)
			skipped++;
		else if (lp_procs_apply(run->procs, &rec))
			break;
	}
	if (skipped)
		fprintf(stderr, "luaprof: a second signal: the %llu samples still queued for the "
				"script were skipped (on_end sees the %llu it got%s)\n",
			(unsigned long long)skipped,
			(unsigned long long)run->loop->stats.samples,
			recording ? "; the recording has them all" : "");
}


/* ---- the run: open, loop, finish ---- */

struct live_run {
	struct lp_run *run;
	struct lp_cli *cli;
	struct lp_live *lv;             /* the events, once open */
	struct lp_recording *recording; /* -o */
	unsigned fb;                    /* LP_FALLBACK_* */
	bool looped;                    /* live_loop ran: the run is to be ended */
	bool started;                   /* the events and the command were started */
	uint64_t t0, t1;                /* the loop's start and end (CLOCK_MONOTONIC) */
	char exe[PATH_MAX];             /* the program mem:VARIABLE watches */
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A sampling frequency above kernel.perf_event_max_sample_rate, which the
 * kernel refuses (EINVAL), is lowered to it with one line, as perf does
 * for -F: the run's (-F, luaprof.setup's freq, the default) and an
 * event's own freq= term alike.  The kernel lowers that limit by itself
 * when sampling interrupts take too long, so even the default rate can
 * meet it. */
static void limit_rate(struct lp_cli *cli)
{
	uint64_t max = lp_event_max_sample_rate();
	struct lp_sampling *s = &cli->sampling;
	if (!max || s->count_only)
		return;
	if (!s->use_period && s->freq > max) {
		fprintf(stderr, "luaprof: -F %llu is above kernel.perf_event_max_sample_rate: "
				"sampling at %llu Hz (raise the limit with sysctl "
				"kernel.perf_event_max_sample_rate=N)\n",
			(unsigned long long)s->freq, (unsigned long long)max);
		s->freq = max;
	}
	for (size_t i = 0; i < cli->events.n; i++) {
		struct lp_event_spec *e = &cli->events.v[i];
		if (e->rate != LP_RATE_OWN || e->use_period || e->freq <= max)
			continue;
		fprintf(stderr,
			"luaprof: %s: freq=%llu is above kernel.perf_event_max_sample_rate: "
				"sampling at %llu Hz (raise the limit with sysctl "
				"kernel.perf_event_max_sample_rate=N)\n", LP_SHOW(e->name),
			(unsigned long long)e->freq, (unsigned long long)max);
		e->freq = max;
	}
}

/* Opens the events, the set of target processes and the recording.  0,
 * or -1 after a message (lr->lv is then NULL, or open for live_finish). */
static int live_open(struct live_run *lr)
{
	struct lp_cli *cli = lr->cli;
	if (resolve_watches(cli, lr->exe, sizeof lr->exe))
		return -1;
	limit_rate(cli);
	struct lp_live_opts o = {
		.argv = cli->argv, .pids = cli->pids, .nr_pids = cli->nr_pids,
		.system_wide = cli->system_wide || cli->script_system_wide, .events = cli->events.v,
		.nr_events = cli->events.n, .sampling = cli->sampling,
		.mmap_pages = cli->mmap_pages, .mmap_pages_exact = cli->mmap_pages_given,
		.duration_ns = cli->duration_ns, .exe = *lr->exe ? lr->exe : NULL,
		.queue_bytes = (size_t)cli->queue_bytes,
	};
	if (!(lr->lv = lp_live_open(&o, &lr->fb))) {
		fprintf(stderr, "luaprof: %s\n", lp_last_error());
		return -1;
	}
	notices(cli, lr->fb);
	pid_t pid = lp_live_pid(lr->lv);
	if (!cli->system_wide && lp_targets_init(lr->run, cli->argv ? &pid : cli->pids,
						 cli->argv ? 1 : cli->nr_pids)) {
		fprintf(stderr, "luaprof: out of memory\n");
		return -1;
	}
	if (cli->output && !(lr->recording = lp_recording_open(cli->output, lr->lv, lr->run->procs,
							       cli->events.v, cli->events.n,
							       cli->argc, cli->all_argv)))
		return -1;
	return 0;
}

/* Lets the run go: the command's exec, or the events of -p and -a
 * enabled; then what exists already is read from /proc, and the
 * recording put in place.  /proc is read after the events are enabled,
 * as perf record does for -a (its tracking event is on before it reads
 * /proc): an exec or a new map between the two is in the records then,
 * where before the enabling nothing would tell of it, and the samples
 * after it stayed unnamed.  Kernel symbols are read before a command
 * starts (it waits for them, nothing of it is lost), but only after the
 * events of -p and -a are on, since the processes run meanwhile: the
 * drain thread keeps their records.  A signal before the start ends the
 * run there (lr->started stays false).  0, or -1 (reported). */
static int live_go(struct live_run *lr)
{
	struct lp_run *run = lr->run;
	struct lp_cli *cli = lr->cli;
	bool cmd = cli->argv != NULL;
	if (cmd && preload_kernel(run, cli, lr->fb))
		run->failed = true;
	lr->t0 = now_ns();
	if (cli->sampling.count_only)
		lp_run_set_origin(run, lr->t0);
	/* a signal during all of the above ends the run here, before it starts
	 * (the command, corked, is cancelled); none acts half-way through the
	 * start */
	sigset_t held;
	bool early = lp_cmd_signals_live(lr->lv, &held);
	int rc = run->failed ? -1 : setup_counts(run, lr->lv, cli) ? 1 :
		 early ? 0 : lp_live_start(lr->lv);
	lr->started = !early && rc == 0;
	lp_cmd_signals_release(&held);
	/* the recording's place waits for the exec; a counting run, which
	 * keeps none, does not wait (see lp_live_confirm) */
	if (lr->started && lr->recording)
		rc = lp_live_confirm(lr->lv);
	if (rc > 0 || (rc < 0 && !run->failed))   /* 1: setup_counts ran out of memory */
		fprintf(stderr, "luaprof: %s\n", rc > 0 ? "out of memory" : lp_last_error());
	if (rc || !lr->started) {
		lr->started = false;
		return rc ? -1 : 0;
	}
	seed_procs(run, cli, lr->recording);
	if (!cmd && !run->failed && preload_kernel(run, cli, lr->fb))
		run->failed = true;
	if (run->failed || (lr->recording && lp_recording_place(lr->recording)))
		return -1;
	return 0;
}

/* Every record of the started run to the script (and the -o recording,
 * through its tee), then what a second signal left, skipped.  0, or -1
 * or -errno (reported). */
static int feed(struct live_run *lr)
{
	struct lp_run *run = lr->run;
	struct lp_source src;
	struct lp_live_source *ls = lp_live_source_new(lr->lv, lr->cli->events.v,
						       lr->cli->events.n, &src);
	if (!ls) {
		fprintf(stderr, "luaprof: out of memory\n");
		return -1;
	}
	if (lr->recording && lp_recording_source(lr->recording, &src, &src)) {
		lp_live_source_free(ls);
		return -1;
	}
	int rc = lp_run_loop(run, &src);
	if (rc < 0 && !run->failed)
		fprintf(stderr, "luaprof: reading the samples failed: %s\n", strerror(-rc));
	if (rc == 0 && lp_cmd_signal_count() > 1)
		skip_rest(run, &src, lr->recording != NULL);
	lp_live_source_free(ls);
	return rc;
}

/* on_start, the run started (live_go), then every record fed to the
 * script until the end.  0, or -1 (reported). */
static int live_loop(struct live_run *lr)
{
	struct lp_run *run = lr->run;
	struct lp_cli *cli = lr->cli;
	lr->looped = true;
	check_handlers(run, cli);
	if (!run->failed)
		call_on_start(run, cli, lr->lv);
	run->loop->interval.set_alarm = source_alarm;
	run->loop->interval.alarm_ctx = lr->lv;
	int rc = live_go(lr);
	if (rc == 0 && lr->started)
		rc = feed(lr);
	lr->t1 = now_ns();
	return rc;
}

/* After the loop: what the run ends with (the command's failure to start,
 * the kernel's losses, the command's CPU times, on_end).  status: the
 * command's wait status.  Returns rc, or -1 when the command never ran. */
static int live_report(struct live_run *lr, int rc, int status)
{
	struct lp_run *run = lr->run;
	int xerr = lp_live_exec_error(lr->lv);
	if (xerr) {             /* nothing of it ran: no on_end */
		fprintf(stderr, "luaprof: cannot run '%s': %s\n", LP_SHOW(lr->cli->argv[0]),
			strerror(-xerr));
		rc = -1;
		run->failed = true;
	}
	report_losses(lr->lv);
	if (!xerr)
		report_silent_watchpoints(lr->lv, lr->cli);
	set_usage(run, lr->lv);
	set_backlog(run, lr->lv);
	if (lr->cli->sampling.count_only && lr->t1 > run->loop->interval.last_time)
		run->loop->interval.last_time = lr->t1;
	if (rc == 0 || (run->loop->hook_error && !xerr))
		lp_run_end(run, lr->t1 - lr->t0, status >= 0 ? exit_code(status) : -1);
	return rc;
}

/* Waits for the command (a second after a signal, to its end when it is
 * what ends the run, else not at all), ends the run when the loop ran,
 * closes the events and the recording.  rc: the previous steps' result.
 * Returns the process exit status. */
static int live_finish(struct live_run *lr, int rc)
{
	struct lp_run *run = lr->run;
	int grace = 0;
	if (lr->started && rc == 0)
		grace = lp_cmd_signal_first() ? 1000 : (run->output_closed ||
			(!run->exit_requested && !lr->cli->duration_ns)) ? -1 : 0;
	int status = lp_live_wait(lr->lv, grace);
	if (!lr->started)
		status = -1;            /* a command never started has no status */
	lp_cmd_signals_live(NULL, NULL);
	if (lr->looped)
		rc = live_report(lr, rc, status);
	lp_live_close(lr->lv);
	if (lr->recording && !lr->started && !rc && lp_cmd_signal_first())
		fprintf(stderr, "luaprof: %s came before the run started: nothing recorded, %s "
			"left as it was\n", strsignal(lp_cmd_signal_first()), LP_SHOW(lr->cli->output));
	if (lr->recording && lp_recording_close(lr->recording, !lr->cli->no_buildid_cache))
		rc = -1;
	if (rc || run->failed)
		return LP_EXIT_FAILURE;
	if (status >= 0)
		return exit_code(status);
	run->loop->end_signal = lp_cmd_signal_first();
	return run->loop->end_signal ? 128 + run->loop->end_signal : 0;
}

int lp_run_live(struct lp_run *run, struct lp_cli *cli)
{
	struct live_run lr = { .run = run, .cli = cli };
	int rc = live_open(&lr);
	if (!lr.lv)
		return LP_EXIT_FAILURE;
	return live_finish(&lr, rc ? rc : live_loop(&lr));
}
