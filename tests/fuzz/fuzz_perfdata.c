/*
 * fuzz_perfdata.c - the perf.data reader as a replay drives it (replay.h),
 * on any bytes as a file: seekable or pipe layout, as the magic and header
 * say; features and compressed records included.  The file is a memfd,
 * mapped as a regular file is (fuzz_pdpipe reads streams through a pipe).
 */
#include "replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	char path[64];
	memfile(&fd, data, size, path, sizeof path);
	replay(path);
	return 0;
}
