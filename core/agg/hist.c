/*
 * hist.c - the engine's histograms (include/luaprof/agg.h): the one
 * power-of-two bucket function, the one linear one, and the one
 * bpftrace-format printer, for luaprof.hist (lua/host/lhist.c) and the
 * one-liners' hist() and lhist() (core/agg's maps, aggmap.c).
 */
#include <errno.h>
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

int lp_lhist_init(struct lp_lhist *l, int64_t min, int64_t max, int64_t step, size_t max_buckets)
{
	if (max <= min || step <= 0)
		return -EINVAL;
	uint64_t range = (uint64_t)max - (uint64_t)min;
	uint64_t n = range / (uint64_t)step + (range % (uint64_t)step != 0);
	if (n > max_buckets)
		return -E2BIG;
	*l = (struct lp_lhist){ .min = min, .max = max, .step = step, .nr = (size_t)n + 2 };
	return 0;
}

size_t lp_lhist_bucket(const struct lp_lhist *l, int64_t v)
{
	if (v < l->min)
		return 0;
	if (v >= l->max)
		return l->nr - 1;
	return 1 + (size_t)(((uint64_t)v - (uint64_t)l->min) / (uint64_t)l->step);
}

/* A linear edge: lp_hist_edge's, with a sign. */
static void signed_edge(char *out, size_t size, int64_t v)
{
	if (v >= 0) {
		lp_hist_edge(out, size, (uint64_t)v);
	} else if (size > 1) {
		out[0] = '-';
		lp_hist_edge(out + 1, size - 1, -(uint64_t)v);
	}
}

void lp_lhist_label(size_t i, char *out, size_t size, void *ctx)
{
	const struct lp_lhist *l = ctx;
	char lo[24], hi[24];
	if (i == 0) {
		signed_edge(hi, sizeof hi, l->min);
		snprintf(out, size, "(..., %s)", hi);
	} else if (i >= l->nr - 1) {
		signed_edge(lo, sizeof lo, l->max);
		snprintf(out, size, "[%s, ...)", lo);
	} else {
		int64_t a = (int64_t)((uint64_t)l->min + (uint64_t)(i - 1) * (uint64_t)l->step);
		int64_t b = (uint64_t)l->max - (uint64_t)a > (uint64_t)l->step ? a + l->step : l->max;
		signed_edge(lo, sizeof lo, a);
		signed_edge(hi, sizeof hi, b);
		snprintf(out, size, "[%s, %s)", lo, hi);
	}
}
