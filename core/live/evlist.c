/*
 * evlist.c - opening a run's events on every CPU, one ring per CPU.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>

#include "live/evlist.h"
#include "luaprof/err.h"
#include "luaprof/luaprof.h"
#include "luaprof/ring.h"
#include "util/grow.h"

/* Parses a CPU list such as "0-3,6".  Returns the count, or -errno. */
static int read_online_cpus(int **out)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	int *cpus = NULL, n = 0, lo, hi;
	char sep;
	if (!f)
		return -errno;
	while (fscanf(f, "%d", &lo) == 1) {
		hi = lo;
		if (fscanf(f, "%c", &sep) == 1 && sep == '-' &&
		    (fscanf(f, "%d", &hi) != 1 || fscanf(f, "%c", &sep) < 0))
			break;
		int *v = hi >= lo && hi - lo < 65536 ? realloc(cpus, (size_t)(n + hi - lo + 1) * sizeof *v) : NULL;
		if (!v)
			break;
		cpus = v;
		for (int c = lo; c <= hi; c++)
			cpus[n++] = c;
	}
	fclose(f);
	*out = cpus;
	return n > 0 ? n : -ENODEV;
}

int lp_evlist_init(struct lp_evlist *el, struct lp_event_spec *events, size_t nr,
		   const struct lp_sampling *s)
{
	memset(el, 0, sizeof *el);
	el->events = events;
	el->nr_events = nr;
	el->sampling = *s;
	el->sampling.read_lost = !s->count_only && lp_event_kernel_reads_lost();
	el->sampling.ksymbols = !s->count_only && lp_event_kernel_ksymbols();
	el->counting = s->count_only;
	/* counting a task (inherit: not -a) needs no fd per CPU */
	int n = el->counting && s->inherit ? 1 : read_online_cpus(&el->cpus);
	if (n < 0)
		return n;
	if (!el->cpus && (el->cpus = malloc(sizeof *el->cpus)))
		el->cpus[0] = -1;
	el->nr_cpus = (size_t)n;
	el->rings = calloc(el->nr_cpus, sizeof *el->rings);
	el->attrs = calloc(nr, sizeof *el->attrs);
	el->unsupported = calloc(nr, sizeof *el->unsupported);
	return el->cpus && el->rings && el->attrs && el->unsupported ? 0 : -ENOMEM;
}

static int ids_put(struct lp_evlist *el, uint64_t id, uint32_t event)
{
	if ((el->nr_fds + 1) * 2 > el->nr_id_slots) {
		size_t n = el->nr_id_slots ? el->nr_id_slots * 2 : 64;
		struct lp_id_slot *old = el->ids;
		size_t old_n = el->nr_id_slots;
		el->ids = calloc(n, sizeof *el->ids);
		if (!el->ids)
			return el->ids = old, -ENOMEM;
		el->nr_id_slots = n;
		for (size_t i = 0; i < old_n; i++)
			if (old[i].id)
				ids_put(el, old[i].id, old[i].event);
		free(old);
	}
	size_t h = (id * 0x9e3779b97f4a7c15ull) >> 20;
	while (el->ids[h & (el->nr_id_slots - 1)].id)
		h++;
	el->ids[h & (el->nr_id_slots - 1)].id = id;
	el->ids[h & (el->nr_id_slots - 1)].event = event;
	return 0;
}

int lp_evlist_event_of(const struct lp_evlist *el, uint64_t id)
{
	if (!el->nr_id_slots || !id)
		return -1;
	for (size_t h = (id * 0x9e3779b97f4a7c15ull) >> 20;; h++) {
		size_t i = h & (el->nr_id_slots - 1);
		if (el->ids[i].id == id)
			return (int)el->ids[i].event;
		if (!el->ids[i].id)
			return -1;
	}
}

static int add_fd(struct lp_evlist *el, int fd, uint32_t event)
{
	uint64_t id = 0;
	if (fd >= 0 && (ioctl(fd, PERF_EVENT_IOC_ID, &id) || ids_put(el, id, event))) {
		close(fd);
		return -EIO;
	}
	if (lp_grow(&el->fds, &el->cap_fds, el->nr_fds, sizeof *el->fds, 16, SIZE_MAX)) {
		if (fd >= 0)
			close(fd);
		return -ENOMEM;
	}
	el->fds[el->nr_fds++] = fd;
	return 0;
}

