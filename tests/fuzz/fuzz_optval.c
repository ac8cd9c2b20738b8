/*
 * fuzz_optval.c - the script option parser on any command-line string:
 * splitting "--name=value", each type's value parser, and list splitting.
 * The input is one NUL-terminated string (as argv gives them); whatever is
 * parsed must lie inside it.  The string as messages show it (lp_show)
 * must fit its buffer and be one line.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cstr.h"
#include "luaprof/luaprof.h"
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
	struct lp_shown shown;
	const char *q = lp_show(s, &shown);
	size_t n = strnlen(q, sizeof shown.s);
	if (n == sizeof shown.s || (strlen(s) <= LP_SHOW_MAX && n != strlen(s)))
		abort();        /* not terminated inside its buffer, or a short value changed */
	for (size_t k = 0; k < n; k++)
		if ((unsigned char)q[k] < 0x20 || q[k] == 0x7f)
			abort();        /* not one line */
	free(s);
	return 0;
}
