/*
 * tracefs.c - finding tracefs and reading events from it.
 *
 * tracefs is mounted at /sys/kernel/tracing (since Linux 4.1), or appears
 * at /sys/kernel/debug/tracing when debugfs is mounted; the first with an
 * events/ directory wins.  Each tracepoint is a directory
 * events/SYSTEM/EVENT holding its id and format.  The mount point is
 * looked for once per process.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "luaprof/trace.h"
#include "util/grow.h"

static const char *const mounts[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

const char *lp_tracefs_dir(void)
{
	static const char *dir;
	static int err;
	if (!dir && !err) {
		err = ENOENT;
		for (size_t i = 0; i < sizeof mounts / sizeof *mounts && !dir; i++) {
			char path[64];
			snprintf(path, sizeof path, "%s/events", mounts[i]);
			if (!access(path, R_OK | X_OK))
				dir = mounts[i];
			else if (errno == EACCES)
				err = EACCES;
		}
	}
	if (!dir)
		errno = err;
	return dir;
}

/* Reads all of fd into a NUL-terminated malloc'd buffer. */
static int read_all(int fd, char **out, size_t *len)
{
	size_t n = 0, cap = 4096;
	char *buf = malloc(cap);
	for (ssize_t k = 1; buf && k > 0;) {
		if (cap - n < 2) {
			char *b = cap < (256u << 20) ? realloc(buf, cap * 2) : NULL;
			if (!b)
				break;
			buf = b;
			cap *= 2;
		}
		k = read(fd, buf + n, cap - n - 1);
		if (k < 0) {
			int e = errno;
			free(buf);
			return -e;
		}
		n += (size_t)k;
		if (k == 0) {
			buf[n] = '\0';
			*out = buf;
			*len = n;
			return 0;
		}
	}
	free(buf);
	return -ENOMEM;
}

int lp_tracefs_read(const char *rel, char **out, size_t *len)
{
	const char *dir = lp_tracefs_dir();
	char path[512];
	if (!dir)
		return errno == EACCES ? -EACCES : -ENODEV;
	if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, rel) >= sizeof path)
		return -ENAMETOOLONG;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int rc = read_all(fd, out, len);
	close(fd);
	return rc;
}

/* A name that can be a path component of events/. */
static bool plain_name(const char *s)
{
	return *s && *s != '.' && !strchr(s, '/');
}

/* Reads events/SYSTEM/EVENT/FILE: 0, -ENOENT when there is no such
 * tracepoint, or lp_tracefs_read's error. */
static int read_event_file(const char *system, const char *event, const char *file,
			   char **text, size_t *len)
{
	char rel[320];
	if (!plain_name(system) || !plain_name(event))
		return -ENOENT;
	if ((size_t)snprintf(rel, sizeof rel, "events/%s/%s/%s", system, event, file) >= sizeof rel)
		return -ENOENT;
	int rc = lp_tracefs_read(rel, text, len);
	return rc == -ENOTDIR ? -ENOENT : rc;
}

int lp_tracefs_id(const char *system, const char *event, uint64_t *id)
{
	char *text, *end;
	size_t len;
	int rc = read_event_file(system, event, "id", &text, &len);
	if (rc)
		return rc;
	*id = strtoull(text, &end, 10);
	rc = end == text ? -EPROTO : 0;
	free(text);
	return rc;
}

int lp_tracefs_format(const char *system, const char *event, struct lp_tp_format **out)
{
	char *text;
	size_t len;
	int rc = read_event_file(system, event, "format", &text, &len);
	if (rc)
		return rc;
	rc = lp_tp_format_parse(text, len, system, out);
	free(text);
	return rc;
}

/* ---- walking events/ ------------------------------------------------------------ */

struct names {
	char **v;
	size_t n, cap;
};

static void names_free(struct names *ns)
{
	for (size_t i = 0; i < ns->n; i++)
		free(ns->v[i]);
	free(ns->v);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The subdirectories of dir matching glob, sorted.  A directory that is
 * not a tracepoint's (no id file) is left out when need_id. */
static int list_dirs(const char *dir, const char *glob, bool need_id, struct names *ns)
{
	DIR *d = opendir(dir);
	if (!d)
		return -errno;
	int rc = 0;
	for (struct dirent *de; !rc && (de = readdir(d));) {
		char sub[1024];
		if (de->d_name[0] == '.' || fnmatch(glob, de->d_name, 0))
			continue;
		snprintf(sub, sizeof sub, "%s/%s%s", dir, de->d_name, need_id ? "/id" : "");
		struct stat st;
		if (stat(sub, &st) || (!need_id && !S_ISDIR(st.st_mode)))
			continue;
		if (lp_grow(&ns->v, &ns->cap, ns->n, sizeof *ns->v, 16, SIZE_MAX) ||
		    !(ns->v[ns->n] = strdup(de->d_name)))
			rc = -ENOMEM;
		else
			ns->n++;
	}
	closedir(d);
	if (!rc && ns->n)       /* qsort takes no NULL array, even empty */
		qsort(ns->v, ns->n, sizeof *ns->v, cmp_names);
	return rc;
}

static int each_event(const char *sysdir, const char *system, const char *ev_glob,
		      int (*fn)(const char *, const char *, void *), void *arg)
{
	struct names evs = { 0 };
	int rc = list_dirs(sysdir, ev_glob, true, &evs);
	if (rc == -ENOENT || rc == -ENOTDIR)
		rc = 0;                 /* gone meanwhile */
	for (size_t i = 0; !rc && i < evs.n; i++)
		rc = fn(system, evs.v[i], arg);
	names_free(&evs);
	return rc;
}

int lp_tracefs_each(const char *sys_glob, const char *ev_glob,
		    int (*fn)(const char *system, const char *event, void *arg), void *arg)
{
	const char *dir = lp_tracefs_dir();
	char events[128], sysdir[1024];
	if (!dir)
		return errno == EACCES ? -EACCES : -ENODEV;
	snprintf(events, sizeof events, "%s/events", dir);
	struct names systems = { 0 };
	int rc = list_dirs(events, sys_glob, false, &systems);
	for (size_t i = 0; !rc && i < systems.n; i++) {
		snprintf(sysdir, sizeof sysdir, "%s/%s", events, systems.v[i]);
		rc = each_event(sysdir, systems.v[i], ev_glob, fn, arg);
	}
	names_free(&systems);
	return rc;
}
