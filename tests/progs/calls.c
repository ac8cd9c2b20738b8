/* calls [N] [MS]: function calls in known numbers, for uprobe counting:
 * fc_one N times, fc_two 2N times, fc_three 3N times (default N 1000), each
 * doing next to nothing; then nap, which sleeps MS ms (default 2), 10
 * times.  No call is inlined or a tail call.  With $CALLS_NAPS set, each
 * nap's time as the program saw it around the call is written to that
 * file, a line of nanoseconds each (a probe's time lies within it). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;

__attribute__((noinline)) void fc_one(void) { sink++; __asm__ volatile(""); }
__attribute__((noinline)) void fc_two(void) { sink += 2; __asm__ volatile(""); }
__attribute__((noinline)) void fc_three(void) { sink += 3; __asm__ volatile(""); }

__attribute__((noinline)) void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts))
		;
	sink++;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, ms = argc > 2 ? atol(argv[2]) : 2;
	for (long i = 0; i < n; i++) {
		fc_one();
		fc_two();
		fc_two();
		fc_three();
		fc_three();
		fc_three();
	}
	const char *naps = getenv("CALLS_NAPS");
	FILE *f = naps ? fopen(naps, "w") : NULL;
	for (int i = 0; i < 10; i++) {
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		nap(ms);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (f)
			fprintf(f, "%lld\n", (t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec));
	}
	return f && fclose(f) ? 1 : 0;
}
