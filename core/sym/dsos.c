/*
 * dsos.c - the object cache: each object, keyed by (path, maj, min, ino),
 * is opened and its symbols read once per run however many processes map
 * it.  A failure is cached too (dso NULL), so a missing file costs one open.
 *
 * Paths that are not files are never opened: anonymous and special maps
 * ("", "//anon", "[heap]", "[stack]", "[anon:...]", ...), devices, SysV
 * shared memory and anything "(deleted)" (perf does not look for the
 * original either).  "[vdso]" is read from this process's own vDSO image,
 * found with getauxval(AT_SYSINFO_EHDR): every process of a native ABI gets
 * the same one from the kernel; its key ignores maj/min/ino.
 *
 * Replaying a recording, the build-ids it gives by path
 * (lp_dsos_expect_build_id) decide which file an object is read from
 * (lp_dso_open_recorded: perf's build-id cache, or the path only when its
 * build-id matches); objects without one are opened by path.  Either way
 * the choice is made once, when the object is first needed.  A live
 * process in another mount namespace (a container) has its files read
 * through /proc/PID/root when its map's path is not the mapped file here.
 *
 * The entries live in the generic table (htab.c), keyed by pointers to
 * their (path, maj, min, ino) keys.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "luaprof/luaprof.h"
#include "luaprof/proc.h"
#include "sym/sym_int.h"
#include "util/htab.h"

struct dsos_key {
	const char *path;
	uint64_t ino;
	uint32_t maj, min;
};

struct dsos_ent {
	struct dsos_key k;      /* k.path is path */
	struct lp_dso *dso;     /* NULL: could not be opened, or not a file */
	char path[];
};

struct lp_dsos {
	struct lp_htab *ents;           /* struct dsos_key * -> struct dsos_ent * */
	struct lp_bidtab *want;         /* recorded build-ids; NULL in live runs */
};

static const struct dsos_key *key_of(uint64_t k)
{
	return (const struct dsos_key *)(uintptr_t)k;
}

static uint64_t key_hash(uint64_t key, void *ctx)
{
	const struct dsos_key *k = key_of(key);
	uint64_t h = 0xcbf29ce484222325ull;     /* FNV-1a, then the numbers */

	(void)ctx;
	for (const unsigned char *p = (const unsigned char *)k->path; *p; p++)
		h = (h ^ *p) * 0x100000001b3ull;
	h ^= ((uint64_t)k->maj << 32 | k->min) * 0x9e3779b97f4a7c15ull;
	h ^= k->ino * 0xc2b2ae3d27d4eb4full;
	return h ^ (h >> 29);
}

static bool key_equal(uint64_t k1, uint64_t k2, void *ctx)
{
	const struct dsos_key *a = key_of(k1), *b = key_of(k2);

	(void)ctx;
	return a->ino == b->ino && a->maj == b->maj && a->min == b->min &&
	       !strcmp(a->path, b->path);
}

struct lp_dsos *lp_dsos_new(void)
{
	struct lp_dsos *c = calloc(1, sizeof *c);

	if (!c || !(c->ents = lp_htab_new(key_hash, key_equal, NULL))) {
		free(c);
		errno = ENOMEM;
		return NULL;
	}
	return c;
}

void lp_dsos_free(struct lp_dsos *c)
{
	const struct lp_htab_ent *he;

	if (!c)
		return;
	for (size_t it = 0; (he = lp_htab_next(c->ents, &it));) {
		struct dsos_ent *e = (struct dsos_ent *)(uintptr_t)he->val;
		lp_dso_free(e->dso);
		free(e);
	}
	lp_htab_free(c->ents);
	lp_bidtab_free(c->want);
	free(c);
}

/* Whether the file at path is the one map m maps (its device and inode). */
static bool same_file(const char *path, const struct lp_map *m)
{
	struct stat st;
	return !stat(path, &st) && st.st_ino == m->ino && major(st.st_dev) == m->maj &&
	       minor(st.st_dev) == m->min;
}

/* For a process in another mount namespace (a container), the file its
 * map names is only reachable through /proc/PID/root: that path into buf
 * when the map's own path is not the mapped file but that one is. */
static bool other_namespace(const struct lp_map *m, uint32_t pid, char *buf, size_t size)
{
	if (!pid || !m->ino || *lp_sym_symfs() || same_file(m->path, m))
		return false;
	int n = snprintf(buf, size, "/proc/%u/root%s", (unsigned)pid, m->path);
	return n > 0 && (size_t)n < size && same_file(buf, m);
}

