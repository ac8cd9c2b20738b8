/*
 * evpmu.c - PMU events and per-event terms (raw and cache events are in
 * evcache.c):
 *
 *   msr/tsc/, cpu/event=0x3c,umask=0x0/u
 *                                  a PMU from sysfs: its type, each term
 *                                  packed by its format/ file, or an alias
 *                                  from its events/ directory
 *   cpu-clock/period=1000/, sched:sched_switch/call-graph=fp/
 *                                  any event with perf's common terms
 *
 * Common terms: period=N, freq=N, call-graph=fp|dwarf|no, stack-size=N,
 * name=NAME, and config=, config1=, config2= (raw bits).  A term without a
 * value is 1, as in perf.  Modifiers follow the closing slash, with or
 * without a colon.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live/evparse.h"
#include "luaprof/err.h"
#include "luaprof/luaprof.h"
#include "luaprof/probe.h"

/* ---- terms ------------------------------------------------------------------------ */

struct terms {
	struct lp_event_spec *v;        /* the events the terms apply to */
	size_t n;
	const char *item;       /* for messages */
	const char *pmu;        /* NULL: common terms only */
	uint64_t config[4];
	bool set[3];            /* config, config1, config2 given or packed */
	char *name;             /* name= */
	int depth;              /* alias nesting */
};

static int parse_value(const char *v, uint64_t *out)
{
	char *end;
	errno = 0;
	*out = strtoull(v, &end, 0);
	return errno || end == v || *end || *v == '-' ? -EINVAL : 0;
}

static int term_error(const struct terms *t, const char *key, const char *why)
{
	char known[256];
	if (t->pmu && lp_pmu_terms(t->pmu, known, sizeof known))
		lp_err(-EINVAL, "%s term '%s' in '%s' (PMU '%s' has %s; and period=, freq=, "
		       "call-graph=, name=)", why, LP_SHOW(key), LP_SHOW(t->item), LP_SHOW(t->pmu),
		       known);
	else
		lp_err(-EINVAL, "%s term '%s' in '%s' (terms: period=N, freq=N, "
		       "call-graph=fp|dwarf|no, stack-size=N, name=NAME, config=N)", why,
		       LP_SHOW(key), LP_SHOW(t->item));
	return -EINVAL;
}

/* What each common term takes, for the message on a bad value. */
static const struct {
	const char *key, *takes;
} term_values[] = {
	{ "period", "an event count from 1 to 9223372036854775807, the kernel's range" },
	{ "freq", "a positive number of samples per second" },
	{ "stack-size", "a number of bytes of stack from 1 to 65528" },
	{ "call-graph", "fp, dwarf or no" },
	{ "name", "a name that is not empty" },
};

/* The message for a common term's bad value: what the term takes. */
static int value_error(const struct terms *t, const char *key, const char *val)
{
	for (size_t i = 0; i < sizeof term_values / sizeof term_values[0]; i++)
		if (!strcmp(key, term_values[i].key))
			return lp_err(-EINVAL, "a bad value for term '%s' in '%s': %s= takes %s "
				      "(got '%s')", key, LP_SHOW(t->item), key, term_values[i].takes,
				      LP_SHOW(val));
	return term_error(t, key, "a bad value for");
}

/* call-graph=fp|dwarf|no and stack-size=N on the events added. */
static int callgraph_term(const struct terms *t, const char *key, const char *val)
{
	struct lp_event_spec *v = t->v;
	size_t n = t->n;
	uint64_t size = LP_DWARF_STACK_DEFAULT;
	bool stack = !strcmp(key, "stack-size");
	if (stack && (parse_value(val, &size) || !size || size > LP_DWARF_STACK_MAX))
		return -EINVAL;
	if (!stack && strcmp(val, "fp") && strcmp(val, "dwarf") && strcmp(val, "no"))
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (stack) {
			v[i].dwarf_stack = (uint32_t)((size + 7) & ~7ull);
			continue;
		}
		v[i].callchain = strcmp(val, "no") != 0;
		if (!strcmp(val, "dwarf") && !v[i].dwarf_stack)
			v[i].dwarf_stack = LP_DWARF_STACK_DEFAULT;
		else if (strcmp(val, "dwarf"))
			v[i].dwarf_stack = 0;
	}
	return 0;
}

/* A term every event takes; 1 when key is none of them. */
static int common_term(struct terms *t, const char *key, const char *val)
{
	uint64_t x = 0;
	if (!strcmp(key, "call-graph") || !strcmp(key, "stack-size"))
		return callgraph_term(t, key, val);
	if (!strcmp(key, "name")) {
		free(t->name);
		return *val && (t->name = strdup(val)) ? 0 : -EINVAL;
	}
	bool period = !strcmp(key, "period"), freq = !strcmp(key, "freq");
	if (!period && !freq)
		return 1;
	/* the kernel refuses a period with the top bit set (EINVAL) */
	if (parse_value(val, &x) || !x || (period && x > LP_PERIOD_MAX))
		return -EINVAL;
	for (size_t i = 0; i < t->n; i++) {
		t->v[i].rate = LP_RATE_OWN;
		t->v[i].use_period = period;
		t->v[i].period = period ? x : 0;
		t->v[i].freq = freq ? x : 0;
	}
	return 0;
}

static int apply_terms(struct terms *t, const char *list);

