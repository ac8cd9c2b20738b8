/* chain [ROUNDS] | chain qsort [ROUNDS]: the DWARF unwinding workload,
 * meant to be built -O2 -fomit-frame-pointer (the tests build it so).
 * Default: main -> chain_a -> chain_b -> chain_c -> chain_leaf, which burns
 * the CPU; no frame pointer anywhere, so only CFI finds the callers.
 * qsort: main -> sort_rounds -> qsort (libc) -> ... -> cmp_slow, a
 * comparison callback that burns the CPU, so its stacks cross libc. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static volatile uint64_t sink;

/* Each function uses its callee's result after the call, so no call is a
 * tail call, and none is inlined. */
__attribute__((noinline)) uint64_t chain_leaf(uint64_t n)
{
	uint64_t x = sink;
	for (uint64_t i = 0; i < n; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

__attribute__((noinline)) uint64_t chain_c(uint64_t n) { return chain_leaf(n) ^ sink; }
__attribute__((noinline)) uint64_t chain_b(uint64_t n) { return chain_c(n) + sink; }
__attribute__((noinline)) uint64_t chain_a(uint64_t n) { return chain_b(n) * 3 + sink; }

__attribute__((noinline)) int cmp_slow(const void *a, const void *b)
{
	uint64_t x = chain_leaf(2000);
	sink = x;
	uint32_t u = *(const uint32_t *)a, v = *(const uint32_t *)b;
	return (u > v) - (u < v);
}

__attribute__((noinline)) void sort_rounds(int rounds)
{
	enum { N = 2000 };
	static uint32_t v[N];
	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < N; i++)
			v[i] = (uint32_t)(i * 2654435761u) ^ (uint32_t)r;
		qsort(v, N, sizeof v[0], cmp_slow);
	}
	sink += v[0];
}

int main(int argc, char **argv)
{
	int qs = argc > 1 && !strcmp(argv[1], "qsort");
	int rounds = argc > 1 + qs ? atoi(argv[1 + qs]) : 100;
	if (qs) {
		sort_rounds(rounds);
		return 0;
	}
	for (int r = 0; r < rounds; r++)
		sink += chain_a(1000000);
	return 0;
}
