/*
 * fuzz_usdt.c - USDT probes on any bytes: an ELF image ("\x7fELF...") has
 * its .note.stapsdt notes walked (lp_usdt_each_mem: notes, .stapsdt.base,
 * segments to file offsets, each probe's argument specs); anything else is
 * one note's descriptor (lp_usdt_parse_note) and, as a string, an argument
 * spec list (lp_usdt_parse_args).  Every argument parsed is read back from
 * a synthetic sample (registers and a stack copy made here; no process).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cstr.h"
#include "luaprof/event.h"
#include "luaprof/probe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

/* Reads each argument from registers 1, 2, 3, ... and a stack of 64 bytes
 * at the stack pointer's value. */
static void read_args(const struct lp_usdt_arg *a, int n)
{
	uint64_t regs[20], stack[8];
	for (int i = 0; i < 20; i++)
		regs[i] = (uint64_t)i + 1;
	for (int i = 0; i < 8; i++)
		stack[i] = 0x1111111111111111ull * (uint64_t)i;
	regs[7] = 4096;         /* SP (the 8th register of LP_DWARF_REGS_MASK) */
	struct lp_sample s = { .user_abi = 2, .user_regs = regs, .nr_user_regs = 20,
			       .user_regs_mask = LP_DWARF_REGS_MASK, .user_stack = stack,
			       .user_stack_size = sizeof stack, .user_stack_dyn_size = sizeof stack };
	for (int i = 0; i < n; i++) {
		int64_t v;
		if (a[i].size != 1 && a[i].size != 2 && a[i].size != 4 && a[i].size != 8)
			abort();
		if (!lp_usdt_arg_value(&a[i], &s, 0, &v))
			sink += (uint64_t)v;
	}
}

static int on_probe(const struct lp_usdt_probe *p, void *arg)
{
	(void)arg;
	if (!memchr(p->provider, 0, sizeof p->provider) || !memchr(p->name, 0, sizeof p->name) ||
	    !p->provider[0] || !p->name[0] || p->nr_args < 0 || p->nr_args > LP_USDT_MAX_ARGS)
		abort();
	read_args(p->args, p->nr_args);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size >= 4 && !memcmp(data, "\x7f" "ELF", 4)) {
		lp_usdt_each_mem(data, size, on_probe, NULL);
		return 0;
	}
	struct lp_usdt_probe p;
	if (!lp_usdt_parse_note(data, size, &p))
		on_probe(&p, NULL);
	char *s = fuzz_cstr(data, size, 4096);
	if (!s)
		return 0;
	struct lp_usdt_arg a[LP_USDT_MAX_ARGS];
	int n = lp_usdt_parse_args(s, a, LP_USDT_MAX_ARGS);
	if (n > LP_USDT_MAX_ARGS)
		abort();
	if (n > 0)
		read_args(a, n);
	free(s);
	return 0;
}
