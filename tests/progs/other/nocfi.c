/*
 * nocfi.c - a hot function that no CFI covers (hand-written assembly
 * without .cfi directives, shaped like crti.o's _fini: it moves rsp by 8),
 * for the dwarf_nocfi test: unwinders must guess how to leave it.
 *
 *   nocfi N      spin called from fp_caller, which keeps a frame pointer
 *                (rbp points at fp_caller's frame: libunwind guesses a
 *                frame-pointer frame, and skips fp_caller)
 *   nocfi N -0   spin called from plain_caller, rbp not a frame pointer
 *
 * Each call spins N iterations; 20 calls.  Exit status 0.
 */
#include <stdlib.h>
#include <string.h>

__asm__(".text\n"
	".globl spin\n"
	".type spin,@function\n"
	"spin:\n"
	"	sub $8,%rsp\n"
	"1:	dec %rdi\n"
	"	jnz 1b\n"
	"	add $8,%rsp\n"
	"	ret\n"
	".size spin,.-spin\n");
void spin(long n);

__attribute__((noinline, optimize("no-omit-frame-pointer")))
long fp_caller(long n)
{
	volatile long x = n;
	spin(x);
	return x * 3;
}

__attribute__((noinline)) long plain_caller(long n)
{
	volatile long x = n;
	spin(x);
	return x * 5;
}

__attribute__((noinline)) long outer(long n, int plain)
{
	long t = 0;
	for (int i = 0; i < 20; i++)
		t += plain ? plain_caller(n) : fp_caller(n);
	return t;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000000;
	int plain = argc > 2 && strcmp(argv[2], "-0") == 0;
	return (int)(outer(n, plain) & 0);
}
