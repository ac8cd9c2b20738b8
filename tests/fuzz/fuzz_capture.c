/*
 * fuzz_capture.c - the capture record decoder (lp_capture_decode) on any
 * bytes: whatever it decodes, every item's data must lie inside the
 * record, which this target reads whole, so ASan catches one that does
 * not.  (The drain thread makes these records; the decoder still trusts
 * nothing in them.)
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "luaprof/capture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a block of exactly size bytes, aligned as the drain thread's */
	void *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	struct lp_capture c;
	if (lp_capture_decode(buf, size, &c) == 0)
		for (size_t i = 0; i < c.nr; i++)
			for (uint32_t j = 0; j < c.items[i].len; j++)
				sink += (uint8_t)c.items[i].data[j];
	free(buf);
	return 0;
}
