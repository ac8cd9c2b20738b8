/* twothreads [UNITS]: two threads, "worker-1" doing UNITS units of work and
 * "worker-2" doing 2*UNITS, at the same time; the main thread only waits.
 * Sample shares should come out 1:2. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/prctl.h>

#include "spin.h"

static void *worker(void *arg)
{
	uintptr_t units = (uintptr_t)arg;
	prctl(PR_SET_NAME, units % 2 ? "worker-1" : "worker-2");
	for (uintptr_t i = 0; i < units; i++)
		spin_iters(1000000);
	return NULL;
}

int main(int argc, char **argv)
{
	uintptr_t units = argc > 1 ? strtoul(argv[1], NULL, 10) : 301;
	units |= 1;     /* odd: worker-1 gets units, worker-2 gets 2*units */
	pthread_t a, b;
	pthread_create(&a, NULL, worker, (void *)units);
	pthread_create(&b, NULL, worker, (void *)(2 * units));
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
