/* inlined [ROUNDS]: mix() is forced inline into outer(), which main calls
 * in a loop; built -O2 -g by the tests, nearly every sample lands in
 * mix()'s body inside outer(). */
#include <stdint.h>
#include <stdlib.h>

static volatile uint64_t sink;

static inline __attribute__((always_inline)) uint64_t mix(uint64_t x, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

__attribute__((noinline)) uint64_t outer(uint64_t n)
{
	uint64_t x = mix(sink, n);
	return x ^ (x >> 7);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 100;
	for (int r = 0; r < rounds; r++)
		sink += outer(1000000);
	return 0;
}
