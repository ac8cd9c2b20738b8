/*
 * tdata.c - perf's TRACING_DATA: the tracefs files a recording carries so
 * that its tracepoint samples decode as they were recorded (perf's
 * trace-event-info.c writes it, trace-event-read.c reads it).  Sizes are in
 * the recording's byte order (only little-endian is read here):
 *
 *   u8[3] {23, 8, 68}, "tracing", version string ("0.6") with its NUL
 *   u8 big_endian, u8 sizeof(long), u32 page_size
 *   "header_page\0", u64 size, events/header_page
 *   "header_event\0", u64 size, events/header_event
 *   u32 nr, nr x { u64 size, format }            the events/ftrace formats
 *   u32 nr_systems, nr_systems x { system name with its NUL, u32 nr,
 *                                  nr x { u64 size, format } }
 *   u32 size, kallsyms (perf writes 0 bytes)
 *   u32 size, printk_formats
 *   u64 size, saved_cmdlines                     (version 0.6 and later)
 *
 * Every size is checked against the bytes left before it is used.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "luaprof/trace.h"

static const uint8_t magic[10] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

/* ---- reading -------------------------------------------------------------------- */

struct tcur {
	const uint8_t *p, *end;
};

static int take(struct tcur *c, uint64_t n, const uint8_t **out)
{
	if (n > (uint64_t)(c->end - c->p))
		return -EPROTO;
	*out = c->p;
	c->p += n;
	return 0;
}

static int get_u32(struct tcur *c, uint32_t *v)
{
	const uint8_t *p;
	if (take(c, 4, &p))
		return -EPROTO;
	memcpy(v, p, 4);
	return 0;
}

static int get_u64(struct tcur *c, uint64_t *v)
{
	const uint8_t *p;
	if (take(c, 8, &p))
		return -EPROTO;
	memcpy(v, p, 8);
	return 0;
}

/* A NUL-terminated string inside the data. */
static int get_string(struct tcur *c, const char **s)
{
	const uint8_t *nul = memchr(c->p, 0, (size_t)(c->end - c->p));
	if (!nul)
		return -EPROTO;
	*s = (const char *)c->p;
	c->p = nul + 1;
	return 0;
}

/* A u32 or u64 size, then that many bytes skipped. */
static int skip_sized(struct tcur *c, int width)
{
	const uint8_t *p;
	uint64_t n;
	uint32_t n32;
	if (width == 4 ? get_u32(c, &n32) : get_u64(c, &n))
		return -EPROTO;
	if (width == 4)
		n = n32;
	return take(c, n, &p);
}

/* A tag such as "header_page" with its NUL, then a u64-sized file. */
static int skip_tagged(struct tcur *c, const char *tag)
{
	const uint8_t *p;
	if (take(c, strlen(tag) + 1, &p) || memcmp(p, tag, strlen(tag) + 1))
		return -EPROTO;
	return skip_sized(c, 8);
}

/* nr formats of system, each u64 size + text; one that does not parse is
 * left out, as perf does. */
static int read_formats(struct tcur *c, const char *system, struct lp_tp_set *set)
{
	uint32_t nr;
	if (get_u32(c, &nr) || nr > (size_t)(c->end - c->p) / 8)
		return -EPROTO;
	for (uint32_t i = 0; i < nr; i++) {
		uint64_t n;
		const uint8_t *text;
		struct lp_tp_format *f;
		if (get_u64(c, &n) || take(c, n, &text))
			return -EPROTO;
		int rc = lp_tp_format_parse((const char *)text, (size_t)n, system, &f);
		if (rc == -ENOMEM || (!rc && lp_tp_set_add(set, f)))
			return -ENOMEM;
	}
	return 0;
}

static int read_head(struct tcur *c, double *version)
{
	const uint8_t *p;
	const char *v;
	uint32_t page;
	const uint16_t one = 1;
	const bool host_big = *(const uint8_t *)&one == 0;
	if (take(c, sizeof magic, &p) || memcmp(p, magic, sizeof magic) || get_string(c, &v))
		return -EPROTO;
	*version = strtod(v, NULL);
	if (take(c, 2, &p) || p[0] != host_big || get_u32(c, &page) || !page)
		return -EPROTO;
	return 0;
}

int lp_tdata_parse(const void *data, size_t len, struct lp_tp_set *set)
{
	struct tcur c = { data, (const uint8_t *)data + len };
	double version;
	uint32_t nr_sys;
	int rc = read_head(&c, &version);
	if (!rc)
		rc = skip_tagged(&c, "header_page") || skip_tagged(&c, "header_event") ? -EPROTO : 0;
	if (!rc)
		rc = read_formats(&c, "ftrace", set);
	if (!rc && (get_u32(&c, &nr_sys) || nr_sys > (size_t)(c.end - c.p) / 5))
		rc = -EPROTO;
	for (uint32_t i = 0; !rc && i < nr_sys; i++) {
		const char *system;
		rc = get_string(&c, &system) ? -EPROTO : read_formats(&c, system, set);
	}
	if (!rc && (skip_sized(&c, 4) || skip_sized(&c, 4)))
		rc = -EPROTO;           /* kallsyms, printk_formats */
	if (!rc && version >= 0.6 && skip_sized(&c, 8))
		rc = -EPROTO;           /* saved_cmdlines */
	return rc;
}

