/* libdlwork.so: the library the dlopen workload loads at run time. */
#include <stdint.h>

static volatile uint64_t sink;

__attribute__((noinline)) void dl_busy_work(long rounds)
{
	uint64_t x = sink;
	for (long r = 0; r < rounds; r++)
		for (int i = 0; i < 1000000; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink = x;
}
