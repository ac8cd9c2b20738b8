/*
 * evparse.c - the -e syntax: a comma-separated list of events, each a name
 * of the fixed table with modifiers ("cs:u", see event.c), a raw or cache
 * event (evcache.c), a PMU event or an event with terms (evpmu.c), a probe
 * or watchpoint (evprobe.c), a tracepoint SYSTEM:EVENT, where a glob in
 * either part ("syscalls:sys_enter_*") stands for every tracepoint it
 * matches, in name order (evitem.c), or a group of those,
 * "{cpu-clock,page-faults}:u".
 *
 * The files follow the grammar, each calling only the ones below it:
 *   evparse.c  list := item,...   item := {member,...}[:mods] | member
 *   evpmu.c    member := BASE/terms/[mods], BASE a PMU or a plain member
 *   evitem.c   plain member := named | raw | cache | probe | SYSTEM:EVENT
 *   evcache.c (raw, cache), evprobe.c: the forms
 *   evspecs.c  the list of specs they append to
 *
 * Splitting: a comma ends an item except inside {...} (groups) and inside
 * /.../ term lists ("cpu/event=0x3c,umask=0/"): a '/' right after a name
 * character opens one, unless the item is one of the forms that take a
 * path (lp_evparse_is_probe), whose slashes are the path's.  New forms of
 * items go into lp_evparse_item, before the tracepoint form that takes any
 * name with a colon.
 */
#include <errno.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live/evparse.h"
#include "luaprof/err.h"
#include "luaprof/event.h"
#include "luaprof/luaprof.h"

/* ---- the list --------------------------------------------------------------------- */

/* The length of the item at s: up to a comma outside {} and term lists. */
static size_t item_len(const char *s)
{
	int depth = 0;
	bool terms = false, paths = lp_evparse_is_probe(s);
	const char *p = s;
	for (; *p && (*p != ',' || depth || terms); p++) {
		if (*p == '{')
			depth++;
		else if (*p == '}' && depth)
			depth--;
		else if (*p == '/' && !paths && (terms || (p > s && (isalnum((unsigned char)p[-1]) ||
								    p[-1] == '_' || p[-1] == '-'))))
			terms = !terms;
	}
	return (size_t)(p - s);
}

/* One item of a list or group: terms go to evpmu.c, the rest by form. */
static int add_plain(struct lp_event_list *l, const char *item)
{
	if (!lp_evparse_is_probe(item) && strchr(item, '/'))
		return lp_evparse_terms(l, item);
	return lp_evparse_item(l, item);
}

/* Calls fn on each item of the comma-separated str; an empty item or a
 * failure stops it. */
static int each_item(struct lp_event_list *l, const char *str, const char *whole,
		     int (*fn)(struct lp_event_list *, const char *))
{
	int rc = 0;
	for (const char *s = str; !rc; s++) {
		size_t n = item_len(s);
		char *item = strndup(s, n);
		if (!item)
			rc = lp_err(-ENOMEM, "out of memory");
		else if (!n)
			rc = lp_err(-EINVAL, "empty event name in '%s'", LP_SHOW(whole));
		else
			rc = fn(l, item);
		free(item);
		s += n;
		if (!*s)
			break;
	}
	return rc;
}

/* ---- groups ------------------------------------------------------------------------- */

static int group_error(const char *item, const char *why)
{
	return lp_err(-EINVAL, "malformed group '%s': %s (a group is {EVENT,EVENT,...}, "
		      "such as {cpu-clock,page-faults}:u)", LP_SHOW(item), why);
}

/* Appends mods (without S) to a member's name, as perf names them. */
static int name_with_mods(struct lp_event_spec *e, const char *mods)
{
	char *name;
	bool has = (e->type == PERF_TYPE_HARDWARE || e->type == PERF_TYPE_SOFTWARE ||
		    e->type == PERF_TYPE_HW_CACHE || e->type == PERF_TYPE_RAW) && strchr(e->name, ':');
	if (asprintf(&name, "%s%s%s", e->name, has ? "" : ":", mods) < 0)
		return -ENOMEM;
	free(e->name);
	e->name = name;
	return 0;
}

/* The group's modifiers on each member: u, k, p, P as an event's, S for
 * leader sampling. */
static int group_mods(struct lp_event_list *l, size_t first, const char *mods, const char *item)
{
	char plain[16];
	size_t n = 0;
	bool S = false;
	for (const char *m = mods; *m; m++) {
		if (*m == 'S')
			S = true;
		else if (n + 1 < sizeof plain)
			plain[n++] = *m;
		else
			return group_error(item, "too many modifiers");
	}
	plain[n] = '\0';
	for (size_t i = first; i < l->n; i++) {
		l->v[i].leader_sample = S;
		if (n && lp_event_modifiers(plain, &l->v[i]))
			return group_error(item, "unknown modifier after '}': use :u, :k, :p, :P or :S");
		if (n && name_with_mods(&l->v[i], plain))
			return lp_err(-ENOMEM, "out of memory");
	}
	return 0;
}

static int add_group(struct lp_event_list *l, const char *item)
{
	const char *close = strrchr(item, '}');
	if (!close)
		return group_error(item, "no closing '}'");
	const char *mods = close[1] == ':' ? close + 2 : close + 1;
	if ((close[1] && close[1] != ':') || (close[1] == ':' && !*mods))
		return group_error(item, "only modifiers (:u, :k, :S) may follow '}'");
	char *inner = strndup(item + 1, (size_t)(close - item - 1));
	if (!inner)
		return lp_err(-ENOMEM, "out of memory");
	size_t first = l->n;
	int rc = strpbrk(inner, "{}") ? group_error(item, "groups do not nest") :
		 !*inner ? group_error(item, "it is empty") :
		 each_item(l, inner, item, add_plain);
	free(inner);
	if (!rc)
		rc = group_mods(l, first, mods, item);
	uint32_t number = 1;
	for (size_t i = 0; i < first; i++)
		if (l->v[i].group >= number)
			number = l->v[i].group + 1;
	for (size_t i = first; !rc && i < l->n; i++) {
		l->v[i].group = number;
		l->v[i].group_leader = i == first;
	}
	return rc;
}

static int add_any(struct lp_event_list *l, const char *item)
{
	if (*item == '{')
		return add_group(l, item);
	if (strchr(item, '}') && !lp_evparse_is_probe(item))
		return group_error(item, "'}' without '{'");
	return add_plain(l, item);
}

int lp_event_list_add(struct lp_event_list *l, const char *str)
{
	size_t before = l->n, len = strlen(str);
	if (len > LP_EVENT_STR_MAX)
		return lp_err(-E2BIG, "an event string is longer than the %d bytes luaprof takes: '%s'",
			      LP_EVENT_STR_MAX, LP_SHOW(str));
	int rc = each_item(l, str, str, add_any);
	if (rc)
		lp_evparse_truncate(l, before);
	return rc;
}

int lp_event_list_add_default(struct lp_event_list *l)
{
	struct lp_event_spec *e = lp_evparse_push(l);
	if (!e)
		return -ENOMEM;
	int rc = lp_event_default(e);
	if (rc)
		l->n--;
	return rc;
}
