/*
 * event.c - perf event names, perf_event_attr construction and opening with
 * perf's fallbacks (see perf's evsel__fallback): no PMU -> cpu-clock,
 * kernel refused -> user only, precise_ip lowered until accepted.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#include "live/evparse.h"
#include "luaprof/event.h"

struct event_name {
	const char *name;
	uint32_t type;
	uint64_t config;
};

#define HW(n, c) { n, PERF_TYPE_HARDWARE, PERF_COUNT_HW_##c }
#define SW(n, c) { n, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_##c }

/* Aliases map to the canonical name that follows the first entry with the
 * same type and config. */
static const struct event_name names[] = {
	HW("cycles", CPU_CYCLES), HW("cpu-cycles", CPU_CYCLES),
	HW("instructions", INSTRUCTIONS),
	HW("cache-references", CACHE_REFERENCES),
	HW("cache-misses", CACHE_MISSES),
	HW("branches", BRANCH_INSTRUCTIONS), HW("branch-instructions", BRANCH_INSTRUCTIONS),
	HW("branch-misses", BRANCH_MISSES),
	HW("bus-cycles", BUS_CYCLES),
	HW("ref-cycles", REF_CPU_CYCLES),
	HW("stalled-cycles-frontend", STALLED_CYCLES_FRONTEND),
	HW("idle-cycles-frontend", STALLED_CYCLES_FRONTEND),
	HW("stalled-cycles-backend", STALLED_CYCLES_BACKEND),
	HW("idle-cycles-backend", STALLED_CYCLES_BACKEND),
	SW("cpu-clock", CPU_CLOCK),
	SW("task-clock", TASK_CLOCK),
	SW("page-faults", PAGE_FAULTS), SW("faults", PAGE_FAULTS),
	SW("minor-faults", PAGE_FAULTS_MIN),
	SW("major-faults", PAGE_FAULTS_MAJ),
	SW("context-switches", CONTEXT_SWITCHES), SW("cs", CONTEXT_SWITCHES),
	SW("cpu-migrations", CPU_MIGRATIONS), SW("migrations", CPU_MIGRATIONS),
	SW("alignment-faults", ALIGNMENT_FAULTS),
	SW("emulation-faults", EMULATION_FAULTS),
};

static const struct event_name *canonical(uint32_t type, uint64_t config)
{
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (names[i].type == type && names[i].config == config)
			return &names[i];
	return NULL;
}

const char *lp_event_table(size_t i, uint32_t *type, uint64_t *config)
{
	if (i >= sizeof names / sizeof names[0])
		return NULL;
	*type = names[i].type;
	*config = names[i].config;
	return names[i].name;
}

int lp_event_modifiers(const char *mod, struct lp_event_spec *e)
{
	bool u = false, k = false;
	for (; *mod; mod++) {
		switch (*mod) {
		case 'u': u = true; break;
		case 'k': k = true; break;
		case 'p': if (++e->precise > 3) return -EINVAL; break;
		case 'P': e->precise_max = true; break;
		default: return -EINVAL;
		}
	}
	if (u || k) {           /* perf: naming one level excludes the others */
		e->exclude_user = !u;
		e->exclude_kernel = !k;
		e->exclude_hv = true;
	}
	return 0;
}

/* Names e canonically: its table name, then ":mods" when there are any. */
static int spec_name(struct lp_event_spec *e, const char *mods)
{
	const struct event_name *c = canonical(e->type, e->config);
	char buf[64];
	snprintf(buf, sizeof buf, "%s%s%s", c ? c->name : "?", *mods ? ":" : "", mods);
	return lp_event_rename(e, buf);
}

int lp_event_rename(struct lp_event_spec *spec, const char *name)
{
	char *copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	free(spec->name);
	spec->name = copy;
	return 0;
}

void lp_event_spec_free(struct lp_event_spec *spec)
{
	free(spec->name);
	free(spec->filter);
	free(spec->probe_str);
	free(spec->usdt);
	free(spec->dyn_event);
	spec->name = spec->filter = spec->probe_str = spec->dyn_event = NULL;
	spec->usdt = NULL;
}

int lp_event_parse(const char *str, struct lp_event_spec *out)
{
	const char *colon = strchr(str, ':');
	size_t len = colon ? (size_t)(colon - str) : strlen(str);
	const char *mods = colon ? colon + 1 : "";

	memset(out, 0, sizeof *out);
	out->callchain = -1;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		if (strlen(names[i].name) != len || strncasecmp(names[i].name, str, len))
			continue;
		out->type = names[i].type;
		out->config = names[i].config;
		if ((colon && !*mods) || strlen(mods) > 8 || lp_event_modifiers(mods, out))
			return -EINVAL;
		return spec_name(out, mods);
	}
	return -ENOENT;
}

