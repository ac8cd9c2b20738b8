/*
 * consts.c - the kernel's named constants that a tracepoint's fields hold:
 * signal numbers (sys_enter_kill's sig, signal_generate's), open flags
 * (sys_enter_openat's flags), task states (sched_switch's prev_state) and
 * error numbers, so that a script names them rather than hard-code 0x100.
 *
 * Signals and open flags are generated when luaprof is built from the
 * kernel's headers as this system has them (<asm/signal.h>, <asm/fcntl.h>:
 * see the Makefile's rules for $(BUILD)/gen/signals.h and oflags.h), error
 * numbers from <errno.h> (errnos.h, syscalls.c's).  Task states are no
 * header's: the letters and bits sched_switch's format prints them with
 * (its print fmt's __print_flags of prev_state) are read from tracefs,
 * else those of Linux 4.14 on (S D T t X Z P I, and the bit above them,
 * TASK_REPORT_MAX, for a task preempted while runnable).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <asm/fcntl.h>

#include "luaprof/trace.h"

struct entry {
	const char *name;
	long long value;
};

static const struct entry signals[] = {
#include "signals.h"
};

static const struct entry oflags[] = {
#include "oflags.h"
};

static const struct entry errnos[] = {
#include "errnos.h"
};

#define N(t) (sizeof t / sizeof t[0])

const char *lp_signal_name(int nr)
{
	for (size_t i = 0; i < N(signals); i++)
		if (signals[i].value == nr)
			return signals[i].name;
	return NULL;
}

/* Bits set in v. */
static int bits(unsigned long long v)
{
	return __builtin_popcountll(v);
}

/* Appends "|name" (or name first) at *n in buf. */
static void append(char *buf, size_t size, size_t *n, const char *name)
{
	int w = snprintf(buf + *n, *n < size ? size - *n : 0, "%s%s", *n ? "|" : "", name);
	if (w > 0)
		*n += (size_t)w;
}

size_t lp_open_flags_str(unsigned long long flags, char *buf, size_t size)
{
	size_t n = 0;
	unsigned long long rest = flags & ~(unsigned long long)O_ACCMODE;
	const char *mode = (flags & O_ACCMODE) == O_RDONLY ? "O_RDONLY" :
			   (flags & O_ACCMODE) == O_WRONLY ? "O_WRONLY" :
			   (flags & O_ACCMODE) == O_RDWR ? "O_RDWR" : "O_ACCMODE";
	if (size)
		buf[0] = '\0';
	append(buf, size, &n, mode);
	/* the flags of several bits first (O_SYNC holds O_DSYNC's, O_TMPFILE
	 * O_DIRECTORY's), then one a bit, in the bits' order */
	for (int want = 8; want >= 1; want--)
		for (size_t i = 0; i < N(oflags); i++) {
			unsigned long long v = (unsigned long long)oflags[i].value;
			if (v & O_ACCMODE || !v || bits(v) != want || (rest & v) != v)
				continue;
			append(buf, size, &n, oflags[i].name);
			rest &= ~v;
		}
	if (rest) {
		char hex[24];
		snprintf(hex, sizeof hex, "0x%llx", rest);
		append(buf, size, &n, hex);
	}
	return n;
}

/* ---- task states ---- */

static const struct lp_task_states default_states = {
	.nr = 8, .preempted = 0x100,
	.flag = { { 0x1, 'S' }, { 0x2, 'D' }, { 0x4, 'T' }, { 0x8, 't' }, { 0x10, 'X' },
		  { 0x20, 'Z' }, { 0x40, 'P' }, { 0x80, 'I' } },
};

/* The { 0xN, "L" } pairs of the __print_flags of prev_state in text (a
 * sched_switch format); false when they are not there as expected. */
static bool parse_states(const char *text, struct lp_task_states *ts)
{
	const char *p = strstr(text, "__print_flags(REC->prev_state");
	unsigned long long top = 0;
	if (!p)
		return false;
	const char *end = strstr(p, ": \"R\"");      /* the pairs end before */
	if (!end)
		end = p + strlen(p);
	ts->nr = 0;
	for (const char *q = p; (q = strstr(q, "{ 0x")) && q < end && ts->nr < LP_TASK_STATES_MAX;) {
		char *after;
		unsigned long long v = strtoull(q + 2, &after, 16);
		const char *quote = strchr(after, '"');
		if (!quote || quote > end || !v || (v & (v - 1)) || quote[2] != '"')
			return false;
		ts->flag[ts->nr].bit = v;
		ts->flag[ts->nr].letter = quote[1];
		ts->nr++;
		if (v > top)
			top = v;
		q = quote + 3;
	}
	ts->preempted = top << 1;
	return ts->nr > 0;
}

void lp_task_states_load(struct lp_task_states *ts)
{
	char *text;
	size_t len;
	*ts = default_states;
	if (lp_tracefs_read("events/sched/sched_switch/format", &text, &len))
		return;
	if (!parse_states(text, ts))
		*ts = default_states;
	free(text);
}

size_t lp_task_state_str(const struct lp_task_states *ts, unsigned long long state, char *buf,
			 size_t size)
{
	size_t n = 0;
	if (size)
		buf[0] = '\0';
	unsigned long long set = state & (ts->preempted - 1);
	if (!set) {
		append(buf, size, &n, state & ts->preempted ? "R+" : "R");
		return n;
	}
	for (size_t i = 0; i < ts->nr; i++)
		if (set & ts->flag[i].bit) {
			char l[2] = { ts->flag[i].letter, '\0' };
			append(buf, size, &n, l);
			set &= ~ts->flag[i].bit;
		}
	if (set) {
		char hex[24];
		snprintf(hex, sizeof hex, "0x%llx", set);
		append(buf, size, &n, hex);
	}
	return n;
}

/* ---- every constant by name ---- */

static const struct entry *const tables[] = { errnos, signals, oflags };
static const size_t sizes[] = { N(errnos), N(signals), N(oflags) };

const char *lp_const_at(size_t i, long long *value)
{
	for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) {
		if (i < sizes[t]) {
			*value = tables[t][i].value;
			return tables[t][i].name;
		}
		i -= sizes[t];
	}
	return NULL;
}
