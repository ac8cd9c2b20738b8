/*
 * fuzz_debuglink.c - the .gnu_debuglink section parser (lp_debuglink_parse)
 * and its CRC on any bytes: a name it returns must be a NUL-terminated
 * string without '/' that fits, and nothing outside the input is read.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sym/sym_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char name[64];
	uint32_t crc;
	if (!lp_debuglink_parse(data, size, name, sizeof name, &crc)) {
		size_t n = strlen(name);
		if (n == 0 || n >= sizeof name || strchr(name, '/'))
			abort();
	}
	(void)lp_debuglink_crc(0, data, size);
	return 0;
}
