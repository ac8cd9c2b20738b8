/*
 * fuzz_pdpipe.c - pipe mode as users feed it (`perf record -o - | luaprof
 * run SCRIPT -i -`): any bytes written into a real pipe that becomes
 * standard input, read by the perf.data reader as "-" (the stream reader:
 * read(2) into its buffer, no mapping, payloads skipped by reading), then
 * replayed as lua/cmd/replay.c does (replay.h).  The pipe is sized to hold the
 * whole input (make fuzz caps inputs at 64 KiB), which is written before
 * the read starts, so each input is read the same way every time.
 */
#include <fcntl.h>

#include "replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC))
		abort();
	if (size > 65536 && fcntl(p[1], F_SETPIPE_SZ, (int)size) < 0) {
		close(p[0]);
		close(p[1]);
		return 0;               /* larger than a pipe may hold here */
	}
	if (size && write(p[1], data, size) != (ssize_t)size)
		abort();
	close(p[1]);
	int saved = dup(0);
	if (saved < 0 || dup2(p[0], 0) < 0)
		abort();
	close(p[0]);
	replay("-");
	dup2(saved, 0);
	close(saved);
	return 0;
}
