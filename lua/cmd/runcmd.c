/*
 * runcmd.c - luaprof run and luaprof record: parse the command line, load
 * the script, run it live (live.c) or over a recording (replay.c), and
 * choose the exit status.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <lauxlib.h>

#include "cmd.h"
#include "record.h"
#include "lp.h"
#include "lscript.h"
#include "luaprof/dwarf.h"
#include "luaprof/luaprof.h"
#include "replay.h"
#include "run.h"

void lp_cmd_log(enum lp_log_level level, const char *msg, void *ctx)
{
	(void)ctx;
	if (level <= LP_WARN)
		fprintf(stderr, "luaprof: %s\n", msg);
}

/* Resolves the script's name and hands its options to the run; 0 or -1. */
static int prepare_script(struct lp_run *run, struct lp_cli *cli, char *path, size_t size)
{
	char err[LP_ERRMSG_MAX];
	if (cli->program) {             /* -x: the front end is the script */
		if ((size_t)snprintf(path, size, "%s/oneliner.lua", lp_script_helperdir()) >= size) {
			fprintf(stderr, "luaprof: the path of luaprof's helpers is too long\n");
			return -1;
		}
		run->vm.name = "-x";
		run->aggs.on = true;
		cli->script = path;
		run->opt.mode = LP_MODE_RUN;
		return 0;
	}
	if (!cli->script)
		return 0;
	if (lp_script_find(cli->script, path, size, err, sizeof err)) {
		fprintf(stderr, "luaprof: %s\n", err);
		return -1;
	}
	run->vm.name = cli->script;
	cli->script = path;
	run->opt.mode = cli->script_help ? LP_MODE_HELP : LP_MODE_RUN;
	run->opt.argv = cli->script_opts;
	run->opt.argc = cli->nr_script_opts;
	return 0;
}

/* What the script's hooks settle: on_interval needs an interval, and an
 * interval needs on_interval (lp_hooks_check_run: when it is the only
 * hook that sees the run); on_switch asks for the switch records. */
static int check_hooks(struct lp_run *run, struct lp_cli *cli)
{
	if (run->vm.ref[LP_HOOK_SWITCH] != LUA_NOREF)
		cli->sampling.switch_events = true;
	run->loop->interval.ns = cli->interval_ns;
	if (run->loop->interval.ns && run->vm.ref[LP_HOOK_INTERVAL] == LUA_NOREF && cli->script) {
		fprintf(stderr, "luaprof: %s has no on_interval function: -I (or "
			"luaprof.setup{interval=MS}) needs one\n", LP_SHOW(cli->script));
		return -1;
	}
	if (cli->script && !cli->program &&
	    lp_hooks_check_run(run, run->loop->interval.ns != 0, cli->output != NULL))
		return -1;
	return 0;
}

/* --symfs DIR: the directory every object and debug file is looked for
 * under (as perf's --symfs), which must be one.  perf takes any DIR and
 * names nothing when it is none; a DIR that is no directory is a mistake,
 * said in one line before anything runs.  0 or -1 after the line. */
static int set_symfs(const char *dir)
{
	struct stat st;
	if (stat(dir, &st)) {
		fprintf(stderr, "luaprof: --symfs %s: %s (--symfs DIR looks for /usr/lib/x.so as "
				"DIR/usr/lib/x.so)\n", LP_SHOW(dir), strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, "luaprof: --symfs %s is not a directory (--symfs DIR looks for "
				"/usr/lib/x.so as DIR/usr/lib/x.so)\n", LP_SHOW(dir));
		return -1;
	}
	if (lp_sym_set_symfs(dir)) {
		fprintf(stderr, "luaprof: --symfs %s: name too long\n", LP_SHOW(dir));
		return -1;
	}
	return 0;
}

/* luaprof run ...: parse, load the script, run it live or over a recording. */
int lp_run_main(int argc, char **argv)
{
	struct lp_cli cli;
	int rc = lp_cli_parse(&cli, argc, argv);
	if (rc) {
		lp_cli_free(&cli);
		return rc > 0 ? 0 : LP_EXIT_FAILURE;
	}
	lp_log_set_hook(lp_cmd_log, NULL);
	lp_sym_set_debuginfod(!cli.no_debuginfod);
	lp_unwind_set_true_stacks(cli.true_stacks);
	if (cli.symfs && set_symfs(cli.symfs)) {
		lp_cli_free(&cli);
		return LP_EXIT_FAILURE;
	}
	if (cli.output && !cli.script_help && (lp_recording_check(cli.output) ||
	    (!strcmp(cli.output, "-") && lp_recording_take_stdout()))) {
		lp_cli_free(&cli);
		return LP_EXIT_FAILURE;
	}
	struct lp_run run;
	struct lp_loop loop;
	lp_loop_init(&run, &loop);
	run.cli = &cli;
	run.vm.timeout = cli.script_timeout_ns;
	run.vm.memory = cli.script_memory_mb < 0 ? lp_guard_default_memory() :
			(size_t)cli.script_memory_mb << 20;
	char path[4096];
	run.procs = lp_procs_new();
	run.resolver = run.procs ? lp_resolver_new(run.procs, NULL) : NULL;
	int status = LP_EXIT_FAILURE;
	if (!run.resolver)
		fprintf(stderr, "luaprof: out of memory\n");
	else if (prepare_script(&run, &cli, path, sizeof path))
		;
	else if (cli.script && (rc = lp_vm_open(&run, cli.script, cli.args, cli.nargs)) != 0)
		status = rc > 0 ? run.os_exit_code : LP_EXIT_FAILURE;
	else if (check_hooks(&run, &cli) == 0 && lp_cli_finish(&cli) == 0) {
		lp_cmd_signals_install(&run);
		status = cli.input ? lp_replay(&run, cli.input, cli.duration_ns) : lp_run_live(&run, &cli);
	}
	if (run.os_exit && status != LP_EXIT_FAILURE)
		status = run.os_exit_code;
	if (lp_vm_flush(&run))
		status = LP_EXIT_FAILURE;
	lp_cmd_signals_run(NULL);
	free(run.loop->live.counts_now);
	free(run.loop->live.counts_prev);
	lp_vm_close(&run);
	lp_loop_free(&loop);
	lp_targets_free(&run);
	lp_resolver_free(run.resolver);
	lp_procs_free(run.procs);
	lp_cli_free(&cli);
	if (run.loop->end_signal && status == 128 + run.loop->end_signal && !run.os_exit)
		lp_cmd_signals_die(run.loop->end_signal);
	return status;
}
