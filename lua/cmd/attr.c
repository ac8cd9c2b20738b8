/*
 * attr.c - `luaprof list --attr EVENTS`: the perf_event_attr luaprof builds
 * for each event of an -e list, printed as `perf record -vv` prints its
 * own (the same field names, zero fields left out), so that the two can
 * be compared field by field.  The attrs are those of `luaprof run -e
 * EVENTS -- CMD` with the default rate (4000 Hz): inherited, enabled at
 * the command's exec, the first event carrying the MMAP/COMM/TASK records.
 * A probe is shown as the uprobe PMU's event, which such a run opens only
 * where tracefs refuses the probe (and then without inherit): it places
 * the others as tracefs uprobe events (core/live/evdyn.c), of the same
 * attr but for type, config (the event's id) and config1.
 */
#include <stdio.h>
#include <string.h>

#include "list.h"
#include "lp.h"
#include "luaprof/err.h"
#include "luaprof/luaprof.h"
#include "luaprof/event.h"

struct bit_name { uint64_t bit; const char *name; };

static const struct bit_name sample_bits[] = {
	{ PERF_SAMPLE_IP, "IP" }, { PERF_SAMPLE_TID, "TID" }, { PERF_SAMPLE_TIME, "TIME" },
	{ PERF_SAMPLE_ADDR, "ADDR" }, { PERF_SAMPLE_READ, "READ" },
	{ PERF_SAMPLE_CALLCHAIN, "CALLCHAIN" }, { PERF_SAMPLE_ID, "ID" }, { PERF_SAMPLE_CPU, "CPU" },
	{ PERF_SAMPLE_PERIOD, "PERIOD" }, { PERF_SAMPLE_STREAM_ID, "STREAM_ID" },
	{ PERF_SAMPLE_RAW, "RAW" }, { PERF_SAMPLE_BRANCH_STACK, "BRANCH_STACK" },
	{ PERF_SAMPLE_REGS_USER, "REGS_USER" }, { PERF_SAMPLE_STACK_USER, "STACK_USER" },
	{ PERF_SAMPLE_WEIGHT, "WEIGHT" }, { PERF_SAMPLE_DATA_SRC, "DATA_SRC" },
	{ PERF_SAMPLE_IDENTIFIER, "IDENTIFIER" }, { PERF_SAMPLE_TRANSACTION, "TRANSACTION" },
	{ PERF_SAMPLE_REGS_INTR, "REGS_INTR" }, { 0, NULL },
};

static const struct bit_name read_bits[] = {
	{ PERF_FORMAT_TOTAL_TIME_ENABLED, "TOTAL_TIME_ENABLED" },
	{ PERF_FORMAT_TOTAL_TIME_RUNNING, "TOTAL_TIME_RUNNING" },
	{ PERF_FORMAT_ID, "ID" }, { PERF_FORMAT_GROUP, "GROUP" }, { PERF_FORMAT_LOST, "LOST" },
	{ 0, NULL },
};

static void print_bits(const char *field, uint64_t v, const struct bit_name *names)
{
	if (!v)
		return;
	printf("  %-32s ", field);
	const char *sep = "";
	for (const struct bit_name *b = names; b->name; b++)
		if (v & b->bit) {
			printf("%s%s", sep, b->name);
			sep = "|";
		}
	printf("\n");
}

static void print_u(const char *field, uint64_t v, bool hex)
{
	if (v)
		printf(hex ? "  %-32s %#llx\n" : "  %-32s %llu\n", field, (unsigned long long)v);
}

static void print_attr(const struct lp_event_spec *e, const struct perf_event_attr *a)
{
	bool str = e->probe_str && e->probe != LP_PROBE_WATCH;
	printf("%s\nperf_event_attr:\n", e->name);
	print_u("type", a->type, false);
	print_u("size", a->size, false);
	print_u("config", a->config, true);
	print_u("{ sample_period, sample_freq }", a->sample_period, false);
	print_bits("sample_type", a->sample_type, sample_bits);
	print_bits("read_format", a->read_format, read_bits);
	print_u("disabled", a->disabled, false);
	print_u("inherit", a->inherit, false);
	print_u("exclude_user", a->exclude_user, false);
	print_u("exclude_kernel", a->exclude_kernel, false);
	print_u("exclude_hv", a->exclude_hv, false);
	print_u("mmap", a->mmap, false);
	print_u("comm", a->comm, false);
	print_u("freq", a->freq, false);
	print_u("enable_on_exec", a->enable_on_exec, false);
	print_u("task", a->task, false);
	print_u("precise_ip", a->precise_ip, false);
	print_u("mmap_data", a->mmap_data, false);
	print_u("sample_id_all", a->sample_id_all, false);
	print_u("mmap2", a->mmap2, false);
	print_u("comm_exec", a->comm_exec, false);
	print_u("use_clockid", a->use_clockid, false);
	print_u("context_switch", a->context_switch, false);
	print_u("ksymbol", a->ksymbol, false);
	print_u("exclude_callchain_user", a->exclude_callchain_user, false);
	print_u("bp_type", a->bp_type, false);
	if (str)
		printf("  %-32s \"%s\"\n", "{ probe_path, config1 }", e->probe_str);
	else
		print_u("{ bp_addr, config1 }", a->config1, true);
	print_u("{ bp_len, config2 }", a->config2, true);
	print_u("sample_regs_user", a->sample_regs_user, true);
	print_u("sample_stack_user", a->sample_stack_user, false);
	print_u("clockid", a->clockid, false);
}

int lp_list_attr(const char *events)
{
	struct lp_event_list l = { 0 };
	if (lp_event_list_add(&l, events)) {
		fprintf(stderr, "luaprof: %s\n", lp_last_error());
		lp_event_list_free(&l);         /* its events are as before, its array may not be */
		return LP_EXIT_FAILURE;
	}
	struct lp_sampling s = { .freq = 4000, .inherit = true, .enable_on_exec = true,
				 .read_lost = lp_event_kernel_reads_lost(),
				 .ksymbols = lp_event_kernel_ksymbols() };
	for (size_t i = 0; i < l.n; i++) {
		struct perf_event_attr a;
		s.tracking = i == 0;
		lp_event_attr(&l.v[i], &s, &a);
		print_attr(&l.v[i], &a);
	}
	lp_event_list_free(&l);
	return 0;
}
