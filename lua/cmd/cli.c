/*
 * cli.c - parsing luaprof's command line.  Every mistake gets one line that
 * names the problem and the fix.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "luaprof/luaprof.h"

#define DEFAULT_FREQ 4000
#define DEFAULT_PAGES 256

static const char usage[] =
"usage: luaprof run SCRIPT [script options] [options] [--] [CMD [ARGS...]]\n"
"       luaprof run SCRIPT [script options] -i FILE\n"
"       luaprof run SCRIPT --help\n"
"       luaprof -x 'EVENT [/COND/] { LUA } ...' [options] [-p PID | -a | -i FILE | [--] CMD]\n"
"       luaprof list scripts\n"
"       luaprof record [options] [-o FILE] [--] CMD [ARGS...]\n"
"       luaprof record [options] [-o FILE] -p PID[,PID...] | -a\n"
"       luaprof list [PATTERN | --fields TRACEPOINT]\n"
"       luaprof stat [-e EVENTS] [-I MS] [-p PID | -a] [--] [CMD [ARGS...]]\n"
"       luaprof top [-e EVENT] [-g] [-I MS] [-p PID | -- CMD]   (a live view;\n"
"                   the whole system by default: luaprof run live)\n"
"\n"
"Runs SCRIPT (Lua 5.4) over the samples of CMD and every thread and process\n"
"it starts, of running processes (-p), or of the whole system (-a).  SCRIPT\n"
"is a path, or a bare name looked up in $LUAPROF_PATH,\n"
"~/.local/share/luaprof/scripts and luaprof's own scripts (luaprof list\n"
"scripts).  Script options (--name=value) follow SCRIPT: luaprof run SCRIPT\n"
"--help lists them.\n"
"\n"
"luaprof -x PROGRAM runs a one-liner: LUA for each sample of EVENT, with\n"
"s, comm, pid, tid, cpu, args, ... in scope, count(k...), sum(v, k...),\n"
"hist(v, k...) printed at the end as bpftrace prints its maps, str(ptr)\n"
"(see luaprof(1)).  With no -p, -i or command it watches the whole system.\n"
"\n"
"options:\n"
"  -x, --program PROGRAM         run the one-liner PROGRAM instead of a SCRIPT\n"
"  -e, --event EVENT[,EVENT...]  events to sample (repeatable); default: cycles,\n"
"                                or cpu-clock when there is no hardware PMU.\n"
"                                Modifiers :u :k :p :pp :ppp :P as in perf;\n"
"                                tracepoints SYSTEM:EVENT, globs too\n"
"                                ('syscalls:sys_enter_*'): see luaprof list;\n"
"                                uprobe:PATH:FUNC[+OFF], uretprobe:PATH:FUNC,\n"
"                                usdt:PATH:PROVIDER:NAME, mem:ADDR|VAR[/LEN][:rwx],\n"
"                                rNNNN, PMU/term=N,.../, EVENT/period=N/,\n"
"                                L1-dcache-load-misses, groups {EV,EV}[:S]\n"
"      --filter EXPR             the kernel's filter for the tracepoints of the\n"
"                                -e before it ('prev_pid == 1234')\n"
"  -F, --freq HZ                 samples per second (default 4000)\n"
"  -c, --count N                 one sample every N events (instead of -F)\n"
"  -g                            record call stacks (frame pointers)\n"
"      --call-graph MODE         fp (as -g), or dwarf[,SIZE]: unwind user stacks\n"
"                                with DWARF CFI from SIZE bytes of stack (8192)\n"
"  -p, --pid PID[,PID...]        profile running processes\n"
"  -a, --all-cpus                profile the whole system\n"
"  -d, --duration SECONDS        stop after SECONDS\n"
"  -m, --mmap-pages PAGES        ring buffer pages per CPU (power of two)\n"
"      --queue-size SIZE         records the script has yet to take, at most: MB,\n"
"                                or with K, M, G, T, 64K to 16T (default: a\n"
"                                sixteenth of the RAM)\n"
"      --switch-events           record context switches (PERF_RECORD_SWITCH,\n"
"                                on_switch; a script with on_switch gets them)\n"
"      --all-cgroups             record each sample's cgroup (s.cgroup, and the\n"
"                                paths of cgroups made meanwhile)\n"
"  -i, --input FILE              run the script over a perf.data recording\n"
"                                (- reads a pipe-mode stream from stdin)\n"
"  -o, --output FILE             keep a perf.data recording of the run in a regular\n"
"                                file (record: default perf.data; an existing file\n"
"                                becomes FILE.old once the run has started;\n"
"                                - writes a pipe-mode stream to stdout)\n"
"      --no-buildid-cache        do not copy the recorded objects into perf's\n"
"                                build-id cache (~/.debug, or $PERF_BUILDID_DIR)\n"
"  -A, --arg VALUE               pass VALUE to the script in arg[] (repeatable)\n"
"  -I, --interval MS             call the script's on_interval(info) every MS\n"
"                                milliseconds (luaprof.setup's interval)\n"
"      --script-timeout SECONDS  stop the run when one call of a hook takes longer\n"
"                                (default: no limit)\n"
"      --script-memory MB        the most memory the script's Lua data may take\n"
"                                (default 1024, or a quarter of the RAM if less;\n"
"                                0: no limit)\n"
"      --symfs DIR               look for object and debug files under DIR\n"
"      --no-debuginfod           never ask debuginfod servers (DEBUGINFOD_URLS)\n"
"      --true-stacks             unwind dwarf stacks through every object's CFI,\n"
"                                also where perf's libunwind finds none\n"
"  -h, --help                    this help\n"
"  -v, --version                 print the version\n"
"\n"
"Exit status: the command's (128+N when signal N killed it); 0 with -p/-a;\n"
"255 when luaprof itself fails (bad usage, script error, cannot profile).\n";

enum { OPT_SYMFS = 256, OPT_NO_DEBUGINFOD, OPT_FILTER, OPT_NO_BUILDID_CACHE, OPT_SCRIPT_TIMEOUT,
       OPT_SCRIPT_MEMORY, OPT_SWITCH_EVENTS, OPT_QUEUE_SIZE, OPT_ALL_CGROUPS, OPT_TRUE_STACKS };

static const struct option longopts[] = {
	{ "program", required_argument, NULL, 'x' },
	{ "event", required_argument, NULL, 'e' },
	{ "filter", required_argument, NULL, OPT_FILTER },
	{ "freq", required_argument, NULL, 'F' },
	{ "count", required_argument, NULL, 'c' },
	{ "call-graph", required_argument, NULL, 'G' },
	{ "pid", required_argument, NULL, 'p' },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "duration", required_argument, NULL, 'd' },
	{ "mmap-pages", required_argument, NULL, 'm' },
	{ "switch-events", no_argument, NULL, OPT_SWITCH_EVENTS },
	{ "all-cgroups", no_argument, NULL, OPT_ALL_CGROUPS },
	{ "arg", required_argument, NULL, 'A' },
	{ "interval", required_argument, NULL, 'I' },
	{ "input", required_argument, NULL, 'i' },
	{ "output", required_argument, NULL, 'o' },
	{ "no-buildid-cache", no_argument, NULL, OPT_NO_BUILDID_CACHE },
	{ "symfs", required_argument, NULL, OPT_SYMFS },
	{ "no-debuginfod", no_argument, NULL, OPT_NO_DEBUGINFOD },
	{ "true-stacks", no_argument, NULL, OPT_TRUE_STACKS },
	{ "script-timeout", required_argument, NULL, OPT_SCRIPT_TIMEOUT },
	{ "script-memory", required_argument, NULL, OPT_SCRIPT_MEMORY },
	{ "queue-size", required_argument, NULL, OPT_QUEUE_SIZE },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'v' },
	{ NULL, 0, NULL, 0 },
};

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "luaprof: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	return -1;
}

static int add_events(struct lp_cli *cli, const char *list)
{
	char err[LP_ERRMSG_MAX];
	return lp_cli_add_events(cli, list, err, sizeof err) ? fail("%s", err) : 0;
}

/* --filter: on the tracepoints of the last -e, as perf's. */
static int add_filter(struct lp_cli *cli, const char *expr)
{
	size_t tps = 0;
	if (!cli->user_events)
		return fail("--filter needs a tracepoint -e before it: -e sched:sched_switch "
			    "--filter 'prev_pid == 1234'");
	for (size_t i = cli->last_e; i < cli->events.n; i++) {
		if (cli->events.v[i].type != PERF_TYPE_TRACEPOINT)
			continue;
		if (lp_cli_add_filter(&cli->events.v[i], expr))
			return fail("out of memory");
		tps++;
	}
	if (!tps)
		return fail("--filter applies to the tracepoints of the -e before it, and '%s' is "
			    "not one: -e sched:sched_switch --filter 'prev_pid == 1234'",
			    LP_SHOW(cli->events.v[cli->last_e].name));
	return 0;
}

