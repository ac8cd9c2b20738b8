/* strreuse: one heap buffer naming two paths, the first opened through
 * libc's open() (a wrapper a uprobe copies the string at), the second by
 * a raw syscall(SYS_openat) (no wrapper, so no copy): an event's string
 * for the second must not be the first's, though the pointer is the same.
 * It then sleeps a second before it exits, so that the second can still be
 * read from its memory.  Both opens fail (ENOENT); the exit status is 0,
 * 1 when the buffer cannot be had. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

int main(void)
{
	char *p = malloc(64);
	if (!p)
		return 1;
	strcpy(p, "/nonexistent/strreuse/wrapper");
	open(p, O_RDONLY);
	strcpy(p, "/nonexistent/strreuse/raw");
	syscall(SYS_openat, AT_FDCWD, p, O_RDONLY);
	struct timespec nap = { 1, 0 };
	nanosleep(&nap, NULL);
	free(p);
	return 0;
}
