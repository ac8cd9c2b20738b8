/* spin.h - shared by the test workloads: burn CPU in a way the compiler
 * cannot remove, for a given number of iterations or of CPU milliseconds. */
#ifndef SPIN_H
#define SPIN_H

#include <stdint.h>
#include <time.h>

static volatile uint64_t spin_sink;

static __attribute__((noinline, unused)) void spin_iters(uint64_t n)
{
	uint64_t x = spin_sink;
	for (uint64_t i = 0; i < n; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	spin_sink = x;
}

/* Clock c's time in nanoseconds. */
static inline uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t thread_cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* Burns ms milliseconds of this thread's CPU time. */
static inline void spin_ms(uint64_t ms)
{
	uint64_t end = thread_cpu_ns() + ms * 1000000ull;
	while (thread_cpu_ns() < end)
		spin_iters(20000);
}

#endif
