/* asmlabel [ROUNDS]: a global label of no type and no size (inner_label,
 * as hand-written assembly and JIT builtins have) inside the hot function
 * label_host, samples falling on both sides of it.  perf names every
 * sample in label_host by the function, the sized symbol containing it,
 * not by the label that starts before the address. */
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) unsigned long label_host(unsigned long n)
{
	unsigned long x = sink;

	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	__asm__ volatile(".globl inner_label\n"
			 ".type inner_label, @notype\n"
			 "inner_label:\n");
	for (unsigned long i = 0; i < n; i++)
		x = (x ^ (x >> 7)) * 2862933555777941757UL;
	sink = x;
	return x;
}

__attribute__((noinline)) unsigned long after_host(unsigned long n)
{
	unsigned long x = sink;

	for (unsigned long i = 0; i < n; i++)
		x += i * i;
	sink = x;
	return x;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 300;

	for (long r = 0; r < rounds; r++) {
		label_host(1000000);
		after_host(100000);
	}
	return 0;
}