int lp_event_default(struct lp_event_spec *out)
{
	int rc = lp_event_parse("cycles", out);
	out->precise_max = true;
	return rc;
}

/* The rate spec is sampled at: its own, or the run's. */
static void event_rate(const struct lp_event_spec *spec, const struct lp_sampling *s,
		       bool *use_period, uint64_t *period, uint64_t *freq)
{
	bool own = spec->rate == LP_RATE_OWN || (spec->rate == LP_RATE_DEFAULT && !s->user_rate);
	*use_period = own ? spec->use_period : s->use_period;
	*period = own ? spec->period : s->period;
	*freq = own ? spec->freq : s->freq;
}

/* The call graph: the event's own setting (a call-graph= term), else the
 * run's: frame pointers (-g) or a stack copy (dwarf), whose user part is
 * unwound from the copy, as perf record --call-graph dwarf. */
static void event_callchain(const struct lp_event_spec *spec, const struct lp_sampling *s,
			    struct perf_event_attr *a)
{
	bool own = spec->callchain >= 0;
	uint32_t dwarf = own ? (spec->callchain ? spec->dwarf_stack : 0) : s->dwarf_stack;
	if (own ? spec->callchain : s->callchain || dwarf)
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (dwarf) {
		a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->sample_regs_user |= LP_DWARF_REGS_MASK;
		a->sample_stack_user = dwarf;
		a->exclude_callchain_user = 1;
	}
	/* perf's unwinder reads CFI tables (.eh_frame_hdr) where the process
	 * mapped them, in data maps, so dwarf recordings record those too */
	a->mmap_data = s->tracking && dwarf;
}

/* What the event's own kind adds: a probe's registers and stack, a
 * group's read of all its members (PERF_FORMAT_GROUP with every sample:
 * s.counts), and the members' part in it. */
static void event_extras(const struct lp_event_spec *spec, struct perf_event_attr *a)
{
	if (spec->regs_user) {
		a->sample_type |= PERF_SAMPLE_REGS_USER;
		a->sample_regs_user |= spec->regs_user;
	}
	if (spec->stack_user) {
		a->sample_type |= PERF_SAMPLE_STACK_USER;
		if (spec->stack_user > a->sample_stack_user)
			a->sample_stack_user = spec->stack_user;
	}
	/* strings read by the drain thread: it wakes at every sample, so
	 * that it reads them while the process still runs */
	if (spec->capture.nr_ptrs || spec->capture.cmdline)
		a->wakeup_events = 1;
	if (!spec->group)
		return;
	a->sample_type |= PERF_SAMPLE_READ;
	a->read_format |= PERF_FORMAT_GROUP | PERF_FORMAT_ID;
	if (!spec->group_leader) {      /* the leader enables and disables them */
		a->disabled = 0;
		a->enable_on_exec = 0;
		if (spec->leader_sample) {      /* :S: read with the leader only */
			a->freq = 0;
			a->sample_period = 0;
		}
	}
}

/* The fields every attr has, sampling or counting. */
static void event_base(const struct lp_event_spec *spec, const struct lp_sampling *s,
		       struct perf_event_attr *a)
{
	memset(a, 0, sizeof *a);
	a->size = sizeof *a;
	a->type = spec->type;
	a->config = spec->config;
	/* a uprobe's file, a kprobe's function: the kernel reads the string
	 * (a tracefs event, evdyn.c, has none) */
	bool str = spec->probe_str && spec->probe != LP_PROBE_WATCH && !spec->dyn_event;
	a->config1 = str ? (uint64_t)(uintptr_t)spec->probe_str : spec->config1;
	a->config2 = spec->dyn_event ? 0 : spec->config2;
	a->bp_type = spec->bp_type;
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	a->disabled = 1;
	a->inherit = s->inherit && !spec->no_inherit;
	a->enable_on_exec = s->enable_on_exec;
	a->exclude_user = spec->exclude_user;
	a->exclude_kernel = spec->exclude_kernel;
	a->exclude_hv = spec->exclude_hv;
}

