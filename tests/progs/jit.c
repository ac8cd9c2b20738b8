/* jit [MS1 [MS2]]: generates code at run time as a JIT compiler does, in
 * an anonymous executable map, and names it in /tmp/perf-PID.map as perf
 * expects: jit_first runs for MS1 ms of CPU time (default 300); then
 * jit_second is generated, appended to the map file, and runs for MS2 ms.
 * The map file is left behind for replays (the caller removes it). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "spin.h"

/* uint64_t f(uint64_t n): sum of n..1, in a loop */
static const unsigned char code[] = {
	0x48, 0x89, 0xf9,               /* mov %rdi,%rcx */
	0x31, 0xc0,                     /* xor %eax,%eax */
	0x48, 0x01, 0xc8,               /* 1: add %rcx,%rax */
	0x48, 0xff, 0xc9,               /* dec %rcx */
	0x75, 0xf8,                     /* jnz 1b */
	0xc3,                           /* ret */
};

typedef uint64_t (*fn)(uint64_t);

static void name_it(const void *addr, const char *name)
{
	char path[64];
	snprintf(path, sizeof path, "/tmp/perf-%d.map", (int)getpid());
	FILE *f = fopen(path, "a");
	if (!f)
		exit(1);
	fprintf(f, "%lx %zx %s\n", (unsigned long)(uintptr_t)addr, sizeof code, name);
	fclose(f);
}

static void run_for(fn f, uint64_t ms)
{
	uint64_t end = thread_cpu_ns() + ms * 1000000ull;
	while (thread_cpu_ns() < end)
		spin_sink += f(100000);
}

int main(int argc, char **argv)
{
	uint64_t ms1 = argc > 1 ? strtoull(argv[1], NULL, 10) : 300;
	uint64_t ms2 = argc > 2 ? strtoull(argv[2], NULL, 10) : 300;
	unsigned char *mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 1;
	memcpy(mem, code, sizeof code);
	name_it(mem, "jit_first");
	run_for((fn)(void *)mem, ms1);
	memcpy(mem + 256, code, sizeof code);
	name_it(mem + 256, "jit_second");
	run_for((fn)(void *)(mem + 256), ms2);
	return 0;
}
