/* sysmix [N] [ERRS] [SLEEPS] [MS]: system calls in known numbers: N
 * getppid() (default 1000), ERRS close(-1) that fail with EBADF (default
 * 100), and SLEEPS nanosleep()s of MS ms each (default 10 of 2 ms). */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, errs = argc > 2 ? atol(argv[2]) : 100;
	long sleeps = argc > 3 ? atol(argv[3]) : 10, ms = argc > 4 ? atol(argv[4]) : 2;
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	for (long i = 0; i < errs; i++)
		close(-1);
	for (long i = 0; i < sleeps; i++)
		nanosleep(&ts, NULL);
	return 0;
}
