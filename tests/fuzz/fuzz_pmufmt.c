/*
 * fuzz_pmufmt.c - a PMU's format files (sysfs format/TERM: "config:0-7,21")
 * on any text: lp_pmu_format_parse, then values packed into the bits it
 * names (lp_pmu_format_pack), which must land inside them and nowhere
 * else, and fit exactly when they have no more bits than the format.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cstr.h"
#include "luaprof/probe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size, 1024);
	if (!s)
		return 0;
	struct lp_pmu_format f;
	if (!lp_pmu_format_parse(s, &f)) {
		if (f.word > 3 || !f.mask)
			abort();
		int bits = __builtin_popcountll(f.mask);
		uint64_t vals[] = { 0, 1, ~0ull, 0x5555555555555555ull,
				    bits < 64 ? (1ull << bits) - 1 : ~0ull };
		for (size_t i = 0; i < sizeof vals / sizeof *vals; i++) {
			uint64_t c[4] = { 0, 0, 0, 0 };
			int rc = lp_pmu_format_pack(&f, vals[i], c);
			bool fits = bits == 64 || vals[i] >> bits == 0;
			if ((rc == 0) != fits || (c[f.word] & ~f.mask))
				abort();
			if (!rc && (uint64_t)__builtin_popcountll(c[f.word]) != (uint64_t)__builtin_popcountll(vals[i]))
				abort();
		}
	}
	free(s);
	return 0;
}
