/* copier [ROUNDS]: inlined frames in C, the program's and libc's, for the
 * dwarf_inline test (built -O2 -g): fill() is forced inline into
 * churn(), which main calls; churn() also copies with memcpy and memmove
 * (libc's assembly, where one function has several names) and allocates
 * with malloc (libc's, with its own inlined functions when its debug
 * symbols are installed). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK (1u << 20)

static volatile uint64_t sink;

static inline __attribute__((always_inline)) void fill(uint64_t *p, size_t n, uint64_t x)
{
	for (size_t i = 0; i < n; i++)
		p[i] = x = x * 6364136223846793005ull + 1442695040888963407ull;
}

__attribute__((noinline)) void churn(char *a, char *b)
{
	fill((uint64_t *)(void *)a, BLOCK / 8, sink);
	memcpy(b, a, BLOCK);
	memmove(b + 8, b, BLOCK - 8);
	for (int i = 0; i < 256; i++) {
		char *p = malloc(64 + (size_t)i * 48);
		p[0] = (char)i;
		sink += (uint64_t)p[0];
		free(p);
	}
	sink += (uint64_t)b[100];
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 200;
	char *a = malloc(BLOCK), *b = malloc(BLOCK);
	if (!a || !b)
		return 1;
	for (int r = 0; r < rounds; r++)
		churn(a, b);
	free(a);
	free(b);
	return 0;
}
