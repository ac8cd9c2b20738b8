/* bssframe [ROUNDS]: a frame whose return address is in .bss, as a
 * guessed or garbage step of an unwinder gives one (the bss_frame test;
 * x86_64, built -O2 -mno-red-zone).  spin() pushes the address of a byte
 * of `area` (a static object in .bss, on the page the program's data
 * mapping holds) and spins: its CFI, which knows nothing of the push,
 * puts its return address there.  perf names that frame after the object,
 * area+0x9 (the return address - 1).  Built -DFAKE_FP_FRAME, the frame
 * found is an address on the stack instead. */
#include <stdlib.h>

static char area[64];
int counter = 1;                /* .data: .bss starts on its page */

__attribute__((noinline)) void spin(long n)
{
#ifdef FAKE_FP_FRAME
	/* built -fno-omit-frame-pointer: a frame of its own on top, rbp
	 * pointing at it, so that its CFI (CFA = rbp + 16) reads the return
	 * address one word up, the saved rbp: an address in [stack] */
	__asm__ volatile("push %[ret]\n\t"
			 "push %%rbp\n\t"
			 "mov %%rsp, %%rbp\n\t"
			 "1: dec %[n]\n\t"
			 "jnz 1b\n\t"
			 "pop %%rbp\n\t"
			 "add $8, %%rsp\n\t"
			 : [n] "+r"(n) : [ret] "r"(area + 10) : "memory", "cc");
#else
	__asm__ volatile("push %[ret]\n\t"
			 "1: dec %[n]\n\t"
			 "jnz 1b\n\t"
			 "add $8, %%rsp\n\t"
			 : [n] "+r"(n) : [ret] "r"(area + 10) : "memory", "cc");
#endif
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 300;
	for (long i = 0; i < rounds; i++) {
		spin(1000000);
		counter++;
	}
	return counter == 0;
}
