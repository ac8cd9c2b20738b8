/* sleeper [N] [MS]: sleeps N (default 10) times MS (default 50) ms with
 * nanosleep, using next to no CPU: N switches off the CPU of at least MS ms
 * each, for off-CPU accounting from sched:sched_switch. */
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10, ms = argc > 2 ? atol(argv[2]) : 50;
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	for (long i = 0; i < n; i++)
		while (nanosleep(&ts, &ts))
			;
	return 0;
}
