/* duty [N] [COMPUTE_MS] [SLEEP_MS]: N times (default 5), burns COMPUTE_MS
 * of its own CPU time (default 100) in compute(), then sleeps SLEEP_MS
 * (default 900) in nanosleep: a thread on the CPU for about a tenth of its
 * wall time, for wall-clock and off-CPU accounting. */
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
	for (long i = 0; i < n; i++) {
		compute((uint64_t)busy);
		struct timespec left = ts;
		while (nanosleep(&left, &left))
			;
	}
	return 0;
}
