/* dlopen LIB [ROUNDS]: loads LIB at run time and spends its time in the
 * library's dl_busy_work().
 * dlopen LIB idle MS: loads LIB, then burns MS ms of CPU in its own code
 * without ever running the library's (until exit runs its destructors). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spin.h"

int main(int argc, char **argv)
{
	void *h = dlopen(argc > 1 ? argv[1] : "./libdlwork.so", RTLD_NOW);
	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 1;
	}
	void (*fn)(long) = (void (*)(long))dlsym(h, "dl_busy_work");
	if (!fn)
		return 1;
	if (argc > 3 && !strcmp(argv[2], "idle"))
		spin_ms(strtoull(argv[3], NULL, 10));
	else
		fn(argc > 2 ? strtol(argv[2], NULL, 10) : 300);
	dlclose(h);
	return 0;
}
