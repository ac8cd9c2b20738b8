/* named NAME: gives itself the command name NAME (prctl PR_SET_NAME: the
 * kernel keeps its first 15 bytes), prints "ready" and sleeps until it is
 * killed.  A name with a backslash or a newline is shown escaped in
 * /proc/PID/status and as it is in /proc/PID/comm. */
#include <stdio.h>
#include <unistd.h>
#include <sys/prctl.h>

int main(int argc, char **argv)
{
	if (argc < 2 || prctl(PR_SET_NAME, argv[1], 0, 0, 0))
		return 1;
	puts("ready");
	fflush(stdout);
	for (;;)
		pause();
}
