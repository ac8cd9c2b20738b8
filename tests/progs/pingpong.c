/* pingpong [N]: two processes pass a byte back and forth over two pipes N
 * times (default 100000): each pass puts one to sleep and wakes the other,
 * so about 2N context switches, for sched:sched_switch recordings. */
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	int ab[2], ba[2];
	char c = 0;
	if (pipe(ab) || pipe(ba))
		return 1;
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	for (long i = 0; i < n; i++) {
		if (pid == 0) {
			if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
				_exit(1);
		} else if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1) {
			return 1;
		}
	}
	if (pid == 0)
		_exit(0);
	int st;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
