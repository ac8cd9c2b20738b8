/* execgate GATE PROG [ARGS...]: a second thread ("gatewait") that only
 * waits, and the main thread, which reads a line from the FIFO GATE and
 * then execs PROG.  An exec at a moment a test chooses while luaprof
 * attaches (-p): luaprof reads /proc of each thread in turn, and a
 * script's on_comm for the second one, after the main thread's maps were
 * read, opens the gate (tests/e2e/exec_attach.sh). */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/prctl.h>

static void *wait_forever(void *arg)
{
	prctl(PR_SET_NAME, "gatewait");
	for (;;)
		pause();
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;
	char line[64];
	if (argc < 3) {
		fprintf(stderr, "usage: execgate GATE PROG [ARGS...]\n");
		return 2;
	}
	if (pthread_create(&t, NULL, wait_forever, NULL))
		return 1;
	FILE *gate = fopen(argv[1], "r");
	if (!gate || !fgets(line, sizeof line, gate)) {
		perror(argv[1]);
		return 1;
	}
	fclose(gate);
	execv(argv[2], argv + 2);
	perror(argv[2]);
	return 127;
}
