/* noaranges [ROUNDS]: code whose DWARF has no .debug_aranges (clang's default;
 * gcc's with the section removed), for the dwarf_noaranges test:
 * work() burns the CPU, called from helper(), inlined into mid(). */
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) unsigned long work(unsigned long n)
{
	unsigned long x = sink;
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

static inline __attribute__((always_inline)) unsigned long helper(unsigned long n)
{
	unsigned long r = work(n);
	sink = r;
	return r ^ n;
}

__attribute__((noinline)) unsigned long mid(int rounds)
{
	unsigned long s = 0;
	for (int i = 0; i < rounds; i++)
		s += helper(100000 + (unsigned long)i);
	return s;
}

int main(int argc, char **argv)
{
	return (int)(mid(argc > 1 ? atoi(argv[1]) : 1000) & 1);
}