static int add_pid(struct lp_cli *cli, const char *tok)
{
	uint64_t v;
	if (lp_settings_u64(tok, &v) || v == 0 || v > 4194304)
		return fail("-p needs process ids from 1 to 4194304 such as 1234 or 1234,5678 "
			    "(got '%s')", LP_SHOW(tok));
	pid_t *p = realloc(cli->pids, (cli->nr_pids + 1) * sizeof *p);
	if (!p)
		return fail("out of memory");
	cli->pids = p;
	cli->pids[cli->nr_pids++] = (pid_t)v;
	return 0;
}

static int add_pids(struct lp_cli *cli, const char *list)
{
	char *buf = strdup(list);
	int rc = buf ? 0 : fail("out of memory");
	for (char *save = NULL, *tok = buf ? strtok_r(buf, ",", &save) : NULL; tok && !rc;
	     tok = strtok_r(NULL, ",", &save))
		rc = add_pid(cli, tok);
	free(buf);
	return rc;
}

/* Seconds (fractions allowed) into *ns; zero only when zero_ok. */
static int parse_seconds(const char *opt, const char *s, bool zero_ok, uint64_t *ns)
{
	char *end;
	double d = strtod(s, &end);
	/* 1e-10 is no time, not "no limit": 0, or at least a nanosecond */
	if (end == s || *end || !(d >= 0) || d > 1e9 || (d < 1e-9 && !(zero_ok && d == 0)))
		return fail("%s needs a number of seconds from %s to 1e9 (got '%s')", opt,
			    zero_ok ? "0 (no limit)" : "1e-9", LP_SHOW(s));
	*ns = (uint64_t)llround(d * 1e9);
	return 0;
}

