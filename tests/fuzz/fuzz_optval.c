/*
 * fuzz_optval.c - the script option parser on any command-line string:
 * splitting "--name=value", each type's value parser, and list splitting.
 * The input is one NUL-terminated string (as argv gives them); whatever is
 * parsed must lie inside it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cstr.h"
#include "luaprof/optval.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size, SIZE_MAX);
	if (!s)
		return 0;
	char name[LP_OPT_NAME_MAX + 1];
	const char *value = NULL;
	if (lp_opt_split(s, name, &value) == 0) {
		sink += strlen(name) + (value ? strlen(value) : 0);
		if (!lp_opt_name_ok(name, strlen(name)))
			abort();        /* split accepted a name the checker refuses */
	}
	const char *text = value ? value : s;
	int64_t i;
	double d;
	bool b;
	sink += (size_t)lp_opt_integer(text, &i) + (size_t)lp_opt_number(text, &d) +
		(size_t)lp_opt_boolean(text, &b) + (size_t)lp_opt_type(text);
	const char *p = text, *start;
	size_t len;
	while (lp_opt_list_next(&p, &start, &len)) {
		if (start < text || start + len > text + strlen(text) || memchr(start, ',', len))
			abort();
		sink += len;
	}
	free(s);
	return 0;
}