static void open_error(const struct lp_evlist *el, size_t e, int cpu, pid_t tid, int rc)
{
	const struct lp_event_spec *ev = &el->events[e];
	bool tp = ev->type == PERF_TYPE_TRACEPOINT;
	char hint[320] = "";
	if (tp && (rc == -EACCES || rc == -EPERM))
		snprintf(hint, sizeof hint, ": not allowed; a tracepoint's data needs root (or "
			 "CAP_PERFMON, or kernel.perf_event_paranoid=-1; it is %d)",
			 lp_event_paranoid());
	else if (ev->probe && ev->probe != LP_PROBE_WATCH && (rc == -EACCES || rc == -EPERM))
		snprintf(hint, sizeof hint, ": not allowed; placing a probe needs root (or CAP_PERFMON)");
	else if (rc == -ENOENT || rc == -EOPNOTSUPP || rc == -ENODEV)
		snprintf(hint, sizeof hint, "%s", tp ? ": this kernel does not offer it for sampling"
			 : ": not supported on this machine (no hardware PMU?); try -e cpu-clock");
	else if (rc == -EINVAL && ev->type >= PERF_TYPE_MAX && !ev->probe && cpu >= 0 &&
		 el->sampling.inherit)
		snprintf(hint, sizeof hint, ": this PMU may count only system-wide (-a)");
	else if (rc == -EACCES || rc == -EPERM)
		lp_access_hint(ev, tid, hint, sizeof hint);
	else if (rc == -EMFILE)
		snprintf(hint, sizeof hint, " (a run needs one per event and CPU, more with -p); "
			 "raise the hard limit (ulimit -Hn, as root)");
	lp_err(rc, "cannot open event '%s' on cpu %d: %s%s", LP_SHOW(ev->name), cpu,
	       strerror(-rc), hint);
}

static void filter_error(const struct lp_event_spec *ev, int rc)
{
	lp_err(rc, "the kernel rejects the filter '%s' on '%s': %s (its fields: "
	       "luaprof list --fields %s)", LP_SHOW(ev->filter), LP_SHOW(ev->name), strerror(-rc),
	       LP_SHOW(ev->name));
}

/* Raises the soft limit on open files to the hard one, as perf does when
 * it runs out (a run opens events x CPUs fds: 360 system-call tracepoints
 * on 4 CPUs pass the usual 1024).  The launched command was forked before,
 * so it keeps its own limit.  True when the limit rose. */
static bool raise_nofile(void)
{
	struct rlimit r;
	if (getrlimit(RLIMIT_NOFILE, &r) || r.rlim_cur >= r.rlim_max)
		return false;
	r.rlim_cur = r.rlim_max;
	return setrlimit(RLIMIT_NOFILE, &r) == 0;
}

/* Errors that mean the machine cannot count an event at all. */
static bool unsupported(int rc)
{
	return rc == -ENOENT || rc == -EOPNOTSUPP || rc == -ENODEV || rc == -ENXIO;
}

/* Opens event e for tid on cpu c (in group_fd's group) with its filter
 * set: the fd, SKIPPED (counting: the machine cannot count it), or -errno
 * (err set, but not for ESRCH). */
#define SKIPPED (-1000000)
static int open_one(struct lp_evlist *el, size_t e, pid_t tid, size_t c, int group_fd)
{
	struct lp_sampling s = el->sampling;
	s.tracking = (e == 0) && !el->counting && !el->no_tracking;
	int fd = lp_event_open_group(&el->events[e], &s, tid, el->cpus[c], group_fd, &el->fallbacks);
	if (fd == -EMFILE && raise_nofile())
		fd = lp_event_open_group(&el->events[e], &s, tid, el->cpus[c], group_fd,
					 &el->fallbacks);
	if (fd == -ESRCH)
		return fd;
	if (el->counting && unsupported(fd)) {
		el->unsupported[e] = true;
		return SKIPPED;
	}
	if (fd < 0) {
		open_error(el, e, el->cpus[c], tid, fd);
		return fd;
	}
	int rc = lp_event_set_filter(fd, &el->events[e]);
	if (rc) {
		close(fd);
		filter_error(&el->events[e], rc);
		return rc;
	}
	return fd;
}

/* Closes the fds opened after the first `keep`. */
static void drop_fds(struct lp_evlist *el, size_t keep)
{
	while (el->nr_fds > keep)
		if (el->fds[--el->nr_fds] >= 0)
			close(el->fds[el->nr_fds]);
}

