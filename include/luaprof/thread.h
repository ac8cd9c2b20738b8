/* Part of include/luaprof/: the core's interface to the layer above it (lua/). */
/*
 * thread.h - starting luaprof's helper threads (the rings' drain, the
 * read-ahead of a recording, the push sender, the script's watchdog).
 */
#ifndef LUAPROF_THREAD_H
#define LUAPROF_THREAD_H

#include <pthread.h>

/* Starts fn(arg) in a new thread, *t its handle, with every signal
 * blocked in it, so that SIGINT, SIGTERM, SIGHUP and SIGALRM meant for
 * the process go to the main thread, whose handlers act on them.  The
 * caller's signal mask is left as it was.  0, or -errno (pthread_create's
 * error). */
int lp_thread_start(pthread_t *t, void *(*fn)(void *), void *arg);

#endif
