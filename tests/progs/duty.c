/* duty [N] [COMPUTE_MS] [SLEEP_MS] [STATS]: N times (default 5), burns
 * COMPUTE_MS of its own CPU time (default 100) in compute(), then sleeps
 * SLEEP_MS (default 900) in nanosleep: a thread on the CPU for about a
 * tenth of its wall time, for wall-clock and off-CPU accounting.  With
 * STATS, writes there at the end "COMPUTE_WALL_NS CPU_NS": the time spent
 * in compute() by the monotonic clock (which counts the time the host
 * takes the vCPU away, as cpu-clock samples do, while thread CPU time
 * does not), and the thread's CPU time in all. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "spin.h"

__attribute__((noinline)) void compute(uint64_t ms)
{
	spin_ms(ms);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 5;
	long busy = argc > 2 ? atol(argv[2]) : 100, idle = argc > 3 ? atol(argv[3]) : 900;
	struct timespec ts = { idle / 1000, (idle % 1000) * 1000000L };
	uint64_t in_compute = 0;
	for (long i = 0; i < n; i++) {
		uint64_t t0 = clock_ns(CLOCK_MONOTONIC);
		compute((uint64_t)busy);
		in_compute += clock_ns(CLOCK_MONOTONIC) - t0;
		struct timespec left = ts;
		while (nanosleep(&left, &left))
			;
	}
	if (argc > 4) {
		FILE *f = fopen(argv[4], "w");
		if (!f || fprintf(f, "%llu %llu\n", (unsigned long long)in_compute,
				  (unsigned long long)thread_cpu_ns()) < 0 || fclose(f))
			return 1;
	}
	return 0;
}
