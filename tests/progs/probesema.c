/* probesema N: N rounds of a path guarded by the semaphore of the USDT
 * probe luaprof_test:guarded, which runs (and fires the probe with the
 * round number) only while a tracer has the probe attached; prints how
 * often it ran.  Without <sys/sdt.h> the path never runs. */
#include <stdio.h>
#include <stdlib.h>

#if defined(__has_include)
#if __has_include(<sys/sdt.h>)
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>
#endif
#endif

#ifdef _SDT_HAS_SEMAPHORES
__extension__ unsigned short luaprof_test_guarded_semaphore
	__attribute__((unused)) __attribute__((section(".probes")));
#define GUARDED_ENABLED() __builtin_expect(luaprof_test_guarded_semaphore, 0)
#else
#define GUARDED_ENABLED() 0
#define DTRACE_PROBE1(p, n, a) ((void)(a))
#endif

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100, ran = 0;
	for (long i = 0; i < n; i++)
		if (GUARDED_ENABLED()) {
			ran++;
			DTRACE_PROBE1(luaprof_test, guarded, i);
		}
	printf("guarded ran %ld of %ld\n", ran, n);
	return 0;
}
