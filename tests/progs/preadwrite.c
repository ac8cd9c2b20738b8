/* preadwrite [N] [ERRS]: positioned reads and writes in known numbers: N
 * pread(2) of /dev/zero and N pwrite(2) to /dev/null (default 200 each),
 * then ERRS pread(2) of a pipe that fail with ESPIPE (default 20): calls
 * 17 and 18 on x86-64, pread64 and pwrite64 to the kernel, pread and
 * pwrite to libaudit. */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200, errs = argc > 2 ? atol(argv[2]) : 20;
	char buf[64] = { 0 };
	int zero = open("/dev/zero", O_RDONLY), null = open("/dev/null", O_WRONLY), p[2];
	if (zero < 0 || null < 0 || pipe(p))
		return 1;
	for (long i = 0; i < n; i++)
		if (pread(zero, buf, sizeof buf, (off_t)i) < 0 || pwrite(null, buf, sizeof buf, (off_t)i) < 0)
			return 1;
	for (long i = 0; i < errs; i++)
		if (pread(p[0], buf, sizeof buf, 0) >= 0)
			return 1;
	return 0;
}
