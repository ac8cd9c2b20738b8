/* strpaths [ARG...]: the strings of issue 33, each in another place of the
 * program's memory, then an exit at once.  It opens (openat) paths that do
 * not exist, in this order:
 *   /nonexistent/strpaths/literal       a string literal (read-only data), by open()
 *   /nonexistent/strpaths/stack         a buffer on its stack, by open()
 *   /nonexistent/strpaths/heap          a malloc'd buffer, by open(), which it
 *                                       then overwrites ("...heap-changed") and frees
 *   /nonexistent/strpaths/raw-stack     a stack buffer, by syscall(SYS_openat):
 *                                       no libc wrapper
 *   /nonexistent/strpaths/raw-literal   a string literal, by syscall(SYS_openat)
 *   each ARG                            its arguments (the top of its stack),
 *                                       by open()
 * then passes each of "alpha", "beta", "gamma" to strpaths_take(const char
 * *) and calls strpaths_name(i) for i = 0..2, which returns them (a probe's
 * string argument and return value), and exits without waiting: a
 * profiler that reads its memory afterwards finds nothing.  Every open
 * fails (ENOENT); the exit status is 0. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

static const char *const names[] = { "alpha", "beta", "gamma" };
volatile size_t sink;

__attribute__((noinline)) void strpaths_take(const char *s)
{
	sink += strlen(s);
}

__attribute__((noinline)) const char *strpaths_name(int i)
{
	__asm__ volatile("");
	return names[i % 3];
}

static void raw_open(const char *path)
{
	syscall(SYS_openat, AT_FDCWD, path, O_RDONLY);
}

int main(int argc, char **argv)
{
	char stack[64], raw[64];
	open("/nonexistent/strpaths/literal", O_RDONLY);
	strcpy(stack, "/nonexistent/strpaths/stack");
	open(stack, O_RDONLY);
	char *heap = malloc(64);
	if (!heap)
		return 1;
	strcpy(heap, "/nonexistent/strpaths/heap");
	open(heap, O_RDONLY);
	strcpy(heap, "/nonexistent/strpaths/heap-changed");
	sink += strlen(heap);
	free(heap);
	strcpy(raw, "/nonexistent/strpaths/raw-stack");
	raw_open(raw);
	raw_open("/nonexistent/strpaths/raw-literal");
	for (int i = 1; i < argc; i++)
		open(argv[i], O_RDONLY);
	for (int i = 0; i < 3; i++)
		strpaths_take(names[i]);
	for (int i = 0; i < 3; i++)
		sink += strlen(strpaths_name(i));
	return 0;
}
