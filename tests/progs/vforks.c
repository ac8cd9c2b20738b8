/* vforks [N]: calls vfork() N times (default 50) from a chain of three
 * functions, each child leaving at once (_exit).  glibc's __libc_vfork
 * pops its return address into rdi across the system call, so a sample
 * taken there (sys_exit_vfork, in the parent and the child) is unwound
 * through a rule "return address in a register" (the dwarf_vfork test). */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) static void spawn(void)
{
	pid_t pid = vfork();
	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	sink++;
}

__attribute__((noinline)) static void twice(void)
{
	spawn();
	sink++;
}

__attribute__((noinline)) static void rounds(int n)
{
	for (int i = 0; i < n; i++)
		twice();
	sink++;
}

int main(int argc, char **argv)
{
	rounds(argc > 1 ? atoi(argv[1]) : 50);
	return 0;
}
