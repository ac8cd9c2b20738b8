/* probed: a workload for probes, each count exact.
 *   probed calls N        twice(i) for i = 0..N-1 (a PIE function, not inlined)
 *   probed lib PATH N     dlopen(PATH) after the start, then its lib_twice(i)
 *                         for i = 0..N-1
 *   probed usdt N         the USDT probe luaprof_test:tick (no semaphore) N
 *                         times, with arguments i (a register), -i (a signed
 *                         int), 5 (a constant) and 3*i (a local in memory)
 *   probed watch N        writes the global variable `watched` N times (and
 *                         reads it once)
 * Prints what it did on stdout.  Without <sys/sdt.h>, usdt has no probe
 * (the note is missing, and the test skips). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__has_include)
#if __has_include(<sys/sdt.h>)
#include <sys/sdt.h>
#endif
#endif
#ifndef DTRACE_PROBE4
#define DTRACE_PROBE4(p, n, a, b, c, d) ((void)(a), (void)(b), (void)(c), (void)(d))
#endif

volatile long watched;
volatile long sink;

__attribute__((noinline)) long twice(long x)
{
	__asm__ volatile("");
	return 2 * x;
}

static int calls(long n)
{
	for (long i = 0; i < n; i++)
		sink += twice(i);
	printf("calls %ld sum %ld\n", n, (long)sink);
	return 0;
}

static int lib(const char *path, long n)
{
	void *h = dlopen(path, RTLD_NOW);
	long (*fn)(long) = h ? (long (*)(long))dlsym(h, "lib_twice") : NULL;
	if (!fn) {
		fprintf(stderr, "probed: %s\n", dlerror());
		return 1;
	}
	for (long i = 0; i < n; i++)
		sink += fn(i);
	printf("lib %ld sum %ld\n", n, (long)sink);
	return 0;
}

static int usdt(long n)
{
	for (long i = 0; i < n; i++) {
		volatile long local = 3 * i;
		int neg = (int)-i;
		DTRACE_PROBE4(luaprof_test, tick, i, neg, 5, local);
		sink += local;
	}
	printf("usdt %ld\n", n);
	return 0;
}

static int watch(long n)
{
	for (long i = 0; i < n; i++)
		watched = i;
	printf("watch %ld last %ld\n", n, (long)watched);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "calls";
	long n = argc > 2 ? atol(argv[argc - 1]) : 777;
	if (!strcmp(mode, "lib") && argc > 3)
		return lib(argv[2], n);
	if (!strcmp(mode, "usdt"))
		return usdt(n);
	if (!strcmp(mode, "watch"))
		return watch(n);
	return calls(n);
}
