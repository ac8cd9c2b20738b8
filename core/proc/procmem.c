/*
 * procmem.c - reading a string out of a live process (process_vm_readv),
 * as bpftrace's str() does: a tracepoint's pointer argument (openat's
 * filename) names memory of the process that made the call.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>

#include "luaprof/proc.h"

#define CHUNK 256

/* Bytes from addr to the end of its page, at most n. */
static size_t to_page_end(uint64_t addr, size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t left = page - (size_t)(addr % page);
	return left < n ? left : n;
}

int lp_proc_read_str(pid_t pid, uint64_t addr, char *buf, size_t size, size_t *len)
{
	if (pid <= 0 || !addr || size < 1)
		return -EINVAL;
	size_t got = 0;
	while (got < size - 1) {
		/* never across a page: one unmapped page fails the whole read */
		size_t want = to_page_end(addr + got, size - 1 - got < CHUNK ? size - 1 - got : CHUNK);
		struct iovec local = { buf + got, want }, remote = { (void *)(uintptr_t)(addr + got), want };
		ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
		if (n <= 0) {
			if (got)
				break;
			return n < 0 && errno == ESRCH ? -ESRCH : -EFAULT;
		}
		const char *nul = memchr(buf + got, '\0', (size_t)n);
		if (nul) {
			*len = (size_t)(nul - buf);
			return 0;
		}
		got += (size_t)n;
	}
	buf[got] = '\0';
	*len = got;
	return 0;
}
