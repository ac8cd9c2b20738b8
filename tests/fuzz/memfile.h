/*
 * memfile.h - an input as a file for the fuzz targets that read files by
 * name: one memfd per target, made on first use, then emptied and refilled
 * for each input (making and destroying a file per input costs more than
 * reading a small one: fuzz_srcline spent a third of its time creating and
 * unlinking files in /tmp).
 */
#ifndef FUZZ_MEMFILE_H
#define FUZZ_MEMFILE_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* *fd (-1 at first) holding the n bytes at p; its name, /proc/self/fd/N,
 * into path (size bytes).  Aborts when that fails. */
static void memfile(int *fd, const void *p, size_t n, char *path, size_t size)
{
	if (*fd < 0 && (*fd = memfd_create("fuzz-input", MFD_CLOEXEC)) < 0)
		abort();
	if (ftruncate(*fd, 0) || (n && pwrite(*fd, p, n, 0) != (ssize_t)n))
		abort();
	snprintf(path, size, "/proc/self/fd/%d", *fd);
}

#endif
