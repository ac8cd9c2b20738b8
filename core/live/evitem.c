/*
 * evitem.c - one plain item of the -e syntax (no terms, no group): a name
 * of the fixed table with modifiers (event.c), a raw or cache event
 * (evcache.c), a probe or watchpoint (evprobe.c), or a tracepoint
 * SYSTEM:EVENT, where a glob in either part ("syscalls:sys_enter_*") stands
 * for every tracepoint it matches, in name order.  New forms of items go
 * into lp_evparse_item, before the tracepoint form that takes any name with
 * a colon.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live/evparse.h"
#include "luaprof/err.h"
#include "luaprof/event.h"
#include "luaprof/luaprof.h"
#include "luaprof/trace.h"

static const char mount_hint[] = "mount it with 'mount -t tracefs nodev /sys/kernel/tracing'";

/* ---- tracepoints ------------------------------------------------------------------ */

struct tp_add {
	struct lp_event_list *l;
	int err;                /* first failure of lp_tracefs_id */
	char failed[320];       /* the tracepoint it failed on */
};

static int add_tracepoint(const char *system, const char *event, void *arg)
{
	struct tp_add *ta = arg;
	uint64_t id;
	int rc = lp_tracefs_id(system, event, &id);
	if (rc) {
		snprintf(ta->failed, sizeof ta->failed, "%s:%s", system, event);
		return ta->err = rc;
	}
	struct lp_event_spec *e = lp_evparse_push(ta->l);
	if (!e || asprintf(&e->name, "%s:%s", system, event) < 0) {
		if (e)
			ta->l->n--;
		return ta->err = -ENOMEM;
	}
	e->type = PERF_TYPE_TRACEPOINT;
	e->config = id;
	e->rate = LP_RATE_DEFAULT;      /* every hit, as perf, unless -F or -c */
	e->use_period = true;
	e->period = 1;
	e->sample_type = PERF_SAMPLE_RAW;
	return 0;
}

static bool has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* A '[' without its ']' (fnmatch would take it as a plain character). */
static bool bad_glob(const char *s)
{
	for (const char *p = s; (p = strchr(p, '['));)
		if (!(p = strchr(p + 1 + (p[1] == ']'), ']')))
			return true;
	return false;
}

static int tracefs_error(int rc, const char *name)
{
	const char *dir = lp_tracefs_dir();
	if (rc == -ENODEV)
		lp_err(rc, "tracefs is not mounted (needed for tracepoint '%s'): %s",
		       LP_SHOW(name), mount_hint);
	else if (rc == -EACCES || rc == -EPERM)
		lp_err(rc, "cannot read tracepoint '%s' in %s: permission denied "
		       "(tracefs is root's: run as root, or 'mount -o remount,mode=755 %s')",
		       LP_SHOW(name), dir ? dir : "tracefs", dir ? dir : "/sys/kernel/tracing");
	else if (rc == -ENOMEM)
		lp_err(rc, "out of memory");
	else
		lp_err(rc, "cannot read tracepoint '%s': %s", LP_SHOW(name),
		       strerror(-rc));
	return rc;
}

static int parse_tracepoint(struct lp_event_list *l, const char *item)
{
	char sys[256], ev[256];
	const char *colon = strchr(item, ':');
	size_t n = (size_t)(colon - item);
	if (!n || n >= sizeof sys || !colon[1] || strlen(colon + 1) >= sizeof ev ||
	    strchr(colon + 1, ':') || strchr(item, '/'))
		return lp_err(-EINVAL, "bad event '%s': a tracepoint is SYSTEM:EVENT, such as "
			      "sched:sched_switch (see 'luaprof list')", LP_SHOW(item));
	memcpy(sys, item, n);
	sys[n] = '\0';
	snprintf(ev, sizeof ev, "%s", colon + 1);
	if (bad_glob(sys) || bad_glob(ev))
		return lp_err(-EINVAL, "bad glob '%s': a '[' has no closing ']'", LP_SHOW(item));
	struct tp_add ta = { .l = l };
	size_t before = l->n;
	int rc = has_glob(item) ? lp_tracefs_each(sys, ev, add_tracepoint, &ta)
				: add_tracepoint(sys, ev, &ta);
	if (rc == -ENOENT && !has_glob(item))
		return lp_err(rc, "unknown tracepoint '%s': no such event in %s/events "
			      "(see 'luaprof list %s:*')", LP_SHOW(item), lp_tracefs_dir(),
			      LP_SHOW(sys));
	if (rc)
		return tracefs_error(rc, *ta.failed ? ta.failed : item);
	if (l->n == before)
		return lp_err(-ENOENT, "no tracepoint matches '%s' (see 'luaprof list %s:*')",
			      LP_SHOW(item), LP_SHOW(sys));
	return 0;
}

/* ---- one item -------------------------------------------------------------------- */

int lp_evparse_item(struct lp_event_list *l, const char *item)
{
	if (lp_evparse_is_probe(item))
		return lp_evparse_probe(l, item);
	struct lp_event_spec *e = lp_evparse_push(l);
	if (!e)
		return lp_err(-ENOMEM, "out of memory");
	int rc = lp_event_parse(item, e);
	if (rc != -ENOENT) {
		if (rc)
			l->n--;
		if (rc == -EINVAL)
			lp_err(rc, "bad modifier in event '%s': use :u, :k, :p, :pp, :ppp "
			       "or :P", LP_SHOW(item));
		else if (rc)
			lp_err(rc, "out of memory");
		return rc;
	}
	l->n--;
	if ((rc = lp_evparse_raw_cache(l, item)) <= 0)
		return rc;
	if (strchr(item, ':'))
		return parse_tracepoint(l, item);
	return lp_err(-ENOENT, "unknown event '%s': see 'luaprof list' (cpu-clock, page-faults, "
		      "sched:sched_switch, ...)", LP_SHOW(item));
}

bool lp_evparse_is_probe(const char *item)
{
	static const char *const forms[] = { "uprobe:", "uretprobe:", "usdt:", "mem:", "kprobe:",
					     "kretprobe:" };
	for (size_t i = 0; i < sizeof forms / sizeof *forms; i++)
		if (!strncmp(item, forms[i], strlen(forms[i])))
			return true;
	return false;
}
