/*
 * cstr.h - an input as a C string, for the fuzz targets of text parsers
 * (event strings, option values, PMU format lines, USDT argument specs).
 */
#ifndef FUZZ_CSTR_H
#define FUZZ_CSTR_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A malloc'd copy of the size bytes at data with a NUL after them (the
 * caller frees it), or NULL when size is over max (such inputs are not
 * what the parser meets: the fuzzer should not spend its time on them) or
 * memory is short.  A NUL inside the input ends the string early, as it
 * would for the parser's real callers. */
static char *fuzz_cstr(const uint8_t *data, size_t size, size_t max)
{
	char *s = size <= max ? malloc(size + 1) : NULL;
	if (s) {
		memcpy(s, data, size);
		s[size] = '\0';
	}
	return s;
}

#endif
