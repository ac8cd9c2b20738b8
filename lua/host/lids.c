/*
 * lids.c - who a sample's process is: s.uid, s.gid (its real user and
 * group ids, bpftrace's uid and gid), s.process_comm (its main thread's
 * name, beside s.comm, the thread's), s.cgroup and s.cgroup_path (its
 * cgroup v2 id, bpftrace's cgroup, and path).
 *
 * perf's samples carry no credentials.  A process's ids are read from
 * /proc/PID/status the first time a script asks for them, while it lives,
 * and kept for the run; an exec (a COMM record that says so) has them read
 * again at the next ask, since a setuid call before an exec (su, login)
 * then shows.  A process that has exited before the first ask has its
 * parent's, as a fork copied them (the FORK records say whose child it
 * is); without a live ancestor they are nil, and always replaying.  So a
 * process that changes its ids without an exec, after they were read,
 * keeps the ones read.
 *
 * The cgroup: the sample's own (PERF_SAMPLE_CGROUP, with --all-cgroups or
 * luaprof.setup's all_cgroups; a recording of perf record --all-cgroups)
 * when it has one, its path from the kernel's CGROUP records, else from a
 * walk of the cgroup2 mount for that id; without it, /proc/PID/cgroup's
 * "0::PATH" line, read and kept as the ids are (a process moved to another
 * cgroup later keeps its first), the id the inode of that directory.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <lauxlib.h>

#include "lclass.h"
#include "lp.h"
#include "luaprof/hmap.h"

/* What is known of one process. */
enum { ID_NONE, ID_READ, ID_STALE };
struct ident {
	uint32_t pid, ppid;     /* ppid 0: unknown */
	uint8_t ids, cg;        /* ID_*: the uid/gid, the cgroup */
	uint32_t uid, gid;
	uint64_t cgroup;
	char *cgroup_path;
};

struct lp_idents {
	struct lp_hmap *pids;   /* pid -> index in v */
	struct ident *v;
	size_t n, cap;
	struct lp_hmap *paths;  /* cgroup id -> index in names */
	char **names;
	size_t nr_names, cap_names;
	char mount[256];        /* the cgroup2 mount, "" before the first look */
	bool walked;            /* the mount was walked for ids */
};

/* The entry of pid, made when absent; NULL when out of memory. */
static struct ident *entry(struct lp_idents *ids, uint32_t pid)
{
	bool added = false;
	int64_t i = lp_hmap_find(ids->pids, &pid, sizeof pid, lp_hash(&pid, sizeof pid), true, &added);
	if (i < 0)
		return NULL;
	if (added) {
		if (ids->n == ids->cap) {
			size_t cap = ids->cap ? 2 * ids->cap : 256;
			struct ident *v = realloc(ids->v, cap * sizeof *v);
			if (!v)
				return NULL;
			ids->v = v;
			ids->cap = cap;
		}
		ids->v[ids->n++] = (struct ident){ .pid = pid };
	}
	return &ids->v[i];
}

static struct lp_idents *idents(struct lp_run *run)
{
	struct lp_idents *ids = run->idents;
	if (ids)
		return ids;
	if (!(ids = calloc(1, sizeof *ids)) || !(ids->pids = lp_hmap_new()) ||
	    !(ids->paths = lp_hmap_new())) {
		if (ids)
			lp_hmap_free(ids->pids);
		free(ids);
		return NULL;
	}
	return run->idents = ids;
}

void lp_idents_free(struct lp_run *run)
{
	struct lp_idents *ids = run->idents;
	if (!ids)
		return;
	for (size_t i = 0; i < ids->n; i++)
		free(ids->v[i].cgroup_path);
	for (size_t i = 0; i < ids->nr_names; i++)
		free(ids->names[i]);
	lp_hmap_free(ids->pids);
	lp_hmap_free(ids->paths);
	free(ids->v);
	free(ids->names);
	free(ids);
	run->idents = NULL;
}

/* ---- cgroup ids and paths ---- */

static int add_path(struct lp_idents *ids, uint64_t id, const char *path)
{
	bool added = false;
	int64_t i = lp_hmap_find(ids->paths, &id, sizeof id, lp_hash(&id, sizeof id), true, &added);
	if (i < 0)
		return -ENOMEM;
	if (!added)
		return 0;       /* the first name stays: the same numbering as the map's */
	if (ids->nr_names == ids->cap_names) {
		size_t cap = ids->cap_names ? 2 * ids->cap_names : 64;
		char **v = realloc(ids->names, cap * sizeof *v);
		if (!v)
			return -ENOMEM;
		ids->names = v;
		ids->cap_names = cap;
	}
	ids->names[ids->nr_names] = strdup(path);
	return ids->names[ids->nr_names++] ? 0 : -ENOMEM;
}

