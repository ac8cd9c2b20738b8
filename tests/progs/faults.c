/* faults [MB]: touches MB megabytes of fresh memory page by page (page
 * faults) while also burning CPU, several rounds. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "spin.h"

int main(int argc, char **argv)
{
	size_t mb = argc > 1 ? strtoul(argv[1], NULL, 10) : 64;
	for (int round = 0; round < 4; round++) {
		char *p = mmap(NULL, mb << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return 1;
		for (size_t off = 0; off < mb << 20; off += 4096)
			p[off] = (char)off;
		munmap(p, mb << 20);
		spin_ms(50);
	}
	return 0;
}
