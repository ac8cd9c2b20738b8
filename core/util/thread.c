/*
 * thread.c - helper threads that take no signal (include/luaprof/thread.h).
 */
#include <signal.h>

#include "luaprof/thread.h"

int lp_thread_start(pthread_t *t, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);      /* the new thread inherits it */
	int rc = pthread_create(t, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return -rc;
}
