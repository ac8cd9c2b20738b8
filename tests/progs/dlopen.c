/* dlopen LIB [ROUNDS]: loads LIB at run time and spends its time in the
 * library's dl_busy_work(). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

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
	fn(argc > 2 ? strtol(argv[2], NULL, 10) : 300);
	dlclose(h);
	return 0;
}
