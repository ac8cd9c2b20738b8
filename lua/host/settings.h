/*
 * settings.h - internal to lua/: the run's settings, which the command line
 * (cmd/cli.c) fills first and the script's luaprof.setup (lsetup.c) and
 * luaprof.options (lopts.c) read and complete.
 */
#ifndef LP_SETTINGS_H
#define LP_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "luaprof/event.h"

struct lp_cli {
	const char *command;            /* "run" */
	const char *script;
	const char *program;            /* -x PROGRAM: a one-liner, run by the
					 * helper oneliner.lua as the script */
	char **args;                    /* --arg values, for the script */
	int nargs;
	char **argv;                    /* the command, or NULL */
	pid_t *pids;
	size_t nr_pids;
	bool system_wide;               /* -a */
	bool all_by_default;            /* luaprof top: -a when there is no other target */
	bool script_system_wide;        /* luaprof.setup{all_cpus = true}: the events on
					 * every CPU, the command or -p still the targets */
	struct lp_event_list events;    /* -e, else the script's, else the default */
	bool user_events;               /* -e given */
	size_t last_e;                  /* the first event of the last -e (for --filter) */
	struct lp_sampling sampling;
	bool call_graph_given;          /* -g or --call-graph given */
	size_t mmap_pages;
	bool mmap_pages_given;          /* -m: exactly that, or fail */
	uint64_t duration_ns;
	uint64_t script_timeout_ns;     /* --script-timeout, 0: none */
	int64_t script_memory_mb;       /* --script-memory, -1: the default */
	uint64_t queue_bytes;           /* --queue-size, 0: the default */
	const char *input;              /* -i FILE: replay a recording */
	const char *output;             /* -o FILE: keep a recording */
	bool no_buildid_cache;          /* leave perf's build-id cache alone */
	char **script_opts;             /* the script's options: "--name[=value]" */
	int nr_script_opts;
	bool script_help;               /* luaprof run SCRIPT --help */
	uint64_t interval_ns;           /* -I: on_interval's period; 0 unset */
	const char *symfs;              /* --symfs DIR */
	bool no_debuginfod;             /* --no-debuginfod */
	bool true_stacks;               /* --true-stacks */
	int argc;                       /* luaprof's own command line */
	char **all_argv;
	/* whether name (n bytes) is one of the command line's own long
	 * options (a script option may not take such a name), or NULL */
	bool (*own_option)(const char *name, size_t n);
};

/* Adds the events of a comma-separated list ("cpu-clock,page-faults:u",
 * "syscalls:sys_enter_*": see lp_event_list_add) and marks them the
 * user's.  Returns 0, or -1 with one line (no "luaprof: " prefix) in err
 * (size bytes). */
int lp_cli_add_events(struct lp_cli *cli, const char *list, char *err, size_t size);

/* Adds the ftrace filter expr to event e (and-ed with one it has, as perf
 * does).  Returns 0 or -ENOMEM. */
int lp_cli_add_filter(struct lp_event_spec *e, const char *expr);

/* A decimal number without a sign into *out: 0, or -1 when s is not one
 * or is out of range. */
int lp_settings_u64(const char *s, uint64_t *out);

/* Sets s's call graph from a --call-graph MODE: "fp", "dwarf" or
 * "dwarf,SIZE" (bytes, rounded up to 8, at most LP_DWARF_STACK_MAX).
 * Returns 0, or -1 with one line in err (size bytes). */
int lp_cli_call_graph(struct lp_sampling *s, const char *mode, char *err, size_t size);

#endif
