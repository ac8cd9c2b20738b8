/* forkexec SPIN [MS]: burns MS ms, forks a child that execs SPIN MS, waits. */
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>

#include "spin.h"

int main(int argc, char **argv)
{
	const char *ms = argc > 2 ? argv[2] : "300";
	spin_ms(strtoull(ms, NULL, 10));
	pid_t pid = fork();
	if (pid == 0) {
		execl(argv[1], argv[1], ms, (char *)NULL);
		_exit(127);
	}
	int st;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
