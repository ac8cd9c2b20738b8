/* tpcalls [N]: exactly N (default 1000) getppid system calls, then one
 * close(123456), which fails with EBADF: for counting system-call
 * tracepoints (one sample per call) and reading their fields (close's fd
 * argument, and its return value -9, a negative signed field). */
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	syscall(SYS_close, 123456L);
	return 0;
}