/* The object for map m of process pid (0: unknown): the recorded one when
 * the recording gives a build-id for its path, else whatever the path
 * holds, seen from the process's mount namespace. */
static struct lp_dso *open_object(struct lp_dsos *c, const char *path, const struct lp_map *m,
				  uint32_t pid)
{
	struct lp_bid_want *w = c->want ? lp_bidtab_find(c->want, path) : NULL;
	char ns_path[PATH_MAX];

	if (w)
		return lp_dso_open_recorded(path, w);
	if (lp_map_path_is_file(path) && other_namespace(m, pid, ns_path, sizeof ns_path))
		return lp_dso_open(ns_path);
	return lp_dsos_open_local(path);
}

int lp_dsos_expect_build_id(struct lp_dsos *c, const char *path, const uint8_t *id,
			    size_t size)
{
	size_t zero = 0;

	while (id && zero < size && !id[zero])
		zero++;
	if (size && zero == size)
		return 0;       /* all zeros: perf's "no build-id" */
	if (!c->want && !(c->want = lp_bidtab_new()))
		return -ENOMEM;
	return lp_bidtab_add(c->want, path, id, size);
}

struct lp_bid_want *lp_dsos_expected(struct lp_dsos *c, const char *path)
{
	return c->want ? lp_bidtab_find(c->want, path) : NULL;
}

/* The entry for the key, created (and its object, map m's of process
 * pid, opened) when new. */
static struct dsos_ent *entry(struct lp_dsos *c, const char *path, uint32_t maj,
			      uint32_t min, uint64_t ino, const struct lp_map *m, uint32_t pid)
{
	struct dsos_key k = { .path = path, .ino = ino, .maj = maj, .min = min };
	struct dsos_ent *e;
	bool added;
	struct lp_htab_ent *he = lp_htab_add(c->ents, (uintptr_t)&k, &added);

	if (!he || !added)
		return he ? (struct dsos_ent *)(uintptr_t)he->val : NULL;
	size_t len = strlen(path);
	if (!(e = malloc(sizeof *e + len + 1))) {
		lp_htab_delete(c->ents, (uintptr_t)&k, NULL);
		return NULL;
	}
	memcpy(e->path, path, len + 1);
	e->k = k;
	e->k.path = e->path;
	he->key = (uintptr_t)&e->k;
	he->val = (uintptr_t)e;
	e->dso = open_object(c, e->path, m, pid);
	return e;
}

int lp_dsos_lookup(struct lp_dsos *c, const struct lp_map *m,
		   struct lp_dso **dso, const char **name)
{
	return lp_dsos_lookup_pid(c, m, 0, dso, name);
}

int lp_dsos_lookup_pid(struct lp_dsos *c, const struct lp_map *m, uint32_t pid,
		       struct lp_dso **dso, const char **name)
{
	*dso = NULL;
	*name = NULL;
	if (!m || !m->path)
		return 0;
	bool vdso = lp_map_path_is_vdso(m->path);
	struct dsos_ent *e = entry(c, m->path, vdso ? 0 : m->maj, vdso ? 0 : m->min,
				   vdso ? 0 : m->ino, m, pid);
	if (!e)
		return -ENOMEM;
	*dso = e->dso;
	*name = e->path;
	return 0;
}

struct lp_dso *lp_dsos_get(struct lp_dsos *c, const struct lp_map *m)
{
	struct lp_dso *d;
	const char *name;

	if (lp_dsos_lookup(c, m, &d, &name)) {
		errno = ENOMEM;
		return NULL;
	}
	return d;
}

size_t lp_dsos_count(const struct lp_dsos *c)
{
	return lp_htab_count(c->ents);
}

size_t lp_map_build_id(const struct lp_map *m, uint8_t *id, size_t max)
{
	if (!m->path)
		return 0;
	if (!lp_map_path_is_vdso(m->path))
		return lp_map_path_is_file(m->path) ? lp_elf_build_id(m->path, id, max) : 0;
	struct lp_dso *d = lp_dso_open_vdso();
	const uint8_t *v;
	size_t n = d ? lp_dso_build_id(d, &v) : 0;
	n = n < max ? n : max;
	if (n)
		memcpy(id, v, n);
	lp_dso_free(d);
	return n;
}