bool lp_event_file_attr(const struct lp_event_spec *spec, const struct perf_event_attr *opened,
			struct perf_event_attr *out)
{
	if (!spec->dyn_event || !spec->pmu_type || spec->fetch || spec->fetch_argv)
		return false;
	*out = *opened;
	out->type = spec->pmu_type;
	out->config = spec->pmu_config;
	out->config1 = 0;
	out->config2 = spec->config2;   /* the file offset */
	return true;
}

/* Counting only, as perf stat: no samples, no records, the group read
 * member by member. */
static void event_counting(const struct lp_event_spec *spec, struct perf_event_attr *a)
{
	a->sample_type = PERF_SAMPLE_IDENTIFIER;
	if (spec->group && !spec->group_leader) {
		a->disabled = 0;
		a->enable_on_exec = 0;
	}
}

void lp_event_attr(const struct lp_event_spec *spec, const struct lp_sampling *s,
		   struct perf_event_attr *a)
{
	bool use_period;
	uint64_t period, freq;
	event_base(spec, s, a);
	if (s->count_only) {
		event_counting(spec, a);
		return;
	}
	event_rate(spec, s, &use_period, &period, &freq);
	a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | spec->sample_type;
	/* The period when it varies (-F), or is 1.  With a fixed period (-c N)
	 * the kernel takes PERIOD as a request to sample every software event
	 * with the count since the last one (perf_swevent_event), so perf leaves
	 * it out, and readers take the attr's period.  At period 1 every event
	 * is sampled either way, and PERIOD makes a tracepoint that counts
	 * more than one per hit (__perf_count: sched_stat_runtime's run time)
	 * one sample with that count, not that many samples, as perf. */
	/* (a period= term leaves it out at 1 too, as perf's config terms do,
	 * and so do watchpoints, which count one per hit) */
	bool fixed = (spec->rate == LP_RATE_OWN && spec->use_period) ||
		     spec->type == PERF_TYPE_BREAKPOINT;
	if (!use_period || (period == 1 && !fixed))
		a->sample_type |= PERF_SAMPLE_PERIOD;
	a->freq = !use_period;
	if (use_period)
		a->sample_period = period;
	else
		a->sample_freq = freq;
	event_callchain(spec, s, a);
	a->precise_ip = spec->precise_max ? 3 : spec->precise;
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->mmap = a->mmap2 = a->comm = a->comm_exec = a->task = s->tracking;
	a->ksymbol = s->tracking && s->ksymbols;        /* BPF programs loaded, unloaded */
	a->context_switch = s->tracking && s->switch_events;
	if (s->all_cgroups) {   /* the cgroup of each sample, the paths of new ones */
		a->sample_type |= PERF_SAMPLE_CGROUP;
		a->cgroup = s->tracking;
	}
	event_extras(spec, a);
	/* the samples the kernel could not write, counted per event: with
	 * them a run learns the losses no LOST record reported (a ring still
	 * full when the events stop), as perf record does (perf 6.1 asks for
	 * it too).  A group's read layout, which samples carry, stays as is. */
	if (s->read_lost && !(a->read_format & PERF_FORMAT_GROUP))
		a->read_format |= PERF_FORMAT_LOST;
}

int lp_event_sys_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		      unsigned long flags)
{
	long fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
	return fd < 0 ? -errno : (int)fd;
}

/* Whether this kernel opens a disabled dummy event on the calling thread
 * (user space only: any paranoid level that allows profiling allows it)
 * with what a sets beside. */
static bool kernel_takes(struct perf_event_attr a)
{
	a.size = sizeof a;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.disabled = a.exclude_kernel = a.exclude_hv = 1;
	int fd = lp_event_sys_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

bool lp_event_kernel_reads_lost(void)
{
	static int known = -1;          /* luaprof opens events from one thread */
	if (known < 0)
		known = kernel_takes((struct perf_event_attr){ .read_format = PERF_FORMAT_LOST });
	return known;
}

bool lp_event_kernel_ksymbols(void)
{
	static int known = -1;
	if (known < 0)
		known = kernel_takes((struct perf_event_attr){ .ksymbol = 1 });
	return known;
}

int lp_event_set_filter(int fd, const struct lp_event_spec *spec)
{
	if (!spec->filter)
		return 0;
	return ioctl(fd, PERF_EVENT_IOC_SET_FILTER, spec->filter) ? -errno : 0;
}

int lp_event_paranoid(void)
{
	int level = 2;
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	if (f) {
		if (fscanf(f, "%d", &level) != 1)
			level = 2;
		fclose(f);
	}
	return level;
}

uint64_t lp_event_max_sample_rate(void)
{
	unsigned long long rate = 0;
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "re");
	if (f) {
		if (fscanf(f, "%llu", &rate) != 1)
			rate = 0;
		fclose(f);
	}
	return rate;
}

