/*
 * signals.c - how luaprof's commands take SIGINT, SIGTERM and SIGHUP.
 *
 * They end the run cleanly (rings drained, on_end called); a replay stops
 * reading, runs on_end and exits 128+N.  A hook still running a second
 * after the signal is interrupted (guard.c).  A signal typed at the
 * terminal reaches the command too, as it would without luaprof; one sent
 * to luaprof alone (kill) is passed on to the command.  A command still
 * running when the run ends for another reason (a script error,
 * luaprof.exit(), --duration) is sent SIGTERM.
 */
#include <signal.h>
#include <stddef.h>

#include "cmd.h"
#include "lp.h"
#include "luaprof/live.h"

static struct lp_live *volatile sig_live;
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
void lp_cmd_signals_install(struct lp_run *run)
{
	sig_run = run;
	struct sigaction sa = { .sa_sigaction = on_signal, .sa_flags = SA_SIGINFO | SA_RESTART };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

void lp_cmd_signals_run(struct lp_run *run)
{
	sig_run = run;
}

void lp_cmd_signals_live(struct lp_live *lv)
{
	sig_live = lv;
}

int lp_cmd_signal_caught(void)
{
	return sig_caught;
}
