/* tpcalls [N] [SLEEP_MS]: exactly N (default 1000) getppid system calls,
 * then one close(123456), which fails with EBADF: for counting system-call
 * tracepoints (one sample per call) and reading their fields (close's fd
 * argument, and its return value -9, a negative signed field).  With
 * SLEEP_MS, it first sleeps that long (one nanosleep), so it is switched
 * out at least once: on an idle CPU nothing else need ever switch it out. */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	long ms = argc > 2 ? atol(argv[2]) : 0;
	if (ms > 0) {
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
		nanosleep(&ts, NULL);
	}
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	syscall(SYS_close, 123456L);
	return 0;
}
