/* libprobelib.so: a library the probed workload loads with dlopen after
 * its start, so that a uprobe on it is placed before it is mapped. */
__attribute__((noinline)) long lib_twice(long x)
{
	__asm__ volatile("");
	return 2 * x;
}
