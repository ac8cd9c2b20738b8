#define _GNU_SOURCE
/* storm fork|thread N MS LOG: starts N short-lived processes (fork) or
 * threads (thread), at most 32 alive at once; each names itself (the
 * process or thread comm "k<N>" / "t<N>"), burns MS ms of CPU and ends.
 * LOG gets one line "ID NAME" per child (pid, or tid for threads), written
 * by the child once it has its name, so that a profiler's attribution can
 * be checked against it. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "spin.h"

#define MAX_ALIVE 32

static int ms;
static FILE *logf;
static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;

static void log_id(long id, const char *name)
{
	pthread_mutex_lock(&log_mu);
	fprintf(logf, "%ld %s\n", id, name);
	fflush(logf);
	pthread_mutex_unlock(&log_mu);
}

static void kid(int i)
{
	char name[16];
	snprintf(name, sizeof name, "k%d", i);
	prctl(PR_SET_NAME, name);
	log_id(getpid(), name);
	spin_ms((unsigned long long)ms);
	_exit(0);
}

static void forks(int n)
{
	int alive = 0;
	for (int i = 0; i < n; i++) {
		if (alive == MAX_ALIVE && wait(NULL) > 0)
			alive--;
		pid_t p = fork();
		if (p == 0)
			kid(i);
		if (p > 0)
			alive++;
	}
	while (wait(NULL) > 0)
		;
}

static void *thread_main(void *arg)
{
	char name[16];
	snprintf(name, sizeof name, "t%d", (int)(long)arg);
	pthread_setname_np(pthread_self(), name);
	log_id((long)syscall(SYS_gettid), name);
	spin_ms((unsigned long long)ms);
	return NULL;
}

static void threads(int n)
{
	pthread_t t[MAX_ALIVE];
	for (int i = 0; i < n; i += MAX_ALIVE) {
		int k = n - i < MAX_ALIVE ? n - i : MAX_ALIVE;
		for (int j = 0; j < k; j++)
			pthread_create(&t[j], NULL, thread_main, (void *)(long)(i + j));
		for (int j = 0; j < k; j++)
			pthread_join(t[j], NULL);
	}
}

int main(int argc, char **argv)
{
	if (argc < 5)
		return 2;
	int n = atoi(argv[2]);
	ms = atoi(argv[3]);
	logf = fopen(argv[4], "w");
	if (!logf)
		return 1;
	if (!strcmp(argv[1], "fork"))
		forks(n);
	else
		threads(n);
	fclose(logf);
	return 0;
}