/* The cgroup2 mount point, looked for once; "" when there is none. */
static const char *cgroup2_mount(struct lp_idents *ids)
{
	if (*ids->mount)
		return ids->mount[0] == '-' ? "" : ids->mount;
	snprintf(ids->mount, sizeof ids->mount, "-");
	FILE *f = setmntent("/proc/self/mounts", "re");
	struct mntent *m;
	while (f && (m = getmntent(f)))
		if (!strcmp(m->mnt_type, "cgroup2")) {
			snprintf(ids->mount, sizeof ids->mount, "%s", m->mnt_dir);
			break;
		}
	if (f)
		endmntent(f);
	return ids->mount[0] == '-' ? "" : ids->mount;
}

/* Every cgroup under the mount, by its id (its directory's inode, what
 * the kernel's cgroup ids are on 64-bit machines), path relative to it. */
static void walk(struct lp_idents *ids, const char *dir, const char *rel, int depth)
{
	struct stat st;
	if (depth > 32 || stat(dir, &st))
		return;
	add_path(ids, (uint64_t)st.st_ino, *rel ? rel : "/");
	DIR *d = opendir(dir);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		char sub[4096], subrel[4096];
		if (de->d_type != DT_DIR || de->d_name[0] == '.' ||
		    snprintf(sub, sizeof sub, "%s/%s", dir, de->d_name) >= (int)sizeof sub ||
		    snprintf(subrel, sizeof subrel, "%s/%s", rel, de->d_name) >= (int)sizeof subrel)
			continue;
		walk(ids, sub, subrel, depth + 1);
	}
	if (d)
		closedir(d);
}

/* The path of cgroup id: a CGROUP record's, else found by walking the
 * mount (once per run, live); NULL when unknown. */
static const char *path_of(struct lp_idents *ids, bool live, uint64_t id)
{
	int64_t i = lp_hmap_find(ids->paths, &id, sizeof id, lp_hash(&id, sizeof id), false, NULL);
	if (i < 0 && live && !ids->walked && *cgroup2_mount(ids)) {
		ids->walked = true;
		walk(ids, ids->mount, "", 0);
		i = lp_hmap_find(ids->paths, &id, sizeof id, lp_hash(&id, sizeof id), false, NULL);
	}
	return i >= 0 && (size_t)i < ids->nr_names ? ids->names[i] : NULL;
}

/* ---- /proc ---- */

/* The real uid and gid of live process pid into e; false when gone. */
static bool read_ids(struct ident *e, uint32_t pid)
{
	char path[64], line[256];
	unsigned uid = 0, gid = 0;
	int found = 0;
	snprintf(path, sizeof path, "/proc/%u/status", pid);
	FILE *f = fopen(path, "re");
	while (f && found < 2 && fgets(line, sizeof line, f)) {
		found += sscanf(line, "Uid: %u", &uid) == 1;
		found += sscanf(line, "Gid: %u", &gid) == 1;
	}
	if (f)
		fclose(f);
	if (found < 2)
		return false;
	e->uid = uid;
	e->gid = gid;
	e->ids = ID_READ;
	return true;
}

/* The cgroup v2 path of live process pid (its "0::" line) and its id into
 * e; false when gone. */
static bool read_cgroup(struct lp_idents *ids, struct ident *e, uint32_t pid)
{
	char path[64], line[4096 + 8];
	bool ok = false;
	snprintf(path, sizeof path, "/proc/%u/cgroup", pid);
	FILE *f = fopen(path, "re");
	while (f && !ok && fgets(line, sizeof line, f))
		ok = !strncmp(line, "0::", 3);
	if (f)
		fclose(f);
	if (!ok)
		return false;
	line[strcspn(line, "\n")] = '\0';
	char dir[4096 + 300];
	struct stat st;
	const char *mnt = cgroup2_mount(ids);
	snprintf(dir, sizeof dir, "%s%s", mnt, line + 3);
	free(e->cgroup_path);
	e->cgroup_path = strdup(line + 3);
	e->cgroup = *mnt && !stat(dir, &st) ? (uint64_t)st.st_ino : 0;
	e->cg = e->cgroup_path ? ID_READ : ID_NONE;
	return e->cgroup_path != NULL;
}

