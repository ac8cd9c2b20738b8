/*
 * driver.c - runs a fuzz target without libFuzzer: every file named on the
 * command line (a directory: every file in it) is read and passed to
 * LLVMFuzzerTestOneInput once.  `make test` uses it to replay each target's
 * regression inputs (tests/fuzz/corpus/TARGET/), under ASan+UBSan in `make
 * check-asan`; `make fuzz` links the same targets with libFuzzer instead.
 * Prints "N passed, 0 failed" (one per input) like the unit tests; a crash
 * or sanitizer report is the failure.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static unsigned long inputs;

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "cannot open %s\n", path);
		return -1;
	}
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;
	do {
		if (len == cap) {
			cap = cap ? 2 * cap : 65536;
			uint8_t *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return -1;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	fclose(f);
	/* An exact-size copy, so ASan sees any read past the input's end. */
	uint8_t *exact = malloc(len ? len : 1);
	if (exact)
		memcpy(exact, buf, len);
	free(buf);
	if (!exact)
		return -1;
	LLVMFuzzerTestOneInput(exact, len);
	free(exact);
	inputs++;
	return 0;
}

static int run_path(const char *path)
{
	struct stat st;
	if (stat(path, &st))
		return 0;               /* an empty corpus is no failure */
	if (!S_ISDIR(st.st_mode))
		return run_file(path);
	DIR *d = opendir(path);
	if (!d)
		return -1;
	int rc = 0;
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		char sub[4096];
		snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
		rc |= run_path(sub);
	}
	closedir(d);
	return rc;
}

int main(int argc, char **argv)
{
	int rc = 0;
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++)
		rc |= run_path(argv[i]);
	printf("%lu passed, %d failed\n", inputs, rc ? 1 : 0);
	return rc ? 1 : 0;
}