/* Whether spec's name ends in modifiers (":pp", ":P"), which a fallback
 * extends, or needs a colon before them.  A probe's colons are its parts
 * ("uprobe:/bin/bash:readline"); takes no modifiers of its own. */
static bool has_modifiers(const struct lp_event_spec *spec)
{
	const char *colon = strrchr(spec->name, ':');
	if (spec->probe || !colon || !colon[1])
		return false;
	return strspn(colon + 1, "ukhpPGHSIDW") == strlen(colon + 1);
}

char *lp_event_user_only_name(const struct lp_event_spec *spec)
{
	char *name;
	return asprintf(&name, "%s%s", spec->name, has_modifiers(spec) ? "u" : ":u") < 0 ? NULL : name;
}

/* Applies the next fallback for error err, or returns false when none is
 * left.  Mirrors perf's order: precise level, PMU, kernel exclusion. */
static bool fall_back(struct lp_event_spec *spec, struct perf_event_attr *a, int err,
		      bool counting, unsigned *fb)
{
	if (a->precise_ip && spec->precise_max && (err == -EOPNOTSUPP || err == -EINVAL)) {
		a->precise_ip--;
		*fb |= LP_FALLBACK_PRECISE;
		return true;
	}
	if (spec->type == PERF_TYPE_HARDWARE && spec->config == PERF_COUNT_HW_CPU_CYCLES && !counting &&
	    (err == -ENOENT || err == -ENXIO || err == -ENODEV || err == -EOPNOTSUPP ||
	     err == -EINVAL)) {
		const char *mods = strchr(spec->name, ':');
		char keep[16];
		snprintf(keep, sizeof keep, "%s", mods ? mods + 1 : "");
		spec->type = PERF_TYPE_SOFTWARE;
		spec->config = PERF_COUNT_SW_CPU_CLOCK;
		if (spec_name(spec, keep))
			return false;
		a->type = spec->type;
		a->config = spec->config;
		a->precise_ip = 0;      /* a software clock has no skid to reduce */
		*fb |= LP_FALLBACK_CPU_CLOCK;
		return true;
	}
	/* Kernels before 6.12 take no PERF_SAMPLE_READ on inherited events
	 * (perf 6.1 never asks for it: its :S groups give up inherit). */
	if (err == -EINVAL && a->inherit && (a->sample_type & PERF_SAMPLE_READ)) {
		a->inherit = 0;
		*fb |= LP_FALLBACK_NO_INHERIT;
		return true;
	}
	/* Not for tracepoints: they fire in the kernel, so user-only would
	 * drop every sample. */
	if ((err == -EACCES || err == -EPERM) && !a->exclude_kernel && !a->exclude_user &&
	    spec->type != PERF_TYPE_TRACEPOINT && lp_event_paranoid() > 1) {
		char *name = lp_event_user_only_name(spec);
		if (!name)
			return false;
		free(spec->name);
		spec->name = name;
		a->exclude_kernel = spec->exclude_kernel = 1;
		a->exclude_hv = spec->exclude_hv = 1;
		*fb |= LP_FALLBACK_USER_ONLY;
		return true;
	}
	return false;
}

int lp_event_open_group(struct lp_event_spec *spec, const struct lp_sampling *s, pid_t pid,
			int cpu, int group_fd, unsigned *fallbacks)
{
	struct perf_event_attr a;
	lp_event_attr(spec, s, &a);
	for (int tries = 0; tries < 8; tries++) {
		int fd = lp_event_sys_open(&a, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0) {
			spec->precise = (uint8_t)a.precise_ip;
			spec->precise_max = false;      /* settled: reuse as is */
			return fd;
		}
		if (!fall_back(spec, &a, fd, s->count_only, fallbacks))
			return fd;
	}
	return -EINVAL;
}

int lp_event_open(struct lp_event_spec *spec, const struct lp_sampling *s,
		  pid_t pid, int cpu, unsigned *fallbacks)
{
	return lp_event_open_group(spec, s, pid, cpu, -1, fallbacks);
}

uint64_t lp_count_scaled(const struct lp_count *c)
{
	if (!c->running)
		return 0;
	if (c->running >= c->enabled)
		return c->value;
	return (uint64_t)((unsigned __int128)c->value * c->enabled / c->running);
}
