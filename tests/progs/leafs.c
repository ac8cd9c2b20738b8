/* leafs [ROUNDS]: leaf_a does twice the work of leaf_b, both called from a
 * recursive chain recurse(8) -> ... -> work, so that with -g every stack
 * holds main -> run -> recurse x8 -> work -> leaf. */
#include <stdint.h>
#include <stdlib.h>


/* The leaves do their own work, so the self samples land in them.  Each
 * ends with a call, so gcc gives it a frame: a function that needs no stack
 * gets none even with -fno-omit-frame-pointer, and a frame-pointer walk
 * from inside it would skip its caller (perf's too). */
static volatile uint64_t sink;

__attribute__((noinline)) void publish(uint64_t x) { sink = x; }

__attribute__((noinline)) void leaf_a(void)
{
	uint64_t x = sink;
	for (int i = 0; i < 2000000; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	publish(x);
}

__attribute__((noinline)) void leaf_b(void)
{
	uint64_t x = sink;
	for (int i = 0; i < 1000000; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	publish(x);
}

__attribute__((noinline)) void work(void)
{
	leaf_a();
	leaf_b();
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void recurse(int depth)
{
	if (depth == 0)
		work();
	else
		recurse(depth - 1);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void run(long rounds)
{
	for (long i = 0; i < rounds; i++)
		recurse(8);
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	run(argc > 1 ? strtol(argv[1], NULL, 10) : 150);
	return 0;
}