/* config=, config1=, config2=, a PMU's format term or event alias. */
static int config_term(struct terms *t, const char *key, const char *val, bool has_val)
{
	uint64_t x = 1;
	if (has_val && parse_value(val, &x))
		return term_error(t, key, "a bad value for");
	if (!strncmp(key, "config", 6) && (!key[6] || (key[6] >= '1' && key[6] <= '2' && !key[7]))) {
		unsigned w = key[6] ? (unsigned)(key[6] - '0') : 0;
		t->config[w] = x;
		t->set[w] = true;
		return 0;
	}
	struct lp_pmu_format f;
	int rc = t->pmu ? lp_pmu_format(t->pmu, key, &f) : -ENOENT;
	if (!rc) {
		if (f.word > 2 || lp_pmu_format_pack(&f, x, t->config))
			return term_error(t, key, f.word > 2 ? "an unsupported (config3)" :
					  "a value too large for");
		t->set[f.word] = true;
		return 0;
	}
	char alias[256];
	if (rc == -ENOENT && t->pmu && !has_val && t->depth < 2 &&
	    !lp_pmu_alias(t->pmu, key, alias, sizeof alias)) {
		t->depth++;
		rc = apply_terms(t, alias);
		t->depth--;
		return rc;
	}
	return term_error(t, key, rc == -ENOENT ? "unknown" : "an unreadable format for");
}

/* Applies the comma-separated terms of list to the events of t. */
static int apply_terms(struct terms *t, const char *list)
{
	char buf[512];
	if (snprintf(buf, sizeof buf, "%s", list) >= (int)sizeof buf)
		return term_error(t, list, "too long a list of");
	for (char *save = NULL, *term = strtok_r(buf, ",", &save); term;
	     term = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(term, '=');
		if (eq)
			*eq = '\0';
		const char *val = eq ? eq + 1 : "1";
		int rc = common_term(t, term, val);
		if (rc < 0)
			return value_error(t, term, val);
		if (rc > 0 && (rc = config_term(t, term, val, eq != NULL)))
			return rc;
	}
	return 0;
}

/* ---- BASE/terms/mods -------------------------------------------------------------- */

/* Splits item into base, terms and modifiers (each a fresh string in
 * buf); false when it is not BASE/TERMS/[[:]MODS]. */
static bool split(const char *item, char *buf, size_t size, char **base, char **terms,
		  char **mods)
{
	if (snprintf(buf, size, "%s", item) >= (int)size)
		return false;
	char *a = strchr(buf, '/'), *b = a ? strrchr(a + 1, '/') : NULL;
	if (!a || !b || a == buf)
		return false;
	*a = *b = '\0';
	*base = buf;
	*terms = a + 1;
	*mods = b[1] == ':' ? b + 2 : b + 1;
	return !strchr(*terms, '/');
}

/* The events named by base (a PMU's, or base's own); 0 or -errno. */
static int add_base(struct lp_event_list *l, struct terms *t, const char *base)
{
	uint32_t type;
	int rc = lp_pmu_type(base, &type);
	struct lp_event_spec probe;
	bool named = lp_event_parse(base, &probe) == 0;
	lp_event_spec_free(&probe);
	if (rc || named)
		return lp_evparse_item(l, base);
	struct lp_event_spec *e = lp_evparse_push(l);
	if (!e)
		return lp_err(-ENOMEM, "out of memory");
	e->type = type;
	t->pmu = base;
	return 0;
}

static int finish(struct lp_event_list *l, size_t first, struct terms *t, const char *mods)
{
	for (size_t i = first; i < l->n; i++) {
		struct lp_event_spec *e = &l->v[i];
		if (t->set[0])
			e->config = t->config[0];
		if (t->set[1])
			e->config1 = t->config[1];
		if (t->set[2])
			e->config2 = t->config[2];
		if (*mods && (strlen(mods) > 8 || lp_event_modifiers(mods, e)))
			return lp_err(-EINVAL, "bad modifier in event '%s': use :u, :k, :p, :pp, :ppp or :P",
				      LP_SHOW(t->item));
		/* one name for what the list gave as one item */
		if (t->pmu || t->name || first + 1 == l->n) {
			if (lp_event_rename(e, t->name ? t->name : t->item))
				return lp_err(-ENOMEM, "out of memory");
		}
	}
	return 0;
}

int lp_evparse_terms(struct lp_event_list *l, const char *item)
{
	char buf[1024], *base, *list, *mods;
	if (!split(item, buf, sizeof buf, &base, &list, &mods))
		return lp_err(-EINVAL, "bad event '%s': terms are EVENT/term=value,.../ or "
			      "PMU/term=value,.../ (see 'luaprof list pmu')", LP_SHOW(item));
	struct terms t = { .item = item };
	size_t first = l->n;
	int rc = add_base(l, &t, base);
	if (rc == -ENOENT && !strchr(base, ':'))
		lp_err(rc, "unknown event or PMU '%s' in '%s': see 'luaprof list' and "
		       "'luaprof list pmu'", LP_SHOW(base), LP_SHOW(item));
	if (!rc) {
		t.v = &l->v[first];
		t.n = l->n - first;
		rc = apply_terms(&t, list);
	}
	if (!rc && t.pmu && !*list) {
		char known[256];
		lp_pmu_terms(t.pmu, known, sizeof known);
		lp_err(-EINVAL, "no terms in '%s': a PMU's event is %s/term=value,.../ "
		       "(its terms: %s)", LP_SHOW(item), LP_SHOW(t.pmu),
		       *known ? known : "config, config1, config2");
		rc = -EINVAL;
	}
	if (!rc)
		rc = finish(l, first, &t, mods);
	free(t.name);
	if (rc)
		lp_evparse_truncate(l, first);
	return rc;
}
