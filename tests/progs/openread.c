/* openread [ROUNDS [FILE [SYNCFILE]]]: the one-liners' workload (issue 22).
 * ROUNDS times (default 10): opens FILE (openat; default its own path,
 * argv[0]) and reads 1, 100, 2000 and 4096 bytes of it (FILE must hold at
 * least 6197), then closes it; so its reads fall in four of bpftrace's
 * power-of-two buckets, ROUNDS each.  With SYNCFILE, then writes 64 KiB
 * there and fsyncs it (block I/O when SYNCFILE is on a block device).
 * It lives 300 ms more, so that a profiler reading its memory (a path's
 * string) finds it still there. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char buf[65536];
	static const size_t sizes[] = { 1, 100, 2000, 4096 };
	int rounds = argc > 1 ? atoi(argv[1]) : 10;
	const char *file = argc > 2 ? argv[2] : argv[0];
	for (int r = 0; r < rounds; r++) {
		int fd = open(file, O_RDONLY);
		if (fd < 0)
			return 1;
		for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
			if (read(fd, buf, sizes[i]) != (ssize_t)sizes[i])
				return 1;
		close(fd);
	}
	if (argc > 3) {
		int fd = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0644);
		memset(buf, 'x', sizeof buf);
		if (fd < 0 || write(fd, buf, sizeof buf) != (ssize_t)sizeof buf || fsync(fd))
			return 1;
		close(fd);
	}
	usleep(300000);
	return 0;
}
