/*
 * evcache.c - raw and generic cache events of the -e syntax:
 *
 *   r1a8, r003c:u                  PERF_TYPE_RAW, config 0x1a8
 *   L1-dcache-load-misses, LLC-loads, dTLB-store-misses, branch-loads, ...
 *                                  PERF_TYPE_HW_CACHE: id | op << 8 | result << 16
 *
 * Modifiers follow a colon.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "live/evparse.h"
#include "luaprof/err.h"
#include "luaprof/event.h"
#include "luaprof/luaprof.h"

/* ---- raw and cache events --------------------------------------------------------- */

/* perf's names for the generic caches, operations and results (the first
 * of each is what perf list shows). */
static const char *const caches[][5] = {
	{ "L1-dcache", "l1-d", "l1d", "L1-data", NULL },
	{ "L1-icache", "l1-i", "l1i", "L1-instruction", NULL },
	{ "LLC", "L2", NULL },
	{ "dTLB", "d-tlb", "Data-TLB", NULL },
	{ "iTLB", "i-tlb", "Instruction-TLB", NULL },
	{ "branch", "branches", "bpu", "btb", "bpc" },
	{ "node", NULL },
};
static const char *const ops[][5] = {
	{ "load", "loads", "read", NULL },
	{ "store", "stores", "write", NULL },
	{ "prefetch", "prefetches", "speculative-read", "speculative-load", NULL },
};
static const char *const results[][5] = {
	{ "refs", "Reference", "ops", "access", "accesses" },
	{ "misses", "miss", NULL },
};
/* Which operations each cache has (bit per op), as perf's table. */
static const unsigned char valid_ops[] = { 7, 5, 7, 7, 1, 1, 7 };

#define NR(a) (sizeof a / sizeof *a)

/* The index of the alias of table (rows of 5) that s starts with, followed
 * by '-' or the end; *len is its length.  -1 when none. */
static int prefix_of(const char *const (*table)[5], size_t rows, const char *s, size_t *len)
{
	for (size_t r = 0; r < rows; r++)
		for (size_t i = 0; i < 5 && table[r][i]; i++) {
			size_t n = strlen(table[r][i]);
			if (!strncasecmp(s, table[r][i], n) && (s[n] == '-' || !s[n])) {
				*len = n;
				return (int)r;
			}
		}
	return -1;
}

/* "CACHE-OP[-RESULT]" or "CACHE-RESULT" (the op is load): the config, or
 * -1 when s is no cache event. */
static int64_t cache_config(const char *s)
{
	size_t n;
	int cache = prefix_of(caches, NR(caches), s, &n), op = 0, res = 0;
	if (cache < 0 || !s[n])
		return -1;
	s += n + 1;
	if ((op = prefix_of(ops, NR(ops), s, &n)) >= 0) {
		s += n;
		if (*s && ((res = prefix_of(results, NR(results), s + 1, &n)) < 0 || s[1 + n]))
			return -1;
	} else if ((res = prefix_of(results, NR(results), s, &n)) < 0 || s[n]) {
		return -1;
	} else {
		op = 0;
	}
	if (!(valid_ops[cache] & (1u << op)))
		return -1;
	return cache | op << 8 | res << 16;
}

static bool is_raw(const char *s, size_t n)
{
	if (n < 2 || s[0] != 'r')
		return false;
	for (size_t i = 1; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return n <= 17;
}

int lp_evparse_raw_cache(struct lp_event_list *l, const char *item)
{
	const char *colon = strchr(item, ':');
	size_t n = colon ? (size_t)(colon - item) : strlen(item);
	char base[64];
	if (n >= sizeof base)
		return 1;
	memcpy(base, item, n);
	base[n] = '\0';
	int64_t cache = is_raw(base, n) ? -1 : cache_config(base);
	if (!is_raw(base, n) && cache < 0)
		return 1;
	struct lp_event_spec *e = lp_evparse_push(l);
	if (!e || !(e->name = strdup(item))) {
		lp_evparse_truncate(l, l->n - (e != NULL));
		return lp_err(-ENOMEM, "out of memory");
	}
	e->type = cache >= 0 ? PERF_TYPE_HW_CACHE : PERF_TYPE_RAW;
	e->config = cache >= 0 ? (uint64_t)cache : strtoull(base + 1, NULL, 16);
	if (colon && (!colon[1] || strlen(colon + 1) > 8 || lp_event_modifiers(colon + 1, e))) {
		lp_evparse_truncate(l, l->n - 1);
		return lp_err(-EINVAL, "bad modifier in event '%s': use :u, :k, :p, :pp, :ppp or :P",
			      LP_SHOW(item));
	}
	return 0;
}