static int parse_script_memory(struct lp_cli *cli, const char *s)
{
	uint64_t v;
	if (lp_settings_u64(s, &v) || v > (1u << 30))
		return fail("--script-memory needs a number of megabytes from 0 (no limit) to "
			    "1073741824, such as 512 (got '%s')", LP_SHOW(s));
	cli->script_memory_mb = (int64_t)v;
	return 0;
}

/* --queue-size: megabytes, or a number with K, M, G or T (powers of 1024),
 * from 64K to 16T. */
static int parse_queue(struct lp_cli *cli, const char *s)
{
	static const char units[] = "KkMmGgTt";
	char num[32];
	size_t n = strlen(s);
	unsigned shift = 20;
	const char *unit = n ? strchr(units, s[n - 1]) : NULL;
	if (unit) {
		shift = 10 * (1 + (unsigned)(unit - units) / 2);
		n--;
	}
	uint64_t v;
	snprintf(num, sizeof num, "%.*s", (int)(n < sizeof num ? n : 0), s);
	if (n >= sizeof num || lp_settings_u64(num, &v) || v > (UINT64_C(1) << 44) >> shift ||
	    (v << shift) < (64u << 10))
		return fail("--queue-size needs a size from 64K to 16T, in megabytes such as 512 or "
			    "with K, M, G or T such as 256K (got '%s')", LP_SHOW(s));
	cli->queue_bytes = v << shift;
	return 0;
}

