/* deep16 [MS]: the benchmark's workload.  Two threads each burn MS
 * milliseconds of CPU (default 5000) at the bottom of a 16-function-deep
 * chain, d1 -> d2 -> ... -> d16, whose last link splits the time 2:1 between
 * two leaves.  With -g every sample's stack is about 20 frames: the leaf,
 * d16..d1, the thread's start routine and libc's thread entry. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;

/* A call at the end of each leaf gives it a frame (see leafs.c). */
__attribute__((noinline)) void publish(uint64_t x) { sink = x; }

__attribute__((noinline)) void hot_leaf(void)
{
	uint64_t x = sink;
	for (int i = 0; i < 20000; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	publish(x);
}

__attribute__((noinline)) void warm_leaf(void)
{
	uint64_t x = sink;
	for (int i = 0; i < 10000; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	publish(x);
}

__attribute__((noinline)) void d16(void)
{
	hot_leaf();
	warm_leaf();
	__asm__ volatile("" ::: "memory");
}

/* Each link calls the next and does something after it, so no call
 * becomes a jump and every link keeps its frame. */
#define LINK(n, next)                                   \
	__attribute__((noinline)) void d##n(void)       \
	{                                               \
		d##next();                              \
		__asm__ volatile("" ::: "memory");      \
	}
LINK(15, 16) LINK(14, 15) LINK(13, 14) LINK(12, 13) LINK(11, 12)
LINK(10, 11) LINK(9, 10) LINK(8, 9) LINK(7, 8) LINK(6, 7) LINK(5, 6)
LINK(4, 5) LINK(3, 4) LINK(2, 3) LINK(1, 2)

static uint64_t thread_cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void *worker(void *arg)
{
	uint64_t end = thread_cpu_ms() + (uintptr_t)arg;
	while (thread_cpu_ms() < end)
		for (int i = 0; i < 100; i++)
			d1();
	return NULL;
}

int main(int argc, char **argv)
{
	uintptr_t ms = argc > 1 ? strtoul(argv[1], NULL, 10) : 5000;
	pthread_t a, b;
	pthread_create(&a, NULL, worker, (void *)ms);
	pthread_create(&b, NULL, worker, (void *)ms);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
