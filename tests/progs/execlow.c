/* execlow CMD [ARGS...]: maps a copy of its own libc (read and execute) at
 * a low fixed address, then forks a child that execs CMD, and waits for
 * it.  CMD's process keeps its parent's maps in perf's model of it (an
 * exec replaces only what the new image maps over), so that copy is the
 * lowest map of libc there, below CMD's own libc: what a shell or make
 * leaves its children when its libc happens to lie below theirs (the
 * dwarf_exec test), every time.  Exits with CMD's status. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define LOW ((void *)0x200000000ul)

/* The path of the libc this process runs, from /proc/self/maps. */
static int libc_path(char *buf, size_t size)
{
	char line[4096];
	FILE *f = fopen("/proc/self/maps", "r");
	int found = 0;
	while (f && !found && fgets(line, sizeof line, f)) {
		char *p = strchr(line, '/');
		if (p && strstr(p, "/libc.so")) {
			p[strcspn(p, "\n")] = '\0';
			snprintf(buf, size, "%s", p);
			found = 1;
		}
	}
	if (f)
		fclose(f);
	return found ? 0 : -1;
}

int main(int argc, char **argv)
{
	char path[4096];
	if (argc < 2 || libc_path(path, sizeof path)) {
		fprintf(stderr, "usage: execlow CMD [ARGS...] (a dynamically linked libc)\n");
		return 2;
	}
	int fd = open(path, O_RDONLY);
	if (fd < 0 || mmap(LOW, 1 << 20, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED_NOREPLACE,
			   fd, 0) != LOW) {
		perror("execlow: mapping libc low");
		return 2;
	}
	close(fd);
	pid_t pid = fork();
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	int st;
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return 2;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
