/*
 * hist.c - the engine's histograms (include/luaprof/agg.h): the one
 * power-of-two bucket function and the one bpftrace-format printer, for
 * luaprof.hist (lua/host/lhist.c) and the one-liners' hist() (core/agg
 * through lua/host/lagg.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "luaprof/agg.h"

#define BAR 52                  /* bpftrace's bar of @ */

unsigned lp_agg_bucket(int64_t v)
{
	if (v < 0)
		return 0;
	if (v == 0)
		return 1;
	return (unsigned)(63 - __builtin_clzll((unsigned long long)v)) + 2;
}

void lp_hist_edge(char *out, size_t size, uint64_t v)
{
	static const char suffix[] = "KMGTPE";
	int s = 0;
	while (v >= 1024 && v % 1024 == 0 && s < 6) {
		v /= 1024;
		s++;
	}
	snprintf(out, size, "%llu%.*s", (unsigned long long)v, s ? 1 : 0, s ? &suffix[s - 1] : "");
}

void lp_hist_pow2_label(unsigned b, char *out, size_t size)
{
	char lo[24], hi[24];
	if (b == 0) {
		snprintf(out, size, "(..., 0)");
	} else if (b <= 2) {
		snprintf(out, size, "[%u]", b - 1);
	} else if (b >= LP_HIST_POW2_BUCKETS - 1) {
		lp_hist_edge(lo, sizeof lo, UINT64_C(1) << 63);
		snprintf(out, size, "[%s, ...)", lo);
	} else {
		lp_hist_edge(lo, sizeof lo, UINT64_C(1) << (b - 2));
		lp_hist_edge(hi, sizeof hi, UINT64_C(1) << (b - 1));
		snprintf(out, size, "[%s, %s)", lo, hi);
	}
}

/* The pow2 labeller for lp_hist_text. */
static void pow2_label(size_t i, char *out, size_t size, void *ctx)
{
	(void)ctx;
	lp_hist_pow2_label((unsigned)i, out, size);
}

char *lp_hist_text(const uint64_t *counts, size_t nr, lp_hist_label_fn *label, void *ctx,
		   size_t *len)
{
	size_t first = nr, last = 0;
	uint64_t top = 0;
	for (size_t i = 0; i < nr; i++) {
		if (!counts[i])
			continue;
		first = first < i ? first : i;
		last = i;
		top = counts[i] > top ? counts[i] : top;
	}
	size_t lines = first < nr ? last - first + 1 : 0, cap = lines * 160 + 1, n = 0;
	char *text = malloc(cap);
	if (!text)
		return NULL;
	text[0] = '\0';
	for (size_t i = first; lines && i <= last; i++) {
		char lab[96], bar[BAR + 1];
		size_t w = (size_t)(counts[i] * BAR / top);
		memset(bar, '@', w);
		memset(bar + w, ' ', BAR - w);
		bar[BAR] = '\0';
		(label ? label : pow2_label)(i, lab, sizeof lab, ctx);
		int k = snprintf(text + n, cap - n, "%-16s%8llu |%s|\n", lab,
				 (unsigned long long)counts[i], bar);
		if (k < 0 || (size_t)k >= cap - n) {    /* a label past 96 bytes cannot be */
			free(text);
			return NULL;
		}
		n += (size_t)k;
	}
	*len = n;
	return text;
}
