/*
 * evdyn.c - probes made tracefs uprobe events: those whose string
 * arguments the kernel copies, and every one whose events are inherited.
 *
 * A uprobe opened through the uprobe PMU (evprobe.c) samples registers
 * only: a string argument is a pointer, read from the process later, when
 * a short-lived process has gone.  tracefs's uprobe_events makes a probe
 * that copies it at the hit, into the sample's raw data:
 *
 *   p:luaprof_PID/eN /usr/lib/x86_64-linux-gnu/libc.so.6:0x4f6b0 s0=+0(%di):ustring
 *   r:luaprof_PID/eN /bin/bash:0xbce00 s6=+0($retval):ustring
 *
 * which is then an event of tracefs (events/luaprof_PID/eN, with an id and
 * a format) opened as a tracepoint, its user registers still sampled
 * (s.args, s.retval).  The group is luaprof's pid, so that runs side by
 * side do not meet; a run removes its probes when it closes its events,
 * after an error or a signal too (the run's end closes them), and probes
 * left by a luaprof that was killed (kill -9, a crash) are removed by the
 * next run that places any.  Where tracefs cannot take a probe (not
 * mounted, not root), the probe stays a PMU uprobe, with one line saying
 * its strings will be read from the process.
 *
 * An inherited event (a run of a command, or of -p processes: the
 * threads and processes they start are followed) cannot be a PMU uprobe:
 * the PMU's path is a pointer into luaprof's memory (config1), which the
 * kernel reads again whenever it copies the event, at each fork and
 * pthread_create of a target (inherit_event, perf_uprobe_init's
 * strndup_user), in the forking process, where nothing (or something
 * else) is at that address: the fork fails with EFAULT.  A tracefs event
 * is opened by its id, with no pointer to copy, so every uprobe, uretprobe
 * and USDT probe of such a run is placed there, a USDT semaphore as
 * PATH:OFFSET(REF_CTR_OFFSET).  One that tracefs refuses is opened through
 * the PMU without inherit (no_inherit): on the threads the run opens it
 * on, not on those they start, which the caller says in one line.  Runs
 * of every CPU (-a) inherit nothing and keep the PMU.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "live/evlist.h"
#include "luaprof/luaprof.h"
#include "luaprof/probe.h"
#include "luaprof/trace.h"

#define GROUP_PREFIX "luaprof_"

/* The fetch argument of bit i: the six argument registers, the return
 * value. */
static const char *const fetch_from[7] = { "%di", "%si", "%dx", "%cx", "%r8", "%r9", "$retval" };

/* Writes line to tracefs's uprobe_events (appending).  0 or -errno. */
static int write_events(const char *line)
{
	const char *dir = lp_tracefs_dir();
	char path[256];
	if (!dir)
		return -errno;
	snprintf(path, sizeof path, "%s/uprobe_events", dir);
	int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t n = strlen(line);
	int rc = write(fd, line, n) == (ssize_t)n ? 0 : -errno;
	close(fd);
	return rc;
}

/* Whether the luaprof of group luaprof_PID is gone: no process PID, or one
 * that is not a luaprof (the pid reused). */
