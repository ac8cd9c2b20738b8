/*
 * fuzz_evparse.c - the -e syntax (lp_event_list_add) on any string: the
 * comma splitter with its {...} and /.../ rules, modifiers, tracepoint
 * names and globs (looked up in tracefs when it is readable, so runs as
 * root also walk real event directories).  Each call either adds events
 * whose names are read through, or fails with a one-line message and
 * leaves the list as it was.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cstr.h"
#include "luaprof/event.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size, 4096);
	if (!s)
		return 0;
	struct lp_event_list l = { 0 };
	char err[512];
	if (lp_event_list_add(&l, "cpu-clock", err, sizeof err) == 0) {
		size_t before = l.n;
		if (lp_event_list_add(&l, s, err, sizeof err) == 0) {
			for (size_t i = 0; i < l.n; i++)
				sink += strlen(l.v[i].name);
		} else if (l.n != before || !memchr(err, '\0', sizeof err) || strchr(err, '\n')) {
			abort();        /* a failure must leave the list and give one line */
		}
	}
	lp_event_list_free(&l);
	free(s);
	return 0;
}
