/*
 * retline.c - calls whose return address begins the next source line:
 * main calls work, work calls leaf twice, each call the last instruction
 * of its line.  Built -O0 with frame pointers by script_fields.sh, whose
 * frame-pointer callchains then hold callers at such addresses, where the
 * line at the address and the line of the call differ.
 *
 *   retline N     leaf's loop of N iterations, 100 times over
 */
#include <stdlib.h>

volatile long retline_sink;

__attribute__((noinline)) void retline_leaf(long n)
{
	for (long i = 0; i < n; i++)
		retline_sink += i;
}

__attribute__((noinline)) void retline_work(long n)
{
	retline_leaf(n);
	retline_sink++;
	retline_leaf(n);
	retline_sink--;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	for (int i = 0; i < 100; i++) {
		retline_work(n);
		retline_sink += 3;
	}
	return 0;
}
