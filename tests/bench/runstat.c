/* runstat OUT CMD...: runs CMD (stdout to /dev/null unless LUAPROF_KEEP_STDOUT),
 * and writes "status cpu_seconds maxrss_kib" of that child to OUT.  Being
 * tiny, the peak RSS the child inherits across exec is negligible. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	pid_t pid = fork();
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		_exit(127);
	}
	int st;
	struct rusage ru;
	if (pid < 0 || wait4(pid, &st, 0, &ru) < 0)
		return 2;
	FILE *f = fopen(argv[1], "w");
	if (!f)
		return 2;
	fprintf(f, "%d %.6f %ld\n", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st),
		ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6,
		ru.ru_maxrss);
	fclose(f);
	return 0;
}