int lp_evlist_open_task(struct lp_evlist *el, pid_t tid)
{
	size_t first = el->nr_fds;
	for (size_t c = 0; c < el->nr_cpus; c++) {
		int leader = -1;
		for (size_t e = 0; e < el->nr_events; e++) {
			const struct lp_event_spec *ev = &el->events[e];
			int fd = open_one(el, e, tid, c, ev->group && !ev->group_leader ? leader : -1);
			if (fd == -ESRCH) {
				drop_fds(el, first);    /* the thread has gone meanwhile */
				return 0;
			}
			if (fd == SKIPPED)
				fd = -1;
			else if (fd < 0)
				return fd;
			if (ev->group_leader)
				leader = fd;
			lp_event_attr(&el->events[e], &el->sampling, &el->attrs[e]);
			int rc = add_fd(el, fd, (uint32_t)e);
			if (rc)
				return lp_err(rc, "cannot read the id of event '%s'",
					      LP_SHOW(el->events[e].name));
		}
	}
	return 0;
}

/* The CPU of an fd: fds are opened cpu-major per task, events inner. */
static size_t fd_cpu(const struct lp_evlist *el, size_t i)
{
	return (i / el->nr_events) % el->nr_cpus;
}

static int map_rings(struct lp_evlist *el, size_t pages)
{
	for (size_t c = 0; c < el->nr_cpus; c++) {
		el->rings[c] = lp_ring_mmap(el->fds[c * el->nr_events], pages);
		if (!el->rings[c])
			return -errno;
	}
	return 0;
}

/* kernel.perf_event_mlock_kb, or -1 when unreadable. */
static long mlock_kb(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_mlock_kb", "re");
	long kb = -1;
	if (f) {
		if (fscanf(f, "%ld", &kb) != 1)
			kb = -1;
		fclose(f);
	}
	return kb;
}

static void unmap_rings(struct lp_evlist *el)
{
	for (size_t c = 0; c < el->nr_cpus; c++)
		lp_ring_free(el->rings[c]), el->rings[c] = NULL;
}

int lp_evlist_mmap(struct lp_evlist *el, size_t pages, bool exact)
{
	size_t want = pages;
	int rc;
	if (el->counting)
		return 0;       /* nothing is sampled */
	while ((rc = map_rings(el, pages)) == -EPERM || rc == -ENOMEM) {
		unmap_rings(el);
		if (exact || pages <= 8)
			break;
		pages /= 2;
	}
	if (rc == -EPERM)
		lp_err(rc, "cannot map %zu ring pages per CPU (%zu KiB on each of %zu CPUs): "
		       "more than kernel.perf_event_mlock_kb (%ld KiB) and 'ulimit -l' let this user "
		       "lock; use a smaller -m, or raise them (sysctl kernel.perf_event_mlock_kb=N)",
		       pages, pages * (size_t)getpagesize() / 1024, el->nr_cpus, mlock_kb());
	else if (rc)
		lp_err(rc, "cannot map %zu ring pages per CPU: %s; use a smaller -m",
		       pages, strerror(-rc));
	if (rc)
		return rc;
	if (pages != want)
		lp_log(LP_WARN, "ring buffers of %zu pages per CPU refused (kernel.perf_event_mlock_kb"
		       "=%ld KiB): using %zu pages", want, mlock_kb(), pages);
	for (size_t i = el->nr_cpus * el->nr_events; i < el->nr_fds; i++)
		if (ioctl(el->fds[i], PERF_EVENT_IOC_SET_OUTPUT, el->fds[fd_cpu(el, i) * el->nr_events]))
			goto fail;
	for (size_t c = 0; c < el->nr_cpus; c++)
		for (size_t e = 1; e < el->nr_events; e++)
			if (ioctl(el->fds[c * el->nr_events + e], PERF_EVENT_IOC_SET_OUTPUT,
				  el->fds[c * el->nr_events]))
				goto fail;
	return 0;
fail:
	rc = -errno;
	return lp_err(rc, "cannot share the ring buffers between events: %s", strerror(-rc));
}

