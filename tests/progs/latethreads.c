/* latethreads WAIT_MS WORK_MS: sleeps WAIT_MS (time to attach), burns
 * WORK_MS/4 of CPU itself (so that a profiler attached by then samples the
 * main thread whatever else the machine runs: cpu-clock counts this
 * thread's own CPU time), then starts two threads, "late-1" and "late-2",
 * each burning WORK_MS of CPU. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <sys/prctl.h>

#include "spin.h"

static uint64_t work_ms;

static void *worker(void *name)
{
	prctl(PR_SET_NAME, name);
	spin_ms(work_ms);
	return NULL;
}

int main(int argc, char **argv)
{
	long wait_ms = argc > 1 ? atol(argv[1]) : 600;
	work_ms = argc > 2 ? strtoull(argv[2], NULL, 10) : 400;
	struct timespec ts = { wait_ms / 1000, (wait_ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
	spin_ms(work_ms / 4);
	pthread_t a, b;
	pthread_create(&a, NULL, worker, "late-1");
	pthread_create(&b, NULL, worker, "late-2");
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
