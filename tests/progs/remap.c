/* remap ROUNDS: runs its own code from a second mapping of its executable,
 * as node 20 runs its text from a second copy: the page holding
 * remapped_work is mapped again from /proc/self/exe (PROT_EXEC, another
 * address), and ROUNDS calls go to that copy, between calls to the
 * original one.  remapped_work touches no global and calls nothing, so
 * it runs the same wherever it is mapped.  Prints the two results (equal). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

__attribute__((noinline)) uint64_t remapped_work(uint64_t n, uint64_t x)
{
	for (uint64_t i = 0; i < n; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

struct where {
	uintptr_t addr;         /* in */
	uintptr_t off;          /* out: its offset in the file, 0 if not found */
};

static int find_segment(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct where *w = arg;
	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && w->addr >= start && w->addr < start + ph->p_filesz) {
			w->off = w->addr - start + ph->p_offset;
			return 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 100;
	long page = sysconf(_SC_PAGESIZE);
	struct where w = { (uintptr_t)&remapped_work, 0 };
	if (!dl_iterate_phdr(find_segment, &w) || !w.off) {
		fprintf(stderr, "remap: remapped_work is in no segment of the program\n");
		return 1;
	}
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	uintptr_t base = w.off & ~(uintptr_t)(page - 1);
	void *copy = fd < 0 ? MAP_FAILED : mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_EXEC,
						MAP_PRIVATE, fd, (off_t)base);
	if (copy == MAP_FAILED) {
		perror("remap: mmap /proc/self/exe");
		return 1;
	}
	uint64_t (*again)(uint64_t, uint64_t) =
		(uint64_t (*)(uint64_t, uint64_t))((uintptr_t)copy + (w.off - base));
	uint64_t a = 1, b = 1;
	for (long r = 0; r < rounds; r++) {
		a = remapped_work(1000000, a);
		b = again(1000000, b);
	}
	printf("%llu %llu\n", (unsigned long long)a, (unsigned long long)b);
	return a != b;
}