static bool group_stale(const char *group)
{
	char *end, path[64], comm[32] = "";
	long pid = strtol(group + strlen(GROUP_PREFIX), &end, 10);
	if (end == group + strlen(GROUP_PREFIX) || *end || pid <= 0)
		return false;   /* not ours */
	if (pid == getpid())
		return false;
	if (kill((pid_t)pid, 0) && errno == ESRCH)
		return true;
	snprintf(path, sizeof path, "/proc/%ld/comm", pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	bool stale = fgets(comm, sizeof comm, f) && strncmp(comm, "luaprof", 7);
	fclose(f);
	return stale;
}

/* Removes the probes of luaprof runs that are gone, once per process. */
static void remove_stale(void)
{
	static bool done;
	char *text;
	size_t len;
	if (done || lp_tracefs_read("uprobe_events", &text, &len))
		return;
	done = true;
	for (char *line = text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		char group[64], event[64], cmd[160];
		/* "p:GROUP/EVENT /path:0x..." or "r:..." */
		if ((line[0] != 'p' && line[0] != 'r') || line[1] != ':' ||
		    sscanf(line + 2, "%63[^/]/%63s", group, event) != 2 ||
		    strncmp(group, GROUP_PREFIX, strlen(GROUP_PREFIX)) || !group_stale(group))
			continue;
		snprintf(cmd, sizeof cmd, "-:%s/%s\n", group, event);
		if (write_events(cmd))
			lp_log(LP_DEBUG, "uprobe_events: cannot remove %s/%s", group, event);
	}
	free(text);
}

/* The probe definition of e as event group/name into buf; false when
 * its path cannot be written there (whitespace in it). */
static bool definition(const struct lp_event_spec *e, const char *group, const char *name,
		       char *buf, size_t size)
{
	if (!e->probe_str || strpbrk(e->probe_str, " \t\n"))
		return false;
	int n = snprintf(buf, size, "%c:%s/%s %s:0x%llx", e->probe == LP_PROBE_URETPROBE ? 'r' : 'p',
			 group, name, e->probe_str, (unsigned long long)e->config2);
	if (e->probe == LP_PROBE_USDT && e->usdt && e->usdt->sema && n > 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, "(0x%llx)",
			      (unsigned long long)e->usdt->sema_offset);
	for (unsigned i = 0; i < 7 && n > 0 && (size_t)n < size; i++) {
		if (!(e->fetch & (1u << i)))
			continue;
		if (e->call_capture && i < 6)
			n += snprintf(buf + n, size - (size_t)n, " a%u=%s:u64", i, fetch_from[i]);
		if (n > 0 && (size_t)n < size)
			n += snprintf(buf + n, size - (size_t)n, " s%u=+0(%s):ustring", i, fetch_from[i]);
	}
	unsigned a = e->fetch_argv ? e->fetch_argv - 1u : 0;
	if (e->fetch_argv && !(e->fetch & (1u << a)) && n > 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, " a%u=%s:u64", a, fetch_from[a]);
	for (unsigned i = 0; e->fetch_argv && i < LP_FETCH_ARGV && n > 0 && (size_t)n < size; i++) {
		const char *r = fetch_from[e->fetch_argv - 1];
		n += snprintf(buf + n, size - (size_t)n, " q%u=+%u(%s):u64 v%u=+0(+%u(%s)):ustring", i,
			      8 * i, r, i, 8 * i, r);
	}
	if (n > 0 && (size_t)n + 1 < size)
		buf[n++] = '\n', buf[n] = '\0';
	return n > 0 && (size_t)n < size;
}

/* Places probe e (index idx) as a tracefs event and makes e that event.
 * 0 or -errno (e unchanged, the probe removed again). */
static int place(struct lp_event_spec *e, size_t idx)
{
	char group[32], name[32], def[4096 + 512], sysname[80];
	struct lp_tp_format *f = NULL;
	snprintf(group, sizeof group, GROUP_PREFIX "%d", (int)getpid());
	snprintf(name, sizeof name, "%c%zu", e->call_capture ? 'c' : 'e', idx);
	if (!definition(e, group, name, def, sizeof def))
		return -EINVAL;
	int rc = write_events(def);
	if (!rc)
		rc = lp_tracefs_format(group, name, &f);
	uint16_t off[7] = { 0 }, addr[6] = { 0 };
	for (unsigned i = 0; !rc && i < 7; i++) {
		char field[8];
		const struct lp_tp_field *fl;
		snprintf(field, sizeof field, "s%u", i);
		if (!(e->fetch & (1u << i)))
			continue;
		if (!(fl = lp_tp_field_find(f, field)) || !fl->dyn || fl->offset > UINT16_MAX)
			rc = -EPROTO;
		else
			off[i] = (uint16_t)fl->offset;
		snprintf(field, sizeof field, "a%u", i);
		if (rc || !e->call_capture || i >= 6)
			continue;
		if (!(fl = lp_tp_field_find(f, field)) || fl->size != 8 || fl->offset > UINT16_MAX)
			rc = -EPROTO;
		else
			addr[i] = (uint16_t)fl->offset;
	}
	if (!rc && e->fetch_argv) {
		char a[8];
		const struct lp_tp_field *fa;
		snprintf(a, sizeof a, "a%u", e->fetch_argv - 1u);
		if (!(fa = lp_tp_field_find(f, a)) || fa->size != 8 || fa->offset > UINT16_MAX)
			rc = -EPROTO;
		else
			addr[e->fetch_argv - 1] = (uint16_t)fa->offset;
	}
	for (unsigned i = 0; !rc && e->fetch_argv && i < LP_FETCH_ARGV; i++) {
		char q[8], v[8];
		const struct lp_tp_field *fq, *fv;
		snprintf(q, sizeof q, "q%u", i);
		snprintf(v, sizeof v, "v%u", i);
		if (!(fq = lp_tp_field_find(f, q)) || !(fv = lp_tp_field_find(f, v)) || !fv->dyn ||
		    fq->size != 8 || fq->offset > UINT16_MAX || fv->offset > UINT16_MAX)
			rc = -EPROTO;
		else
			e->argv_ptr_off[i] = (uint16_t)fq->offset, e->argv_off[i] = (uint16_t)fv->offset;
	}
	snprintf(sysname, sizeof sysname, "%s:%s", group, name);
	if (!rc && !(e->dyn_event = strdup(sysname)))
		rc = -ENOMEM;
	if (rc) {
		char undo[80];
		snprintf(undo, sizeof undo, "-:%s/%s\n", group, name);
		write_events(undo);
		lp_tp_format_free(f);
		return rc;
	}
	e->pmu_type = e->type;
	e->pmu_config = e->config;
	e->type = PERF_TYPE_TRACEPOINT;
	e->config = f->id;
	e->config1 = 0;
	/* the strings are in the raw data; a probe without them has only the
	 * probed address there, and its samples are then the PMU's */
	if (e->fetch || e->fetch_argv)
		e->sample_type |= PERF_SAMPLE_RAW;
	memcpy(e->fetch_off, off, sizeof off);
	memcpy(e->fetch_addr, addr, sizeof addr);
	lp_tp_format_free(f);
	return 0;
}

/* Whether e is to be a tracefs event: a probe whose strings the kernel
 * copies, or any with inherited events, not placed yet. */
static bool wanted(const struct lp_event_spec *e, bool inherited)
{
	if (e->dyn_event || (e->probe != LP_PROBE_UPROBE && e->probe != LP_PROBE_URETPROBE &&
			     e->probe != LP_PROBE_USDT))
		return false;
	return e->fetch || e->fetch_argv || inherited;
}

int lp_evdyn_place(struct lp_event_spec *v, size_t n, bool inherited)
{
	bool cleaned = false;
	int first = 0;
	for (size_t i = 0; i < n; i++) {
		struct lp_event_spec *e = &v[i];
		if (!wanted(e, inherited))
			continue;
		if (!cleaned)
			remove_stale();
		cleaned = true;
		int rc = place(e, i);
		if (rc && !e->call_capture && (e->fetch || e->fetch_argv))
			lp_log(LP_WARN, "cannot have the kernel copy the strings of '%s' (tracefs "
			       "uprobe_events: %s): they are read from the process instead", e->name,
			       rc == -EINVAL ? "its path has a space" : strerror(-rc));
		if (rc) {
			e->fetch = 0;
			e->fetch_argv = 0;
			e->no_inherit = inherited;
			if (!first)
				first = rc;
		}
	}
	return first;
}

void lp_evdyn_remove(struct lp_event_spec *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char cmd[96], *colon;
		if (!v[i].dyn_event || !(colon = strchr(v[i].dyn_event, ':')))
			continue;
		snprintf(cmd, sizeof cmd, "-:%.*s/%s\n", (int)(colon - v[i].dyn_event), v[i].dyn_event,
			 colon + 1);
		int rc = write_events(cmd);
		if (rc)
			lp_log(LP_WARN, "cannot remove the probe %s from tracefs's uprobe_events: %s",
			       v[i].dyn_event, strerror(-rc));
	}
}
