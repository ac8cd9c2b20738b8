/*
 * cmd.h - internal to lua/cmd: luaprof's commands (main.c dispatches to
 * them) and what they share.
 */
#ifndef LP_CMD_H
#define LP_CMD_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "cli.h"
#include "lp.h"
#include "luaprof/luaprof.h"

struct lp_live;

/* runcmd.c: luaprof run ... and luaprof record ... (argv[1] names which):
 * parses, loads the script, runs it live or over a recording.  Returns
 * the exit status. */
int lp_run_main(int argc, char **argv);

/* stat.c: luaprof stat [options] [--] CMD (argv[0] is "stat"): the shipped
 * stat script.  Returns the exit status. */
int lp_stat_main(int argc, char **argv);

/* live.c: the live part of a run with the script loaded and the settings
 * finished; returns the process exit status. */
int lp_run_live(struct lp_run *run, struct lp_cli *cli);

/* runcmd.c: luaprof's log hook: warnings and errors on stderr, one line
 * each. */
void lp_cmd_log(enum lp_log_level level, const char *msg, void *ctx);

/* signals.c (see there for what each signal does):
 * lp_cmd_signals_install takes SIGINT, SIGTERM and SIGHUP for run (a
 * signal sets run->interrupted; a second, run->exit_requested) and
 * ignores SIGPIPE; lp_cmd_signals_run changes the run (NULL: none);
 * lp_cmd_signals_live names the live events a signal stops (NULL: none),
 * and returns true when a signal came before they were named (they are
 * stopped already); with held, it first blocks the three signals (their
 * old mask into held) until lp_cmd_signals_release(held), so that the run
 * can be started without a signal acting half-way;
 * lp_cmd_signal_first is the first signal caught (0: none yet),
 * lp_cmd_signal_count how many came; lp_cmd_signal_name names one
 * ("SIGINT"); lp_cmd_signals_die ends the process by sig, its default
 * action (stdio flushed, the terminal given back), as perf record ends
 * when a signal ended its run: the shell sees 128+N, and a service
 * manager a stop by that signal, not an exit code (systemd takes 143 as a
 * failure, death by SIGTERM as clean); it returns only if sig did not
 * end the process. */
void lp_cmd_signals_install(struct lp_run *run);
void lp_cmd_signals_run(struct lp_run *run);
bool lp_cmd_signals_live(struct lp_live *lv, sigset_t *held);
void lp_cmd_signals_release(const sigset_t *held);
int lp_cmd_signal_first(void);
int lp_cmd_signal_count(void);
const char *lp_cmd_signal_name(int sig);
void lp_cmd_signals_die(int sig);

/* deadline.c: --duration over a replay.  lp_deadline_arm starts a one-shot
 * timer of ns nanoseconds whose signal interrupts a blocking system call
 * (0 or -errno); lp_deadline_passed says whether it has fired (a flag
 * read, no system call); lp_deadline_disarm deletes the timer. */
int lp_deadline_arm(uint64_t ns);
bool lp_deadline_passed(void);
void lp_deadline_disarm(void);

#endif
