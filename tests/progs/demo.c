/* demo: the workload `make demo` profiles: a small "parser" and "hasher"
 * pipeline with a recursive sort, so the top functions differ visibly. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "spin.h"

__attribute__((noinline)) static uint64_t hash_block(const uint8_t *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

__attribute__((noinline)) static void sort_ints(int *v, long lo, long hi)
{
	while (lo < hi) {
		int pivot = v[(lo + hi) / 2];
		long i = lo, j = hi;
		while (i <= j) {
			while (v[i] < pivot) i++;
			while (v[j] > pivot) j--;
			if (i <= j) { int t = v[i]; v[i] = v[j]; v[j] = t; i++; j--; }
		}
		sort_ints(v, lo, j);
		lo = i;
	}
}

__attribute__((noinline)) static void parse_numbers(int *v, long n, uint64_t seed)
{
	for (long i = 0; i < n; i++) {
		seed = seed * 6364136223846793005ull + 1;
		v[i] = (int)(seed >> 33);
	}
}

int main(void)
{
	static uint8_t buf[1 << 20];
	long n = 1 << 18;
	int *v = malloc(sizeof *v * (size_t)n);
	uint64_t acc = 0;
	for (int round = 0; round < 40; round++) {
		parse_numbers(v, n, (uint64_t)round);
		sort_ints(v, 0, n - 1);
		memset(buf, round, sizeof buf);
		for (int k = 0; k < 40; k++)
			acc += hash_block(buf, sizeof buf);
	}
	spin_sink = acc;
	free(v);
	return 0;
}