void lp_evlist_enable(struct lp_evlist *el, int on)
{
	for (size_t i = 0; i < el->nr_fds; i++)
		if (el->fds[i] >= 0)
			ioctl(el->fds[i], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
}

/* Adds one read(2) of fd (event e's) to out: a plain read_format block
 * {value, enabled, running}, or a group's {nr, enabled, running, nr x
 * {value, id}} to its members e, e+1, ...  Enabled times are kept at
 * their largest when max_enabled (see lp_evlist_read), else added. */
static int read_fd(const struct lp_evlist *el, int fd, size_t e, bool max_enabled,
		   struct lp_count *out)
{
	uint64_t buf[3 + 2 * 64];
	bool group = el->attrs[e].read_format & PERF_FORMAT_GROUP;
	ssize_t n = read(fd, buf, sizeof buf);
	if (n < (ssize_t)(3 * sizeof *buf))
		return n < 0 ? -errno : -EIO;
	uint64_t nr = group ? buf[0] : 1;
	const uint64_t *times = buf + 1;        /* after value, or after nr */
	const uint64_t *values = group ? buf + 3 : buf;
	size_t per = group ? 2 : 1;
	if (nr > 64 || (size_t)n < (group ? 3 + per * nr : 3) * sizeof *buf || e + nr > el->nr_events)
		return -EIO;
	for (uint64_t k = 0; k < nr; k++) {
		struct lp_count *c = &out[e + k];
		c->value += values[k * per];
		c->running += times[1];
		if (!max_enabled)
			c->enabled += times[0];
		else if (times[0] > c->enabled)
			c->enabled = times[0];
	}
	return 0;
}

/* Adds one thread's fds (fds[first], ... one block per opened task) to
 * out, through block (nr_events entries of scratch). */
static int read_block(const struct lp_evlist *el, size_t first, size_t n, struct lp_count *block,
		      struct lp_count *out)
{
	/* A thread's event on one CPU of several is enabled whenever the thread
	 * runs, and running only while it runs on that CPU: its enabled time is
	 * the largest of its CPUs', its running time their sum (without
	 * multiplexing the two are equal).  System-wide, each CPU's is its own. */
	bool per_cpu_task = el->sampling.inherit && el->nr_cpus > 1;
	size_t nb = el->nr_events;
	memset(block, 0, nb * sizeof *block);
	for (size_t i = first; i < first + n && i < el->nr_fds; i++) {
		size_t e = i % el->nr_events;
		bool group = el->attrs[e].read_format & PERF_FORMAT_GROUP;
		if (el->fds[i] < 0 || (group && !el->events[e].group_leader))
			continue;       /* a member's count comes with its leader's */
		int rc = read_fd(el, el->fds[i], e, per_cpu_task, block);
		if (rc)
			return rc;
	}
	for (size_t e = 0; e < nb; e++) {
		out[e].value += block[e].value;
		out[e].enabled += block[e].enabled;
		out[e].running += block[e].running;
	}
	return 0;
}

int lp_evlist_read(const struct lp_evlist *el, struct lp_count *out)
{
	for (size_t e = 0; e < el->nr_events; e++)
		out[e] = (struct lp_count){ .supported = !el->unsupported[e] };
	size_t block = el->sampling.inherit ? el->nr_cpus * el->nr_events : el->nr_fds;
	struct lp_count *scratch = calloc(el->nr_events ? el->nr_events : 1, sizeof *scratch);
	int rc = scratch ? 0 : -ENOMEM;
	for (size_t i = 0; !rc && block && i < el->nr_fds; i += block)
		rc = read_block(el, i, block, scratch, out);
	free(scratch);
	return rc;
}

uint64_t lp_evlist_lost(const struct lp_evlist *el)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < el->nr_fds; i++) {
		uint64_t rf = el->attrs[i % el->nr_events].read_format, buf[5];
		if (el->fds[i] < 0 || !(rf & PERF_FORMAT_LOST) || (rf & PERF_FORMAT_GROUP))
			continue;
		/* value, [enabled], [running], [id], lost */
		size_t k = 1 + !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			   !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING) + !!(rf & PERF_FORMAT_ID);
		ssize_t n = read(el->fds[i], buf, sizeof buf);
		if (n >= (ssize_t)((k + 1) * sizeof *buf))
			sum += buf[k];
	}
	return sum;
}

void lp_evlist_close(struct lp_evlist *el)
{
	for (size_t c = 0; el->rings && c < el->nr_cpus; c++)
		lp_ring_free(el->rings[c]);
	for (size_t i = 0; i < el->nr_fds; i++)
		if (el->fds[i] >= 0)
			close(el->fds[i]);
	free(el->rings);
	free(el->unsupported);
	free(el->fds);
	free(el->ids);
	free(el->cpus);
	free(el->attrs);
	memset(el, 0, sizeof *el);
}
