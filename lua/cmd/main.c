/*
 * main.c - luaprof's entry point: parse the command line, load the script,
 * open the events, run the hooks, and choose the exit status.
 *
 * Signals: SIGINT, SIGTERM and SIGHUP end the run cleanly (rings drained,
 * on_end called); a replay stops reading, runs on_end and exits 128+N.  A
 * hook still running a second after the signal is interrupted (guard.c).  A signal typed at the terminal reaches the command too,
 * as it would without luaprof; one sent to luaprof alone (kill) is passed
 * on to the command.  A command still running when the run ends for another
 * reason (a script error, luaprof.exit(), --duration) is sent SIGTERM.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dirent.h>
#include <limits.h>
#include <unistd.h>
#include <sys/wait.h>

#include <lauxlib.h>

#include "cli.h"
#include "list.h"
#include "lp.h"
#include "luaprof/live.h"
#include "luaprof/luaprof.h"
#include "luaprof/probe.h"
#include "luaprof/trace.h"
#include "lscript.h"
#include "record.h"
#include "replay.h"

static struct lp_live *volatile sig_live;

/* The context of the live source. */
struct live_src {
	struct lp_live *lv;
	const struct lp_cli *cli;
	struct lp_tp_set *formats;      /* tracepoint formats read so far */
};
static volatile sig_atomic_t sig_caught;

static struct lp_run *volatile sig_run;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	sig_caught = sig;
	lp_guard_signal(sig);           /* a hook that does not return is interrupted */
	if (sig_run)
		sig_run->interrupted = sig;     /* a replay stops reading */
	if (!sig_live)
		return;
	lp_live_stop(sig_live);
	if (si->si_code == SI_USER || si->si_code == SI_QUEUE)
		lp_live_signal(sig_live, sig);  /* not from the terminal: pass it on */
}

/* SIGPIPE is ignored (the launched command gets it back: workload.c), so
 * a closed output ends the run cleanly (vm.c) instead of killing luaprof
 * and, through PDEATHSIG, the command. */
