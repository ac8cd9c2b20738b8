/*
 * deadline.c - --duration for a replay: a one-shot timer that, SECONDS
 * after it is armed, raises a flag and interrupts whatever system call the
 * main thread is blocked in (the wait for a writer to a named pipe ends in
 * EINTR).  Its signal is a real-time one of its own: SIGALRM belongs to
 * the script guard (guard.c), SIGINT/SIGTERM/SIGHUP to signals.c.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <time.h>

#include "cmd.h"

static volatile sig_atomic_t passed;
static timer_t timer;
static bool armed;

static void on_deadline(int sig)
{
	(void)sig;
	passed = 1;
}

int lp_deadline_arm(uint64_t ns)
{
	int sig = SIGRTMIN;
	struct sigaction sa = { .sa_handler = on_deadline };    /* no SA_RESTART */
	sigemptyset(&sa.sa_mask);
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = sig };
	if (sigaction(sig, &sa, NULL) || timer_create(CLOCK_MONOTONIC, &ev, &timer))
		return -errno;
	struct itimerspec its = { .it_value = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) } };
	if (timer_settime(timer, 0, &its, NULL)) {
		int err = -errno;
		timer_delete(timer);
		return err;
	}
	armed = true;
	return 0;
}

bool lp_deadline_passed(void)
{
	return passed;
}

void lp_deadline_disarm(void)
{
	if (armed)
		timer_delete(timer);
	armed = false;
}