static int parse_pages(struct lp_cli *cli, const char *s)
{
	uint64_t v;
	if (lp_settings_u64(s, &v) || v == 0 || (v & (v - 1)) || v > (1u << 20))
		return fail("-m needs a power of two number of pages from 1 to 1048576, such as 64 "
			    "or 1024 (got '%s')", LP_SHOW(s));
	cli->mmap_pages = v;
	cli->mmap_pages_given = true;
	return 0;
}

static int parse_interval(struct lp_cli *cli, const char *s)
{
	uint64_t v;
	if (lp_settings_u64(s, &v) || v == 0 || v > 86400000)
		return fail("-I needs a number of milliseconds from 1 to 86400000 (a day), such as "
			    "1000 (got '%s')", LP_SHOW(s));
	cli->interval_ns = v * 1000000;
	return 0;
}

bool lp_cli_long_option(const char *name, size_t n)
{
	for (const struct option *o = longopts; o->name; o++)
		if (strlen(o->name) == n && !strncmp(o->name, name, n))
			return true;
	return false;
}

/* Whether a (after the script's name) is the script's option: --NAME or
 * --NAME=VALUE where NAME is none of luaprof's long options, compared
 * whole (getopt would take a prefix such as --out for --output). */
static bool script_option(const char *a)
{
	if (strncmp(a, "--", 2) || !a[2])
		return false;
	size_t n = strcspn(a + 2, "=");
	return !lp_cli_long_option(a + 2, n) || !strcmp(a, "--help");
}

static int add_script_option(struct lp_cli *cli, char *a)
{
	if (!strcmp(a, "--help")) {
		cli->script_help = true;
		return 0;
	}
	char **v = realloc(cli->script_opts, (size_t)(cli->nr_script_opts + 1) * sizeof *v);
	if (!v)
		return fail("out of memory");
	cli->script_opts = v;
	cli->script_opts[cli->nr_script_opts++] = a;
	return 0;
}

static int add_arg(struct lp_cli *cli, char *s)
{
	char **a = realloc(cli->args, (size_t)(cli->nargs + 1) * sizeof *a);
	if (!a)
		return fail("out of memory");
	cli->args = a;
	cli->args[cli->nargs++] = s;
	return 0;
}

/* One option; returns 0, 1 (help/version printed) or -1. */
static int option(struct lp_cli *cli, int c, char *val)
{
	uint64_t v;
	switch (c) {
	case 'e': return add_events(cli, val);
	case OPT_FILTER: return add_filter(cli, val);
	case 'F':
		if (lp_settings_u64(val, &v) || v == 0)
			return fail("-F needs a positive number of samples per second (got '%s')",
				    LP_SHOW(val));
		cli->sampling.freq = v;
		return 0;
	case 'c':
		/* the kernel refuses a period with the top bit set (EINVAL) */
		if (lp_settings_u64(val, &v) || v == 0 || v > LP_PERIOD_MAX)
			return fail("-c needs an event count from 1 to %llu, the kernel's range "
				    "(got '%s')", (unsigned long long)LP_PERIOD_MAX, LP_SHOW(val));
		cli->sampling.period = v;
		cli->sampling.use_period = true;
		return 0;
	case 'g': cli->sampling.callchain = true; cli->call_graph_given = true; return 0;
	case 'G': {
		char err[LP_ERRMSG_MAX];
		cli->call_graph_given = true;
		return lp_cli_call_graph(&cli->sampling, val, err, sizeof err) ? fail("%s", err) : 0;
	}
	case 'p': return add_pids(cli, val);
	case 'a': cli->system_wide = true; return 0;
	case 'd': return parse_seconds("--duration", val, false, &cli->duration_ns);
	case OPT_SCRIPT_TIMEOUT: return parse_seconds("--script-timeout", val, true,
						      &cli->script_timeout_ns);
	case OPT_SCRIPT_MEMORY: return parse_script_memory(cli, val);
	case 'm': return parse_pages(cli, val);
	case OPT_QUEUE_SIZE: return parse_queue(cli, val);
	case OPT_SWITCH_EVENTS: cli->sampling.switch_events = true; return 0;
	case OPT_ALL_CGROUPS: cli->sampling.all_cgroups = true; return 0;
	case 'A': return add_arg(cli, val);
	case 'I': return parse_interval(cli, val);
	case 'i': cli->input = val; return 0;
	case 'x':
		if (cli->script || cli->program)
			return fail("-x gives the program: it takes no SCRIPT and comes once");
		cli->program = val;
		return 0;
	case OPT_SYMFS: cli->symfs = val; return 0;
	case OPT_NO_DEBUGINFOD: cli->no_debuginfod = true; return 0;
	case OPT_TRUE_STACKS: cli->true_stacks = true; return 0;
	case 'o': cli->output = val; return 0;
	case OPT_NO_BUILDID_CACHE: cli->no_buildid_cache = true; return 0;
	case 'h': fputs(usage, stdout); return 1;
	case 'v': printf("luaprof %s\n", LP_VERSION); return 1;
	default:
		return fail("unknown option: see 'luaprof run --help'");
	}
}