static void install_signals(void)
{
	struct sigaction sa = { .sa_sigaction = on_signal, .sa_flags = SA_SIGINFO | SA_RESTART };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static void log_to_stderr(enum lp_log_level level, const char *msg, void *ctx)
{
	(void)ctx;
	if (level <= LP_WARN)
		fprintf(stderr, "luaprof: %s\n", msg);
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
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

static void source_alarm(void *ctx, uint64_t t)
{
	lp_live_set_alarm(ctx, t);
}

static int source_counts(void *ctx, struct lp_count *out)
{
	return lp_live_read_counts(ctx, out);
}

/* info.counts for the script: the live run's counters, read at each
 * on_interval and at the end.  0 or -1 (out of memory). */
static int setup_counts(struct lp_run *run, struct lp_live *lv, const struct lp_cli *cli)
{
	run->specs = cli->events.v;
	run->nr_specs = cli->events.n;
	run->live = true;
	run->counts_now = calloc(cli->events.n, sizeof *run->counts_now);
	run->counts_prev = calloc(cli->events.n, sizeof *run->counts_prev);
	if (!run->counts_now || !run->counts_prev) {
		fprintf(stderr, "luaprof: out of memory\n");
		return -1;
	}
	run->read_counts = source_counts;
	run->counts_ctx = lv;
	return 0;
}

/* The command's user and system CPU time, for on_end. */
static void set_usage(struct lp_run *run, const struct lp_live *lv)
{
	const struct rusage *ru = lp_live_usage(lv);
	if (!ru)
		return;
	run->user_ns = (int64_t)ru->ru_utime.tv_sec * 1000000000 + ru->ru_utime.tv_usec * 1000;
	run->sys_ns = (int64_t)ru->ru_stime.tv_sec * 1000000000 + ru->ru_stime.tv_usec * 1000;
}

static int source_next(void *ctx, struct lp_record *rec, int *event)
{
	return lp_live_next(((struct live_src *)ctx)->lv, rec, event);
}

static void source_stop(void *ctx)
{
	lp_live_stop(((struct live_src *)ctx)->lv);
}

static const char *source_event_name(void *ctx, int idx)
{
	const struct lp_cli *cli = ((struct live_src *)ctx)->cli;
	return idx >= 0 && (size_t)idx < cli->events.n ? cli->events.v[idx].name : NULL;
}

/* A tracepoint's format, read from tracefs at its first sample. */
static const struct lp_tp_format *source_event_format(void *ctx, int idx)
{
	struct live_src *ls = ctx;
	const struct lp_event_spec *e = &ls->cli->events.v[idx];
	const struct lp_tp_format *found;
	struct lp_tp_format *f;
	char sys[256];
	if ((size_t)idx >= ls->cli->events.n || e->type != PERF_TYPE_TRACEPOINT)
		return NULL;
	if ((found = lp_tp_set_find(ls->formats, e->config)))
		return found;
	const char *colon = strchr(e->name, ':');
	snprintf(sys, sizeof sys, "%.*s", colon ? (int)(colon - e->name) : 0, e->name);
	int rc = ls->formats ? lp_tracefs_format(sys, colon ? colon + 1 : "", &f) : -ENOMEM;
	if (!rc && !(rc = lp_tp_set_add(ls->formats, f)))
		return lp_tp_set_find(ls->formats, e->config);
	fprintf(stderr, "luaprof: cannot read the format of '%s' (%s): s.fields is nil for its "
			"samples\n", e->name, strerror(-rc));
	return NULL;
}

static uint64_t source_sample_type(void *ctx, int idx)
{
	struct live_src *ls = ctx;
	if (idx < 0 || (size_t)idx >= ls->cli->events.n)
		return ~(uint64_t)0;
	return lp_live_attr(ls->lv, (size_t)idx)->sample_type;
}

static void push_events(lua_State *L, const struct lp_cli *cli)
{
	lua_createtable(L, (int)cli->events.n, 0);
	for (size_t i = 0; i < cli->events.n; i++) {
		lua_pushstring(L, cli->events.v[i].name);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
}

static void call_on_start(struct lp_run *run, const struct lp_cli *cli, pid_t pid)
{
	lua_State *L = run->L;
	if (run->ref_on_start == LUA_NOREF)
		return;
	lua_createtable(L, 0, 3);
	push_events(L, cli);
	lua_setfield(L, -2, "events");
	if (cli->argv) {
		lua_newtable(L);
		for (int i = 0; cli->argv[i]; i++) {
			lua_pushstring(L, cli->argv[i]);
			lua_rawseti(L, -2, i + 1);
		}
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
	lua_setfield(L, -2, "system_wide");
	lp_vm_call(run, run->ref_on_start, 1);
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

/* Reads the processes that exist already (-p, -a) from /proc once, into
 * the model, the script's on_comm/on_fork and the recording, as perf record
 * synthesizes them (so a replay of the recording sees the same): with -a
 * every process, kernel threads included, with FORKs too.  A process that
 * exits meanwhile is simply left out. */
static void seed_procs(struct lp_run *run, const struct lp_cli *cli,
		       struct lp_recording *recording)
{
	struct seed s = { run, recording };
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
}

/* Warns of on_event keys that name none of the run's events. */
static void check_handlers(struct lp_run *run, const struct lp_cli *cli)
{
	const char **names = calloc(cli->events.n + 1, sizeof *names);
	for (size_t i = 0; names && i < cli->events.n; i++)
		names[i] = cli->events.v[i].name;
	if (names)
		lp_run_check_handlers(run, names, cli->events.n);
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
	char err[512];
	pid_t pid = -1;
	*exe = '\0';
	if (!watches_symbols(cli))
		return 0;
	if (cli->argv) {
		int rc = lp_probe_find_object(cli->argv[0], exe, size);
		if (rc) {
			fprintf(stderr, "luaprof: cannot find the program '%s' whose variables "
				"mem: watches: %s\n", cli->argv[0], strerror(-rc));
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
	if (lp_event_list_resolve(&cli->events, exe, pid, err, sizeof err)) {
		fprintf(stderr, "luaprof: %s\n", err);
		return -1;
	}
	return 0;
}

/* A script's run with kernel call stacks reads the kernel's symbols
 * before the events start: read at the first stack, they stalled the
 * draining of the rings for 90 ms (offcpu on pingpong lost up to half of
 * a short run's samples).  -1 (said) when out of memory, else 0. */
static int preload_kernel(struct lp_run *run, const struct lp_cli *cli, unsigned fb)
{
	if (!run->L || !(cli->sampling.callchain || cli->sampling.dwarf_stack) ||
	    (fb & LP_FALLBACK_USER_ONLY) || !lp_resolver_load_kernel(run->resolver))
		return 0;
	fprintf(stderr, "luaprof: out of memory\n");
	return -1;
}

/* The live part of a run; returns the process exit status. */
static int run_live(struct lp_run *run, struct lp_cli *cli)
{
	char err[512] = "", exe[PATH_MAX];
	unsigned fb = 0;
	if (resolve_watches(cli, exe, sizeof exe))
		return LP_EXIT_FAILURE;
	struct lp_live_opts o = {
		.argv = cli->argv, .pids = cli->pids, .nr_pids = cli->nr_pids,
		.system_wide = cli->system_wide || cli->script_system_wide, .events = cli->events.v,
		.nr_events = cli->events.n, .sampling = cli->sampling,
		.mmap_pages = cli->mmap_pages, .mmap_pages_exact = cli->mmap_pages_given,
		.duration_ns = cli->duration_ns, .exe = *exe ? exe : NULL,
	};
	struct lp_live *lv = lp_live_open(&o, &fb, err, sizeof err);
	if (!lv) {
		fprintf(stderr, "luaprof: %s\n", err);
		return LP_EXIT_FAILURE;
	}
	notices(cli, fb);
	pid_t pid = lp_live_pid(lv);
	if (!cli->system_wide && lp_targets_init(run, cli->argv ? &pid : cli->pids,
						 cli->argv ? 1 : cli->nr_pids)) {
		fprintf(stderr, "luaprof: out of memory\n");
		lp_live_wait(lv, 0);
		lp_live_close(lv);
		return LP_EXIT_FAILURE;
	}
	struct lp_recording *recording = NULL;
	if (cli->output && !(recording = lp_recording_open(cli->output, lv, run->procs,
							   cli->events.v, cli->events.n,
							   cli->argc, cli->all_argv))) {
		lp_live_wait(lv, 0);
		lp_live_close(lv);
		return LP_EXIT_FAILURE;
	}
	check_handlers(run, cli);
	call_on_start(run, cli, pid);
	seed_procs(run, cli, recording);
	run->set_alarm = source_alarm;
	run->alarm_ctx = lv;
	sig_live = lv;
	if (preload_kernel(run, cli, fb))
		run->failed = true;
	uint64_t t0 = now_ns();
	if (cli->sampling.count_only)
		lp_run_set_origin(run, t0);
	int rc = run->failed ? -1 : setup_counts(run, lv, cli) ? 1 : lp_live_start(lv, err, sizeof err);
	if (rc == 1)
		snprintf(err, sizeof err, "out of memory");
	if (rc > 0 || (rc < 0 && !run->failed))
		fprintf(stderr, "luaprof: %s\n", err);
	if (rc == 0) {
		struct live_src ctx = { lv, cli, lp_tp_set_new() };
		struct lp_source src = { &ctx, source_next, source_stop, source_event_name,
					 source_event_format, source_sample_type };
		if (recording)
			lp_recording_source(recording, &src, &src);
		rc = lp_run_loop(run, &src);
		if (rc < 0 && !run->failed)
			fprintf(stderr, "luaprof: reading the samples failed: %s\n", strerror(-rc));
		lp_tp_set_free(ctx.formats);
	}
	uint64_t t1 = now_ns();
	int grace = rc == 0 && sig_caught ? 1000 : (rc == 0 && (run->output_closed ||
		    (!run->exit_requested && !cli->duration_ns)) ? -1 : 0);
	int status = lp_live_wait(lv, grace);
	int xerr = lp_live_exec_error(lv);
	sig_live = NULL;
	if (xerr) {             /* nothing of it ran: no on_end */
		fprintf(stderr, "luaprof: cannot run '%s': %s\n", cli->argv[0], strerror(-xerr));
		rc = -1;
		run->failed = true;
	}
	report_losses(lv);
	set_usage(run, lv);
	if (cli->sampling.count_only && t1 > run->last_time)
		run->last_time = t1;
	if (rc == 0)
		lp_run_end(run, t1 - t0, status >= 0 ? exit_code(status) : -1);
	lp_live_close(lv);
	if (recording && lp_recording_close(recording, !cli->no_buildid_cache))
		rc = -1;
	if (rc || run->failed)
		return LP_EXIT_FAILURE;
	return status >= 0 ? exit_code(status) : 0;
}

static int stat_main(int argc, char **argv);

/* Commands that are not a plain run: each takes luaprof's argv from its
 * name on.  A new command is one more line here. */
static const struct {
	const char *name;
	int (*main)(int argc, char **argv);     /* returns the exit status */
} commands[] = {
	{ "list", lp_list_main },
	{ "stat", stat_main },
};

/* Resolves the script's name and hands its options to the run; 0 or -1. */
static int prepare_script(struct lp_run *run, struct lp_cli *cli, char *path, size_t size)
{
	char err[PATH_MAX + 256];
	if (!cli->script)
		return 0;
	if (lp_script_find(cli->script, path, size, err, sizeof err)) {
		fprintf(stderr, "luaprof: %s\n", err);
		return -1;
	}
	run->name = cli->script;
	cli->script = path;
	run->mode = cli->script_help ? LP_MODE_HELP : LP_MODE_RUN;
	run->script_opts = cli->script_opts;
	run->nr_script_opts = cli->nr_script_opts;
	return 0;
}

/* What the script's hooks settle: on_interval needs an interval, and an
 * interval needs on_interval; on_switch asks for the switch records. */
static int check_hooks(struct lp_run *run, struct lp_cli *cli)
{
	if (run->ref_on_switch != LUA_NOREF)
		cli->sampling.switch_events = true;
	run->interval_ns = cli->interval_ns;
	if (run->interval_ns && run->ref_on_interval == LUA_NOREF && cli->script) {
		fprintf(stderr, "luaprof: %s has no on_interval function: -I (or "
			"luaprof.setup{interval=MS}) needs one\n", cli->script);
		return -1;
	}
	return 0;
}

/* luaprof run ...: parse, load the script, run it live or over a recording. */
static int run_main(int argc, char **argv)
{
	struct lp_cli cli;
	int rc = lp_cli_parse(&cli, argc, argv);
	if (rc) {
		lp_cli_free(&cli);
		return rc > 0 ? 0 : LP_EXIT_FAILURE;
	}
	lp_log_set_hook(log_to_stderr, NULL);
	lp_sym_set_debuginfod(!cli.no_debuginfod);
	if (cli.symfs && lp_sym_set_symfs(cli.symfs)) {
		fprintf(stderr, "luaprof: --symfs %s: name too long\n", cli.symfs);
		lp_cli_free(&cli);
		return LP_EXIT_FAILURE;
	}
	struct lp_run run = { .ref_on_sample = LUA_NOREF, .ref_on_end = LUA_NOREF,
			      .ref_on_start = LUA_NOREF, .ref_on_interval = LUA_NOREF,
			      .ref_on_comm = LUA_NOREF, .ref_on_fork = LUA_NOREF,
			      .ref_on_exit = LUA_NOREF, .ref_on_switch = LUA_NOREF,
			      .switch_view.ref = LUA_NOREF, .cli = &cli, .user_ns = -1, .sys_ns = -1,
			      .script_timeout = cli.script_timeout_ns,
			      .script_memory = cli.script_memory_mb < 0 ? lp_guard_default_memory() :
					       (size_t)cli.script_memory_mb << 20 };
	char path[4096];
	run.procs = lp_procs_new();
	run.resolver = run.procs ? lp_resolver_new(run.procs, NULL) : NULL;
	int status = LP_EXIT_FAILURE;
	if (!run.resolver)
		fprintf(stderr, "luaprof: out of memory\n");
	else if (prepare_script(&run, &cli, path, sizeof path))
		;
	else if (cli.script && (rc = lp_vm_open(&run, cli.script, cli.args, cli.nargs)) != 0)
		status = rc > 0 ? 0 : LP_EXIT_FAILURE;
	else if (check_hooks(&run, &cli) == 0 && lp_cli_finish(&cli) == 0) {
		sig_run = &run;
		install_signals();
		status = cli.input ? lp_replay(&run, cli.input) : run_live(&run, &cli);
	}
	if (lp_vm_flush(&run))
		status = LP_EXIT_FAILURE;
	sig_run = NULL;
	free(run.counts_now);
	free(run.counts_prev);
	lp_vm_close(&run);
	lp_targets_free(&run);
	lp_resolver_free(run.resolver);
	lp_procs_free(run.procs);
	lp_cli_free(&cli);
	return status;
}

/* luaprof stat [options] [--] CMD: the shipped stat script, which counts
 * (luaprof.setup{count_only = true}) and prints as perf stat does. */
static int stat_main(int argc, char **argv)
{
	char **v = calloc((size_t)argc + 3, sizeof *v);
	if (!v) {
		fprintf(stderr, "luaprof: out of memory\n");
		return LP_EXIT_FAILURE;
	}
	static char prog[] = "luaprof", run[] = "run", stat[] = "stat";
	v[0] = prog;
	v[1] = run;
	v[2] = stat;
	for (int i = 1; i < argc; i++)
		v[i + 2] = argv[i];
	int rc = run_main(argc + 2, v);
	free(v);
	return rc;
}

int main(int argc, char **argv)
{
	for (size_t i = 0; argc > 1 && i < sizeof commands / sizeof *commands; i++)
		if (!strcmp(argv[1], commands[i].name)) {
			lp_log_set_hook(log_to_stderr, NULL);
			return commands[i].main(argc - 1, argv + 1);
		}
	return run_main(argc, argv);
}
