/*
 * procfs.c - seeding the process model from /proc for processes that existed
 * before the run (-p, -a): their threads, command names and maps.  This is
 * read once at start; from then on records keep the model current.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "luaprof/proc.h"
#include "luaprof/record.h"

static void read_comm(pid_t pid, const char *tid, char *buf, size_t n)
{
	char path[320];
	snprintf(path, sizeof path, "/proc/%d/task/%s/comm", (int)pid, tid);
	FILE *f = fopen(path, "re");
	buf[0] = '\0';
	if (f) {
		if (fgets(buf, (int)n, f))
			buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
}

static int seed_threads(struct lp_procs *ps, pid_t pid)
{
	char path[64], comm[64];
	snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return errno == ENOENT ? -ESRCH : -errno;
	struct dirent *de;
	int rc = 0;
	while (!rc && (de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		read_comm(pid, de->d_name, comm, sizeof comm);
		struct lp_record r = { .type = PERF_RECORD_COMM };
		r.u.comm = (struct lp_comm){ .pid = (uint32_t)pid,
			.tid = (uint32_t)strtoul(de->d_name, NULL, 10), .comm = comm };
		rc = lp_procs_apply(ps, &r);
	}
	closedir(d);
	return rc;
}

/* One /proc/PID/maps line: "start-end perms offset maj:min inode   path". */
static int parse_map_line(const char *line, struct lp_mmap *m, char *perms)
{
	unsigned maj, min;
	int path_at = 0;
	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %x:%x %" SCNu64 " %n",
		   &m->start, &m->len, perms, &m->pgoff, &maj, &min, &m->ino, &path_at) < 7)
		return -EINVAL;
	m->len -= m->start;
	m->maj = maj;
	m->min = min;
	m->filename = line + path_at;
	return 0;
}

static int seed_maps(struct lp_procs *ps, pid_t pid)
{
	char path[64], line[4096 + 128], perms[8];
	snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	int rc = 0;
	while (!rc && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		struct lp_record r = { .type = PERF_RECORD_MMAP2 };
		struct lp_mmap *m = &r.u.mmap;
		if (parse_map_line(line, m, perms) || perms[2] != 'x')
			continue;       /* only code matters for symbols */
		m->pid = m->tid = (uint32_t)pid;
		m->prot = 4;            /* PROT_EXEC */
		rc = lp_procs_apply(ps, &r);
	}
	fclose(f);
	return rc;
}

int lp_procs_synthesize(struct lp_procs *ps, pid_t pid, bool maps)
{
	int rc = seed_threads(ps, pid);
	if (!rc && maps)
		rc = seed_maps(ps, pid);
	return rc;
}
