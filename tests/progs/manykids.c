/* manykids SPIN [N] [MS]: starts N children one after another, each running
 * SPIN MS (a fresh exec, so fresh maps), waiting for each before the next. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 40;
	const char *ms = argc > 3 ? argv[3] : "20";
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid == 0) {
			execl(argv[1], argv[1], ms, (char *)NULL);
			_exit(127);
		}
		int st;
		waitpid(pid, &st, 0);
	}
	return 0;
}
