/* spin MS [EXIT|sig N]: burns MS ms of CPU, then exits with EXIT (default 0)
 * or kills itself with signal N. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spin.h"

int main(int argc, char **argv)
{
	spin_ms(argc > 1 ? strtoull(argv[1], NULL, 10) : 200);
	if (argc > 3 && !strcmp(argv[2], "sig")) {
		signal(atoi(argv[3]), SIG_DFL);
		raise(atoi(argv[3]));
	}
	return argc > 2 ? atoi(argv[2]) : 0;
}