/* -x: the program goes to the front end as arg[1], before the -A values. */
static int prepend_program(struct lp_cli *cli)
{
	char **a = realloc(cli->args, (size_t)(cli->nargs + 1) * sizeof *a);
	if (!a)
		return fail("out of memory");
	memmove(a + 1, a, (size_t)cli->nargs * sizeof *a);
	a[0] = (char *)(uintptr_t)cli->program;
	cli->args = a;
	cli->nargs++;
	return 0;
}

static int check(struct lp_cli *cli)
{
	bool record = !strcmp(cli->command, "record");
	if (record && !cli->output)
		cli->output = "perf.data";
	if (cli->input && cli->output)
		return fail("-i and -o exclude each other: a replay writes no recording");
	if (cli->no_buildid_cache && !cli->output)
		return fail("--no-buildid-cache goes with a recording: luaprof record, or run -o FILE");
	if (cli->program && record)
		return fail("-x runs a one-liner: use it with luaprof -x or luaprof run -x, not record");
	if (cli->program && cli->user_events)
		return fail("-x takes its events from the program's clauses: leave out -e and write "
			    "'EVENT { ... }'");
	if (cli->program && prepend_program(cli))
		return -1;
	if (!cli->script && !cli->program && !record)
		return fail("no script given: luaprof run SCRIPT [options] -- CMD");
	if (cli->script_help)
		return 0;
	if (cli->input && (cli->argv || cli->nr_pids || cli->system_wide))
		return fail("-i replays a recording: it takes no command, -p or -a");
	if (cli->input)
		return 0;
	if (cli->nr_pids && (cli->argv || cli->system_wide))
		return fail("-p cannot be combined with a command or -a");
	if (!cli->argv && !cli->nr_pids && (cli->all_by_default || cli->program))
		cli->system_wide = true;        /* as perf top and bpftrace: the whole system */
	if (!cli->argv && !cli->nr_pids && !cli->system_wide)
		return fail("nothing to profile: give a command after --, -p PID or -a");
	if (cli->sampling.use_period && cli->sampling.freq)
		return fail("-F and -c exclude each other: choose a frequency or a period");
	return 0;
}

/* Whether an event copies user stacks of its own (call-graph=dwarf, a USDT
 * probe's memory arguments). */
static bool copies_stacks(const struct lp_cli *cli)
{
	for (size_t i = 0; i < cli->events.n; i++)
		if (cli->events.v[i].stack_user || cli->events.v[i].dwarf_stack)
			return true;
	return false;
}

