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
	int n = read_online_cpus(&el->cpus);
	if (n < 0)
		return n;
	el->nr_cpus = (size_t)n;
	el->rings = calloc(el->nr_cpus, sizeof *el->rings);
	el->attrs = calloc(nr, sizeof *el->attrs);
	return el->rings && el->attrs ? 0 : -ENOMEM;
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
	if (ioctl(fd, PERF_EVENT_IOC_ID, &id) || ids_put(el, id, event)) {
		close(fd);
		return -EIO;
	}
	if (lp_grow(&el->fds, &el->cap_fds, el->nr_fds, sizeof *el->fds, 16, SIZE_MAX)) {
		close(fd);
		return -ENOMEM;
	}
	el->fds[el->nr_fds++] = fd;
	return 0;
}

static void open_error(const struct lp_evlist *el, size_t e, int cpu, pid_t tid, int rc,
		       char *err, size_t errsz)
{
	const struct lp_event_spec *ev = &el->events[e];
	bool tp = ev->type == PERF_TYPE_TRACEPOINT;
	char hint[320] = "";
	if (tp && (rc == -EACCES || rc == -EPERM))
		snprintf(hint, sizeof hint, ": not allowed; a tracepoint's data needs root (or "
			 "CAP_PERFMON, or kernel.perf_event_paranoid=-1; it is %d)",
			 lp_event_paranoid());
	else if (rc == -ENOENT || rc == -EOPNOTSUPP || rc == -ENODEV)
		snprintf(hint, sizeof hint, "%s", tp ? ": this kernel does not offer it for sampling"
			 : ": not supported on this machine (no hardware PMU?); try -e cpu-clock");
	else if (rc == -EACCES || rc == -EPERM)
		lp_access_hint(ev, tid, hint, sizeof hint);
	else if (rc == -EMFILE)
		snprintf(hint, sizeof hint, " (a run needs one per event and CPU, more with -p); "
			 "raise the hard limit (ulimit -Hn, as root)");
	snprintf(err, errsz, "cannot open event '%s' on cpu %d: %s%s", ev->name, cpu,
		 strerror(-rc), hint);
}

static void filter_error(const struct lp_event_spec *ev, int rc, char *err, size_t errsz)
{
	snprintf(err, errsz, "the kernel rejects the filter '%s' on '%s': %s (its fields: "
		 "luaprof list --fields %s)", ev->filter, ev->name, strerror(-rc), ev->name);
	lp_one_line(err);
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

/* Opens event e for tid on cpu c with its filter set: the fd or -errno
 * (err set, but not for ESRCH). */
static int open_one(struct lp_evlist *el, size_t e, pid_t tid, size_t c, char *err, size_t errsz)
{
	struct lp_sampling s = el->sampling;
	s.tracking = (e == 0);
	int fd = lp_event_open(&el->events[e], &s, tid, el->cpus[c], &el->fallbacks);
	if (fd == -EMFILE && raise_nofile())
		fd = lp_event_open(&el->events[e], &s, tid, el->cpus[c], &el->fallbacks);
	if (fd == -ESRCH)
		return fd;
	if (fd < 0) {
		open_error(el, e, el->cpus[c], tid, fd, err, errsz);
		return fd;
	}
	int rc = lp_event_set_filter(fd, &el->events[e]);
	if (rc) {
		close(fd);
		filter_error(&el->events[e], rc, err, errsz);
		return rc;
	}
	return fd;
}

/* Closes the fds opened after the first `keep`. */
static void drop_fds(struct lp_evlist *el, size_t keep)
{
	while (el->nr_fds > keep)
		close(el->fds[--el->nr_fds]);
}

int lp_evlist_open_task(struct lp_evlist *el, pid_t tid, char *err, size_t errsz)
{
	size_t first = el->nr_fds;
	for (size_t c = 0; c < el->nr_cpus; c++) {
		for (size_t e = 0; e < el->nr_events; e++) {
			int fd = open_one(el, e, tid, c, err, errsz);
			if (fd == -ESRCH) {
				drop_fds(el, first);    /* the thread has gone meanwhile */
				return 0;
			}
			if (fd < 0)
				return fd;
			lp_event_attr(&el->events[e], &el->sampling, &el->attrs[e]);
			int rc = add_fd(el, fd, (uint32_t)e);
			if (rc) {
				snprintf(err, errsz, "cannot read the id of event '%s'", el->events[e].name);
				return rc;
			}
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

int lp_evlist_mmap(struct lp_evlist *el, size_t pages, bool exact, char *err, size_t errsz)
{
	size_t want = pages;
	int rc;
	while ((rc = map_rings(el, pages)) == -EPERM || rc == -ENOMEM) {
		unmap_rings(el);
		if (exact || pages <= 8)
			break;
		pages /= 2;
	}
	if (rc == -EPERM)
		snprintf(err, errsz, "cannot map %zu ring pages per CPU (%zu KiB on each of %zu CPUs): "
			 "more than kernel.perf_event_mlock_kb (%ld KiB) and 'ulimit -l' let this user "
			 "lock; use a smaller -m, or raise them (sysctl kernel.perf_event_mlock_kb=N)",
			 pages, pages * (size_t)getpagesize() / 1024, el->nr_cpus, mlock_kb());
	else if (rc)
		snprintf(err, errsz, "cannot map %zu ring pages per CPU: %s; use a smaller -m",
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
	snprintf(err, errsz, "cannot share the ring buffers between events: %s", strerror(-rc));
	return rc;
}

void lp_evlist_enable(struct lp_evlist *el, int on)
{
	for (size_t i = 0; i < el->nr_fds; i++)
		ioctl(el->fds[i], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
}

void lp_evlist_close(struct lp_evlist *el)
{
	for (size_t c = 0; el->rings && c < el->nr_cpus; c++)
		lp_ring_free(el->rings[c]);
	for (size_t i = 0; i < el->nr_fds; i++)
		close(el->fds[i]);
	free(el->rings);
	free(el->fds);
	free(el->ids);
	free(el->cpus);
	free(el->attrs);
	memset(el, 0, sizeof *el);
}
