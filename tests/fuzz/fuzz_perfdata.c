/*
 * fuzz_perfdata.c - the perf.data reader as a replay drives it (replay.h),
 * on any bytes as a file: seekable or pipe layout, as the magic and header
 * say; features and compressed records included.  The file is a memfd, so
 * it is mapped as a regular file is (fuzz_pdpipe reads the stream through
 * a pipe).
 */
#include "replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	replay_init();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = memfile("perf.data", data, size, path, sizeof path);
	if (fd < 0)
		return 0;
	replay(path);
	close(fd);
	return 0;
}
