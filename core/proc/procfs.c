/*
 * procfs.c - what a process that existed before the run looks like, read
 * once from /proc: the records perf record synthesizes for it (FORK, COMM
 * per thread, MMAP2 per executable map), handed to a callback so that one
 * scan can both seed the process model and be written to a recording.
 * From then on the kernel's records keep the model current.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "luaprof/proc.h"
#include "luaprof/record.h"

/* The longest name a synthesized COMM carries: perf's record holds 16
 * bytes with the terminating NUL, as the kernel's own COMM records do. */
#define COMM_MAX 15

struct scan {
	uint32_t pid, ppid;     /* the thread group and its parent */
	unsigned flags;
	lp_scan_fn fn;
	void *arg;
};

/* The command name of thread tid as perf record synthesizes it: the Name:
 * line of /proc/PID/task/TID/status (the kernel's escaped form: "\\" for a
 * backslash, "\n" for a newline; a workqueue worker's whole name, such as
 * kworker/1:0-events), cut to the 15 bytes a COMM record's name holds;
 * false when the thread is gone. */
static bool read_comm(pid_t pid, const char *tid, char *buf, size_t n)
{
	char path[320], line[256];
	snprintf(path, sizeof path, "/proc/%d/task/%s/status", (int)pid, tid);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	bool ok = false;
	while (!ok && fgets(line, sizeof line, f))
		ok = !strncmp(line, "Name:", 5);
	fclose(f);
	if (!ok || n == 0)
		return false;
	const char *name = line + 5;
	while (isspace((unsigned char)*name))
		name++;
	size_t len = strcspn(name, "\n");
	if (len > COMM_MAX)
		len = COMM_MAX;
	if (len >= n)
		len = n - 1;
	memcpy(buf, name, len);
	buf[len] = '\0';
	return true;
}

/* Tgid and PPid from /proc/PID/status. */
static int read_status(pid_t pid, struct scan *s)
{
	char path[64], line[256];
	unsigned long v;
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	s->pid = (uint32_t)pid;
	s->ppid = 0;
	while (fgets(line, sizeof line, f)) {
		if (sscanf(line, "Tgid: %lu", &v) == 1)
			s->pid = (uint32_t)v;
		else if (sscanf(line, "PPid: %lu", &v) == 1)
			s->ppid = (uint32_t)v;
	}
	fclose(f);
	return 0;
}

/* [FORK,] COMM for thread tid, as perf writes them: the main thread forked
 * from the parent process, the others from the main thread. */
static int emit_thread(const struct scan *s, uint32_t tid, const char *comm)
{
	struct lp_record r = { .type = PERF_RECORD_FORK, .misc = PERF_RECORD_MISC_FORK_EXEC };
	uint32_t parent = tid == s->pid ? s->ppid : s->pid;
	r.u.task = (struct lp_task){ .pid = s->pid, .ppid = parent, .tid = tid, .ptid = parent };
	int rc = (s->flags & LP_SCAN_FORK) ? s->fn(&r, s->arg) : 0;
	if (rc)
		return rc;
	r = (struct lp_record){ .type = PERF_RECORD_COMM };
	r.u.comm = (struct lp_comm){ .pid = s->pid, .tid = tid, .comm = comm };
	return s->fn(&r, s->arg);
}

/* One /proc/PID/maps line, "start-end perms offset maj:min inode   path",
 * as the MMAP2 the kernel would have written for it. */
static int parse_map_line(const char *line, struct lp_mmap *m, char perms[8])
{
	unsigned maj, min;
	int path_at = 0;
	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %x:%x %" SCNu64 " %n",
		   &m->start, &m->len, perms, &m->pgoff, &maj, &min, &m->ino, &path_at) < 7 ||
	    strlen(perms) != 4)
		return -EINVAL;
	m->len -= m->start;
	m->maj = maj;
	m->min = min;
	m->prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
		  (perms[2] == 'x' ? PROT_EXEC : 0);
	m->flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	m->filename = line[path_at] ? line + path_at : "//anon";   /* perf's name */
	return 0;
}

/* An MMAP2 for each executable map (only code matters for symbols). */
static int emit_maps(const struct scan *s)
{
	char path[64], line[4096 + 128], perms[8];
	snprintf(path, sizeof path, "/proc/%" PRIu32 "/maps", s->pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	int rc = 0;
	while (!rc && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		struct lp_record r = { .type = PERF_RECORD_MMAP2, .misc = PERF_RECORD_MISC_USER };
		struct lp_mmap *m = &r.u.mmap;
		if (parse_map_line(line, m, perms) || !(m->prot & PROT_EXEC))
			continue;
		m->pid = m->tid = s->pid;
		rc = s->fn(&r, s->arg);
	}
	fclose(f);
	return rc;
}

/* Every thread but the main one, in /proc's order; those that exited
 * meanwhile are skipped. */
static int emit_other_threads(const struct scan *s)
{
	char path[64], comm[64];
	snprintf(path, sizeof path, "/proc/%" PRIu32 "/task", s->pid);
	DIR *d = opendir(path);
	if (!d)
		return errno == ENOENT ? -ESRCH : -errno;
	struct dirent *de;
	int rc = 0;
	while (!rc && (de = readdir(d))) {
		uint32_t tid = (uint32_t)strtoul(de->d_name, NULL, 10);
		if (de->d_name[0] >= '1' && de->d_name[0] <= '9' && tid != s->pid &&
		    read_comm((pid_t)s->pid, de->d_name, comm, sizeof comm))
			rc = emit_thread(s, tid, comm);
	}
	closedir(d);
	return rc;
}

int lp_procfs_scan(pid_t pid, unsigned flags, lp_scan_fn fn, void *arg)
{
	struct scan s = { .flags = flags, .fn = fn, .arg = arg };
	char tid[16], comm[64];
	int rc = read_status(pid, &s);
	snprintf(tid, sizeof tid, "%" PRIu32, s.pid);
	if (!rc && !read_comm((pid_t)s.pid, tid, comm, sizeof comm))
		rc = -ESRCH;
	if (!rc)
		rc = emit_thread(&s, s.pid, comm);
	if (!rc && (flags & LP_SCAN_MAPS))
		rc = emit_maps(&s);
	if (!rc)
		rc = emit_other_threads(&s);
	return rc;
}

static int apply(const struct lp_record *r, void *ps)
{
	return lp_procs_apply(ps, r);
}

int lp_procs_synthesize(struct lp_procs *ps, pid_t pid, bool maps)
{
	return lp_procfs_scan(pid, maps ? LP_SCAN_MAPS : 0, apply, ps);
}
