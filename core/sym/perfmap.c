/*
 * perfmap.c - the symbol files JIT compilers write for perf:
 * /tmp/perf-PID.map, one "START SIZE name" line per function (START and
 * SIZE hex, with or without 0x), appended to as code is generated (Node
 * --perf-basic-prof, JVM agents, LuaJIT, .NET, ...).  They name addresses
 * in the process's anonymous executable maps, as perf report reads them.
 *
 * One table per process (jitsyms.c: perf's tree of the lines, in their
 * order, overlaps and all), read when first needed; when an address is not
 * in it, the lines appended since (the file grew) are read and added, at
 * most once per PERFMAP_RECHECK_NS, so a busy unnamed region costs no
 * syscall per sample.  Lines that do not parse are skipped.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>

#include "luaprof/luaprof.h"
#include "sym/sym_int.h"
#include "util/grow.h"

#define PERFMAP_RECHECK_NS 10000000ull   /* 10 ms */

struct perfmap {
	uint32_t pid;
	char path[64];
	struct lp_jitsyms *syms;
	off_t read_to;                  /* bytes of the file read */
	uint64_t checked;               /* when the file was last looked at */
	bool refused;                   /* not a file to trust: never read */
};

struct lp_perfmaps {
	struct perfmap *maps;
	size_t nr, cap;
	struct perfmap *last;
};

int lp_perfmap_parse_line(const char *line, size_t len, uint64_t *start, uint64_t *size,
			  const char **name, size_t *name_len)
{
	char *end;
	const char *p = line, *stop = line + len;
	for (int field = 0; field < 2; field++) {
		while (p < stop && *p == ' ')
			p++;
		if (p >= stop || !((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') ||
				   (*p >= 'A' && *p <= 'F')))
			return -EINVAL;
		/* strtoull stops at the first non-hex: the line holds a space or
		 * the name after the number, never running past stop unchecked */
		char num[20];
		size_t n = 0;
		while (p < stop && n < sizeof num - 1 && *p != ' ')
			num[n++] = *p++;
		num[n] = '\0';
		if (p < stop && *p != ' ')
			return -EINVAL;         /* too long a number */
		errno = 0;
		uint64_t v = strtoull(num, &end, 16);
		if (errno || *end)
			return -EINVAL;
		*(field ? size : start) = v;
	}
	if (p >= stop || *p != ' ')
		return -EINVAL;
	p++;
	while (stop > p && (stop[-1] == '\n' || stop[-1] == '\r'))
		stop--;
	if (stop == p)
		return -EINVAL;
	*name = p;
	*name_len = (size_t)(stop - p);
	return 0;
}

struct lp_perfmaps *lp_perfmaps_new(void)
{
	return calloc(1, sizeof(struct lp_perfmaps));
}

void lp_perfmaps_free(struct lp_perfmaps *pm)
{
	if (!pm)
		return;
	for (size_t i = 0; i < pm->nr; i++)
		lp_jitsyms_free(pm->maps[i].syms);
	free(pm->maps);
	free(pm);
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int lp_perfmap_add_text(struct lp_jitsyms *t, const char *text, size_t len)
{
	const char *p = text, *stop = text + len;
	while (p < stop) {
		const char *nl = memchr(p, '\n', (size_t)(stop - p));
		const char *eol = nl ? nl : stop, *name;
		uint64_t start, size;
		size_t nlen;
		if (!lp_perfmap_parse_line(p, (size_t)(eol - p), &start, &size, &name, &nlen) &&
		    start + size >= start && lp_jitsyms_add(t, name, nlen, start, size) == -ENOMEM)
			return -ENOMEM;
		p = eol + (nl ? 1 : 0);
	}
	return 0;
}

/* Whether uid may have written the map of pid: root, the user luaprof
 * runs as, or the process's own user (the owner of /proc/PID, when the
 * process is still there). */
static bool trusted_owner(uid_t uid, uint32_t pid)
{
	char proc[32];
	struct stat st;
	if (uid == 0 || uid == geteuid())
		return true;
	snprintf(proc, sizeof proc, "/proc/%" PRIu32, pid);
	return !stat(proc, &st) && st.st_uid == uid;
}

/* m's file, opened for reading if it is one to trust: opened without
 * following a link or blocking (a FIFO planted there would hang the
 * run), a regular file, owned by a trusted user.  Anything else is
 * refused for good, with one line.  NULL when absent or refused. */
static FILE *open_map(struct perfmap *m, struct stat *st)
{
	int fd = open(m->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	const char *why = NULL;
	if (fd < 0) {
		if (errno == ELOOP)
			why = "a symbolic link";
	} else if (fstat(fd, st)) {
		why = "not readable";
	} else if (!S_ISREG(st->st_mode)) {
		why = "not a regular file";
	} else if (!trusted_owner(st->st_uid, m->pid)) {
		why = "owned by a user other than the process's, luaprof's or root";
	}
	if (why) {
		m->refused = true;
		lp_log(LP_WARN, "perfmap: %s is %s: ignored (its JIT symbols are not read)",
		       LP_SHOW(m->path), why);
	}
	FILE *f = fd >= 0 && !why ? fdopen(fd, "r") : NULL;
	if (!f && fd >= 0)
		close(fd);
	return f;
}

/* Reads the complete lines appended to m's file since the last read. */
static void read_more(struct perfmap *m)
{
	struct stat st;
	FILE *f = m->refused ? NULL : open_map(m, &st);
	m->checked = now_ns();
	if (!f)
		return;
	if (st.st_size <= m->read_to || fseeko(f, m->read_to, SEEK_SET)) {
		fclose(f);
		return;
	}
	size_t want = (size_t)(st.st_size - m->read_to);
	char *buf = want < (64u << 20) ? malloc(want) : NULL;
	size_t got = buf ? fread(buf, 1, want, f) : 0;
	fclose(f);
	const char *last_nl = got ? memrchr(buf, '\n', got) : NULL;
	if (last_nl) {          /* a line being written is read next time */
		size_t n = (size_t)(last_nl - buf) + 1;
		if (!lp_perfmap_add_text(m->syms, buf, n))
			m->read_to += (off_t)n;
	}
	free(buf);
}

/* The table of pid, made (empty) on first use; NULL on ENOMEM. */
static struct perfmap *perfmap_of(struct lp_perfmaps *pm, uint32_t pid)
{
	if (pm->last && pm->last->pid == pid)
		return pm->last;
	for (size_t i = 0; i < pm->nr; i++)
		if (pm->maps[i].pid == pid)
			return pm->last = &pm->maps[i];
	if (lp_grow(&pm->maps, &pm->cap, pm->nr, sizeof *pm->maps, 8, SIZE_MAX / 2))
		return NULL;
	struct perfmap *m = &pm->maps[pm->nr];
	*m = (struct perfmap){ .pid = pid };
	snprintf(m->path, sizeof m->path, "/tmp/perf-%" PRIu32 ".map", pid);
	if (!(m->syms = lp_jitsyms_new()))
		return NULL;
	pm->nr++;
	read_more(m);
	return pm->last = m;
}

const struct lp_sym *lp_perfmap_find(struct lp_perfmaps *pm, uint32_t pid, uint64_t addr,
				     const char **file)
{
	struct perfmap *m = perfmap_of(pm, pid);
	if (!m)
		return NULL;
	*file = m->path;
	const struct lp_sym *s = lp_jitsyms_find(m->syms, addr);
	if (!s && now_ns() - m->checked >= PERFMAP_RECHECK_NS) {
		read_more(m);
		s = lp_jitsyms_find(m->syms, addr);
	}
	return s;
}
