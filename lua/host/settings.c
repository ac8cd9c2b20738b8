/*
 * settings.c - changes to the run's settings that both the command line
 * and the script's luaprof.setup make.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "settings.h"
#include "luaprof/err.h"
#include "luaprof/luaprof.h"

int lp_settings_u64(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-')
		return -1;
	*out = v;
	return 0;
}

int lp_cli_call_graph(struct lp_sampling *s, const char *mode, char *err, size_t size)
{
	uint64_t v = LP_DWARF_STACK_DEFAULT;
	if (!strcmp(mode, "fp")) {
		s->callchain = true;
		s->dwarf_stack = 0;
		return 0;
	}
	if (strncmp(mode, "dwarf", 5) || (mode[5] && mode[5] != ',') ||
	    (mode[5] == ',' && (lp_settings_u64(mode + 6, &v) || v == 0 || v > LP_DWARF_STACK_MAX))) {
		snprintf(err, size, "unknown call graph mode '%s': use fp, dwarf, or dwarf,SIZE "
			 "with SIZE 1 to %u bytes of stack (rounded up to 8)", LP_SHOW(mode),
			 LP_DWARF_STACK_MAX);
		return -1;
	}
	s->callchain = true;
	s->dwarf_stack = (uint32_t)((v + 7) & ~7ull);   /* perf rounds up to 8 */
	return 0;
}

int lp_cli_add_events(struct lp_cli *cli, const char *list, char *err, size_t size)
{
	size_t first = cli->events.n;
	if (lp_event_list_add(&cli->events, list)) {
		snprintf(err, size, "%s", lp_last_error());
		return -1;
	}
	cli->last_e = first;
	cli->user_events = true;
	return 0;
}

int lp_cli_add_filter(struct lp_event_spec *e, const char *expr)
{
	char *f;
	if (e->filter ? asprintf(&f, "(%s) && (%s)", e->filter, expr) < 0 : !(f = strdup(expr)))
		return -ENOMEM;
	free(e->filter);
	e->filter = f;
	return 0;
}
