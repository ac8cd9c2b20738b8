/*
 * signals.c - how luaprof's commands take SIGINT, SIGTERM and SIGHUP.
 *
 * The first signal ends the run cleanly: sampling stops and the rings are
 * drained, the records already taken in still go to the script, on_end
 * runs, and luaprof exits 128+N (with a command, the command's status);
 * a replay stops reading, runs on_end over what it delivered (over every
 * record read, when the input was stalled: replay.c) and exits 128+N.  A
 * signal that comes while the run is being set up (the events opened,
 * on_start, /proc read) is kept, and acts once the live run is named
 * (lp_cmd_signals_live): the run then ends before it starts, as one
 * mid-run would, with on_end and 128+N.
 *
 * A second signal ends the run at once: the records still queued for the
 * script are skipped (live.c still writes them to an -o recording and
 * counts them), on_end runs over what the script got.  A third ends
 * luaprof there and then, as a kill would, with one line: the last resort
 * when something no signal reaches holds the run.
 *
 * A hook running at a signal is interrupted when it does not return
 * within a second, at once at the second signal (guard.c).  A signal typed
 * at the terminal reaches the command too, as it would without luaprof;
 * one sent to luaprof alone (kill) is passed on to the command.  A command
 * still running when the run ends for another reason (a script error,
 * luaprof.exit(), --duration) is sent SIGTERM.
 */
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>

#include "cmd.h"
#include "lp.h"
#include "run.h"
#include "luaprof/live.h"

static struct lp_live *volatile sig_live;
static struct lp_run *volatile sig_run;
static volatile sig_atomic_t sig_first, sig_count;
static volatile sig_atomic_t sig_pass;  /* sent to luaprof alone: for the command */

const char *lp_cmd_signal_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" :
	       "a signal";
}

/* The third signal: out at once (the command gets SIGTERM from the kernel,
 * PR_SET_PDEATHSIG).  Async-signal-safe. */
static _Noreturn void give_up(int sig)
{
	static const char head[] = "luaprof: a third signal (";
	static const char tail[] = "): luaprof exits at once (an -o recording is left "
				   "unclosed, as by a kill: luaprof run -i reads it)\n";
	const char *name = lp_cmd_signal_name(sig);
	size_t n = 0;
	while (name[n])
		n++;
	if (write(STDERR_FILENO, head, sizeof head - 1) < 0 || write(STDERR_FILENO, name, n) < 0 ||
	    write(STDERR_FILENO, tail, sizeof tail - 1) < 0)
		n = 0;          /* nothing more to do about it */
	lp_term_release();
	_exit(128 + sig);
}

/* Stops the live run, and passes a signal meant for the command on. */
static void stop_live(struct lp_live *lv)
{
	lp_live_stop(lv);
	int pass = sig_pass;
	if (pass) {
		sig_pass = 0;
		lp_live_signal(lv, pass);
	}
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	int n = sig_count + 1;
	sig_count = n;
	if (!sig_first)
		sig_first = sig;
	if (n >= 3)
		give_up(sig);
	lp_guard_signal(sig);           /* a hook that does not return is interrupted */
	struct lp_run *run = sig_run;
	if (run) {
		run->loop->interrupted = sig;         /* a replay stops reading */
		if (n > 1)
			run->exit_requested = 1;        /* the queue is skipped */
	}
	if (si->si_code == SI_USER || si->si_code == SI_QUEUE)
		sig_pass = sig;                 /* not from the terminal: pass it on */
	struct lp_live *lv = sig_live;
	if (lv)
		stop_live(lv);
}

/* SIGPIPE is ignored (the launched command gets it back: workload.c), so
 * a closed output ends the run cleanly (vm.c) instead of killing luaprof
 * and, through PDEATHSIG, the command. */
void lp_cmd_signals_install(struct lp_run *run)
{
	sig_run = run;
	struct sigaction sa = { .sa_sigaction = on_signal, .sa_flags = SA_SIGINFO | SA_RESTART };
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);         /* one at a time, and not inside the guard's */
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaddset(&sa.sa_mask, SIGHUP);
	sigaddset(&sa.sa_mask, SIGALRM);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

void lp_cmd_signals_run(struct lp_run *run)
{
	sig_run = run;
}

bool lp_cmd_signals_live(struct lp_live *lv, sigset_t *held)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	if (held)
		pthread_sigmask(SIG_BLOCK, &set, held);
	sig_live = lv;
	if (!lv || !sig_count)
		return false;
	stop_live(lv);                  /* a signal came before lv was named */
	return true;
}

void lp_cmd_signals_release(const sigset_t *held)
{
	pthread_sigmask(SIG_SETMASK, held, NULL);
}

int lp_cmd_signal_first(void)
{
	return sig_first;
}

int lp_cmd_signal_count(void)
{
	return sig_count;
}

void lp_cmd_signals_die(int sig)
{
	sigset_t set;
	fflush(NULL);
	lp_term_restore();
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
}