/* ---- building --------------------------------------------------------------------- */

struct obuf {
	uint8_t *p;
	size_t n, cap;
	int err;
};

static void put(struct obuf *b, const void *data, size_t n)
{
	if (b->err)
		return;
	if (n > b->cap - b->n) {
		size_t cap = b->cap ? b->cap : 65536;
		while (cap - b->n < n)
			cap *= 2;
		uint8_t *p = realloc(b->p, cap);
		if (!p) {
			b->err = -ENOMEM;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, data, n);
	b->n += n;
}

/* The tracefs file rel preceded by its size in width (4 or 8) bytes; a
 * missing file is written as 0 bytes when optional, else an error. */
static void put_file(struct obuf *b, const char *rel, int width, bool optional)
{
	char *text = NULL;
	size_t len = 0;
	int rc = lp_tracefs_read(rel, &text, &len);
	if (rc && !(optional && rc != -ENODEV)) {
		if (!b->err)
			b->err = rc;
		return;
	}
	uint64_t n64 = len;
	uint32_t n32 = (uint32_t)len;
	put(b, width == 4 ? (const void *)&n32 : (const void *)&n64, (size_t)width);
	put(b, text, len);
	free(text);
}

static void put_head(struct obuf *b)
{
	const uint16_t one = 1;
	uint8_t flags[2] = { *(const uint8_t *)&one == 0, sizeof(long) };
	uint32_t page = (uint32_t)sysconf(_SC_PAGESIZE);
	put(b, magic, sizeof magic);
	put(b, "0.6", 4);
	put(b, flags, 2);
	put(b, &page, 4);
	put(b, "header_page", 12);
	put_file(b, "events/header_page", 8, false);
	put(b, "header_event", 13);
	put_file(b, "events/header_event", 8, false);
}

/* The length of the system part of "system:event". */
static size_t sys_len(const char *name)
{
	const char *colon = strchr(name, ':');
	return colon ? (size_t)(colon - name) : strlen(name);
}

static bool same_system(const char *a, const char *b)
{
	return sys_len(a) == sys_len(b) && !strncmp(a, b, sys_len(a));
}

/* True when names[i] repeats an earlier name (dup_event) or an earlier
 * name's system. */
static bool seen(const char *const *names, size_t i, bool dup_event)
{
	for (size_t k = 0; k < i; k++)
		if (dup_event ? !strcmp(names[k], names[i]) : same_system(names[k], names[i]))
			return true;
	return false;
}

/* The formats of the distinct events of names[first]'s system. */
static void put_system(struct obuf *b, const char *const *names, size_t nr, size_t first)
{
	uint32_t count = 0;
	for (size_t i = first; i < nr; i++)
		count += same_system(names[i], names[first]) && !seen(names, i, true);
	put(b, &count, 4);
	for (size_t i = first; i < nr; i++) {
		char rel[384];
		if (!same_system(names[i], names[first]) || seen(names, i, true))
			continue;
		snprintf(rel, sizeof rel, "events/%.*s/%s/format", (int)sys_len(names[i]), names[i],
			 names[i] + sys_len(names[i]) + (names[i][sys_len(names[i])] ? 1 : 0));
		put_file(b, rel, 8, false);
	}
}

int lp_tdata_build(const char *const *names, size_t nr, void **out, size_t *len)
{
	struct obuf b = { 0 };
	uint32_t nr_sys = 0, zero = 0;
	size_t ftrace = nr;
	put_head(&b);
	for (size_t i = 0; i < nr; i++) {
		bool is_ftrace = sys_len(names[i]) == 6 && !strncmp(names[i], "ftrace", 6);
		if (is_ftrace && ftrace == nr)
			ftrace = i;
		nr_sys += !is_ftrace && !seen(names, i, false);
	}
	if (ftrace < nr)
		put_system(&b, names, nr, ftrace);
	else
		put(&b, &zero, 4);
	put(&b, &nr_sys, 4);
	for (size_t i = 0; i < nr; i++) {
		if (seen(names, i, false) || (sys_len(names[i]) == 6 && !strncmp(names[i], "ftrace", 6)))
			continue;
		put(&b, names[i], sys_len(names[i]));
		put(&b, "", 1);
		put_system(&b, names, nr, i);
	}
	put(&b, &zero, 4);              /* kallsyms: none, as perf writes */
	put_file(&b, "printk_formats", 4, true);
	put_file(&b, "saved_cmdlines", 8, true);
	if (b.err) {
		free(b.p);
		return b.err;
	}
	*out = b.p;
	*len = b.n;
	return 0;
}
