/* syscalls [MB]: busy in the kernel: reads /dev/zero and writes /dev/null in
 * 64 KiB chunks, MB*16 times each, plus getppid() calls. */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char buf[65536];
	long n = (argc > 1 ? atol(argv[1]) : 4000) * 16;
	int z = open("/dev/zero", O_RDONLY), nul = open("/dev/null", O_WRONLY);
	if (z < 0 || nul < 0)
		return 1;
	for (long i = 0; i < n; i++) {
		if (read(z, buf, sizeof buf) < 0 || write(nul, buf, sizeof buf) < 0)
			return 1;
		getppid();
	}
	return 0;
}