/* ---- records ---- */

int lp_idents_record(struct lp_run *run, const struct lp_record *rec)
{
	struct lp_idents *ids;
	struct ident *e;
	if (rec->type != PERF_RECORD_FORK && rec->type != PERF_RECORD_CGROUP &&
	    !(rec->type == PERF_RECORD_COMM && rec->u.comm.exec))
		return 0;
	if (!(ids = idents(run)))
		return -ENOMEM;
	switch (rec->type) {
	case PERF_RECORD_CGROUP:
		return add_path(ids, rec->u.cgroup.id, rec->u.cgroup.path);
	case PERF_RECORD_COMM:          /* an exec: read again at the next ask */
		if (!(e = entry(ids, rec->u.comm.pid)))
			return -ENOMEM;
		e->ids = e->ids ? ID_STALE : ID_NONE;
		e->cg = e->cg ? ID_STALE : ID_NONE;
		return 0;
	default:                /* a new process (a pid reused: all new) */
		if (rec->u.task.pid == rec->u.task.ppid)
			return 0;       /* a thread */
		if (!(e = entry(ids, rec->u.task.pid)))
			return -ENOMEM;
		free(e->cgroup_path);
		*e = (struct ident){ .pid = rec->u.task.pid, .ppid = rec->u.task.ppid };
		return 0;
	}
}

/* The entry of pid with its ids known (read now, or its ancestors'), or
 * with e->ids ID_NONE when they cannot be had. */
static struct ident *with_ids(struct lp_idents *ids, bool live, uint32_t pid, int depth)
{
	struct ident *e = entry(ids, pid);
	if (!e || e->ids == ID_READ)
		return e;
	if (live && read_ids(e, pid))
		return e;
	if (e->ids == ID_STALE || !e->ppid || depth > 16)
		return e;       /* the ids before the exec, or none */
	uint32_t ppid = e->ppid;
	struct ident *p = with_ids(ids, live, ppid, depth + 1);
	e = entry(ids, pid);    /* the array may have moved */
	if (p && e && p->ids != ID_NONE) {
		e->uid = entry(ids, ppid)->uid;
		e->gid = entry(ids, ppid)->gid;
		e->ids = ID_STALE;      /* inherited: read when it lives */
	}
	return e;
}

/* The same for the cgroup (read from /proc only: its ancestors' is no
 * guide, systemd moves new processes). */
static struct ident *with_cgroup(struct lp_idents *ids, bool live, uint32_t pid)
{
	struct ident *e = entry(ids, pid);
	if (e && e->cg != ID_READ && live)
		read_cgroup(ids, e, pid);
	return e;
}

/* ---- the fields ---- */

void lp_idents_push(lua_State *L, struct lp_run *run, enum lp_ident which)
{
	const struct lp_sample *s = &run->view.rec->u.sample;
	struct lp_idents *ids = idents(run);
	struct ident *e;
	if (!ids)
		lp_nomem(L);
	bool from_sample = run->view.sample_type & PERF_SAMPLE_CGROUP;
	switch (which) {
	case LP_IDENT_UID:
	case LP_IDENT_GID:
		e = with_ids(ids, run->live.on, s->pid, 0);
		if (!e || e->ids == ID_NONE)
			lua_pushnil(L);
		else
			lua_pushinteger(L, which == LP_IDENT_UID ? e->uid : e->gid);
		return;
	case LP_IDENT_CGROUP:
		if (from_sample) {
			lua_pushinteger(L, (lua_Integer)s->cgroup);
			return;
		}
		e = with_cgroup(ids, run->live.on, s->pid);
		if (!e || e->cg == ID_NONE || !e->cgroup)
			lua_pushnil(L);
		else
			lua_pushinteger(L, (lua_Integer)e->cgroup);
		return;
	default: {
		const char *path = NULL;
		if (from_sample)
			path = path_of(ids, run->live.on, s->cgroup);
		else if ((e = with_cgroup(ids, run->live.on, s->pid)) && e->cg != ID_NONE)
			path = e->cgroup_path;
		path ? (void)lua_pushstring(L, path) : lua_pushnil(L);
		return;
	}
	}
}
