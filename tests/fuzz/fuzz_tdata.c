/*
 * fuzz_tdata.c - perf's TRACING_DATA parser (lp_tdata_parse) on any bytes:
 * the feature section of a perf.data file, or a pipe's HEADER_TRACING_DATA
 * payload.  The formats it keeps are looked up by the ids their text
 * declares and read through, so ASan catches one that points outside.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "luaprof/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lp_tp_set *set = lp_tp_set_new();
	uint8_t *copy = malloc(size ? size : 1);
	if (!set || !copy) {
		lp_tp_set_free(set);
		free(copy);
		return 0;
	}
	memcpy(copy, data, size);
	sink += (uint64_t)lp_tdata_parse(copy, size, set);
	/* look up ids found in the input's "ID: N" lines */
	for (const uint8_t *p = copy; (p = memmem(p, size - (size_t)(p - copy), "ID: ", 4)); p += 4) {
		char num[24] = { 0 };
		size_t left = size - (size_t)(p + 4 - copy);
		memcpy(num, p + 4, left < sizeof num - 1 ? left : sizeof num - 1);
		const struct lp_tp_format *f = lp_tp_set_find(set, strtoull(num, NULL, 10));
		for (size_t i = 0; f && i < f->nr_fields; i++)
			sink += strlen(f->fields[i].name) + strlen(f->fields[i].type) + f->fields[i].offset;
		if (f)
			sink += strlen(f->name) + strlen(f->system);
	}
	lp_tp_set_free(set);
	free(copy);
	return 0;
}