int lp_cli_finish(struct lp_cli *cli)
{
	/* A rate given by the command line or the script also replaces the
	 * tracepoints' default of every hit, as perf's -F and -c do. */
	cli->sampling.user_rate = cli->sampling.use_period || cli->sampling.freq;
	if (!cli->sampling.use_period && !cli->sampling.freq)
		cli->sampling.freq = DEFAULT_FREQ;
	if (!cli->mmap_pages)   /* dwarf samples are ~8 KiB each: 4 MiB rings */
		cli->mmap_pages = cli->sampling.dwarf_stack || copies_stacks(cli) ? 4 * DEFAULT_PAGES
										  : DEFAULT_PAGES;
	if (!cli->events.n && !cli->input && lp_event_list_add_default(&cli->events))
		return fail("out of memory");
	if (cli->sampling.count_only && cli->output)
		return fail("counting (luaprof stat, luaprof.setup{counting = true}) samples "
			    "nothing, so it writes no recording: leave out -o");
	return 0;
}

static int parse_run(struct lp_cli *cli, int argc, char **argv)
{
	int c, rc;
	optind = 1;
	opterr = 0;
	for (;;) {
		for (;;) {
			while (cli->script && optind < argc && script_option(argv[optind]))
				if (add_script_option(cli, argv[optind++]))
					return -1;
			if (cli->script && optind < argc && !strcmp(argv[optind], "-h")) {
				cli->script_help = true;
				optind++;
				continue;
			}
			if ((c = getopt_long(argc, argv, "+:e:F:c:gp:ad:m:A:I:i:o:x:hv", longopts, NULL)) == -1)
				break;
			if (c == ':')
				return fail("option %s needs a value", LP_SHOW(argv[optind - 1]));
			if (c == '?')
				return fail("unknown option '%s': see 'luaprof run --help'",
					    LP_SHOW(argv[optind - 1]));
			if ((rc = option(cli, c, optarg)))
				return rc;
		}
		bool dashdash = optind > 1 && !strcmp(argv[optind - 1], "--");
		if (optind >= argc || dashdash || cli->script || cli->program ||
		    !strcmp(cli->command, "record"))
			break;
		cli->script = argv[optind++];   /* then options may follow it */
	}
	if (optind < argc)
		cli->argv = &argv[optind];
	return check(cli);
}

int lp_cli_parse(struct lp_cli *cli, int argc, char **argv)
{
	memset(cli, 0, sizeof *cli);
	cli->own_option = lp_cli_long_option;
	cli->script_memory_mb = -1;
	if (argc < 2)
		return fputs(usage, stderr), -1;
	const char *cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help"))
		return fputs(usage, stdout), 1;
	if (!strcmp(cmd, "-v") || !strcmp(cmd, "--version"))
		return printf("luaprof %s\n", LP_VERSION), 1;
	if (!strcmp(cmd, "-x") || !strncmp(cmd, "-x", 2) || !strncmp(cmd, "--program", 9)) {
		cli->command = "run";   /* luaprof -x PROGRAM ...: luaprof run -x */
		cli->argc = argc;
		cli->all_argv = argv;
		return parse_run(cli, argc, argv);
	}
	if (!strcmp(cmd, "top")) {     /* luaprof run live, the whole system by default */
		cmd = "run";
		cli->script = "live";
		cli->all_by_default = true;
	} else if (strcmp(cmd, "run") && strcmp(cmd, "record")) {
		return fail("unknown command '%s': the commands are 'luaprof run SCRIPT ...', "
			    "'luaprof record ...', 'luaprof stat ...', 'luaprof top ...' and "
			    "'luaprof list' (see luaprof --help)", LP_SHOW(cmd));
	}
	cli->command = cmd;
	cli->argc = argc;
	cli->all_argv = argv;
	return parse_run(cli, argc - 1, argv + 1);
}

void lp_cli_free(struct lp_cli *cli)
{
	lp_event_list_free(&cli->events);
	free(cli->pids);
	free(cli->args);
	free(cli->script_opts);
}
