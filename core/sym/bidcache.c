/*
 * bidcache.c - filling perf's build-id cache, as perf record does at the
 * end of a recording, so that perf report and luaprof's replays find the
 * recorded objects after they changed on disk, and [vdso] and the kernel's
 * symbols at all (perf report reads [vdso] only from the cache).
 *
 * The layout is perf 6.1's, as it writes it (buildid.c reads it):
 *
 *   DIR/usr/lib/x86_64-linux-gnu/libc.so.6/HEX/elf      hard link or copy
 *   DIR/usr/lib/x86_64-linux-gnu/libc.so.6/HEX/debug    ditto, when installed
 *   DIR/[vdso]/HEX/vdso
 *   DIR/[kernel.kallsyms]/HEX/kallsyms
 *   DIR/.build-id/NN/REST -> ../../usr/lib/x86_64-linux-gnu/libc.so.6/HEX
 *
 * perf links the object where it can and otherwise copies it with mode
 * 0755 (its copyfile), as it copies /proc/kallsyms; [vdso] is an image it
 * writes to a mkstemp file in /tmp (0600) and links, or copies (0755) when
 * the cache is on another file system: the modes are the same here, but
 * for kallsyms.  perf also leaves an empty
 * "probes" file (its SDT probe cache) next to "elf" and "vdso"; that one is
 * not written here: perf creates it when it first needs it, and an empty
 * one would hide the SDT probes of an object that has some.
 *
 * Departures from perf.  The kallsyms copy holds the kernel's real
 * addresses, which /proc/kallsyms shows only to root (kptr_restrict): perf
 * leaves them 0755 in 0755 directories, readable by anyone who may enter
 * the home; here the copy is written 0600, and the directories made for it
 * below the cache's root ([kernel.kallsyms], [kernel.kallsyms]/HEX) 0700,
 * as luaprof's recordings are 0600.  perf report, run by the same user,
 * reads it as before.  And a cached kallsyms of the running kernel that is
 * older than this boot is written again.  perf keeps the first copy of a
 * build-id forever, but the addresses (KASLR) and the modules are the
 * boot's: replays read the copy instead of /proc/kallsyms only when it is
 * of this boot (bidfind.c), so without this the faster start-up would end
 * at the first reboot.  perf itself reads /proc/kallsyms for the running
 * kernel and so never sees the difference.
 *
 * The .build-id link is made last: it is what says "cached" (one stat of
 * LINK/elf), to perf and to the next recording alike, so it never points
 * at a file still being written.  Copies go to a temporary file in the
 * same directory, renamed into place.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sym/sym_int.h"

#define COPY_CHUNK ((size_t)256 << 10)
#define KALLSYMS "/proc/kallsyms"
#define KERNEL_NOTES "/sys/kernel/notes"
#define PERF_VDSO_TMP "/tmp"            /* where perf writes its [vdso] image */

enum kind { OBJ_ELF, OBJ_VDSO, OBJ_KALLSYMS };

/* One object's place in the cache. */
struct slot {
	enum kind kind;
	const uint8_t *id;
	size_t n;
	const char *base;               /* "elf", "vdso" or "kallsyms" */
	char src[PATH_MAX];             /* the object's real path (OBJ_ELF) */
	char dir[PATH_MAX];             /* DIR/NAME/HEX */
	char link[PATH_MAX];            /* DIR/.build-id/NN/REST */
	char target[PATH_MAX];          /* ../../NAME/HEX */
};

bool lp_bidcache_dir(char *buf, size_t size)
{
	return lp_build_id_cache_dir(0, buf, size);
}

/* snprintf that tells whether it fit. */
static bool fmt(char *buf, size_t size, const char *f, ...) __attribute__((format(printf, 3, 4)));

static bool fmt(char *buf, size_t size, const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	int n = vsnprintf(buf, size, f, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < size;
}

/* Whether a directory owned by uid is one this user may fill: its own, or
 * root's (a user's cache under /tmp, say; root's files are no secret a
 * user could plant). */
static bool mine(uid_t uid)
{
	return uid == geteuid() || uid == 0;
}

/* Creates every missing directory of path, a path inside the cache at
 * root (checked by owned()): mode 0755 up to root, inner (0755, or 0700
 * for kallsyms) below it.  Below root, never through a link: a directory
 * there that is a symbolic link (perf's layout has links only as .build-id
 * leaves), or is another user's, gives -ELOOP, so that nothing is written
 * outside the cache.  0 or -errno. */
static int mkdirs(const char *root, const char *path, mode_t inner)
{
	char buf[PATH_MAX];
	size_t inside = strlen(root);
	struct stat st;

	if (!fmt(buf, sizeof buf, "%s", path))
		return -ENAMETOOLONG;
	for (char *p = buf + 1;; p++) {
		if (*p != '/' && *p)
			continue;
		char c = *p;
		*p = '\0';
		bool below = (size_t)(p - buf) > inside && !strncmp(buf, root, inside);
		if (mkdir(buf, below ? inner : 0755) && errno != EEXIST)
			return -errno;
		if (below && (lstat(buf, &st) || !S_ISDIR(st.st_mode) || !mine(st.st_uid)))
			return -ELOOP;
		if (!c)
			return 0;
		*p = c;
	}
}

/* Names the object's .build-id link (false when it does not fit). */
static bool place_link(struct slot *s, const char *root)
{
	char hex[2 * LP_BUILD_ID_SIZE + 1];

	lp_build_id_hex(s->id, s->n, hex);
	return fmt(s->link, sizeof s->link, "%s/.build-id/%.2s/%s", root, hex, hex + 2);
}

/* Names the object's directory and the link's target: false when a name
 * does not fit, or a file has no real path (gone since). */
static bool place_dir(struct slot *s, const char *root, const char *name)
{
	char hex[2 * LP_BUILD_ID_SIZE + 1];
	const char *key = s->kind == OBJ_ELF ? s->src : name;

	lp_build_id_hex(s->id, s->n, hex);
	if (s->kind == OBJ_ELF && !realpath(name, s->src))
		return false;
	const char *sep = *key == '/' ? "" : "/";
	return fmt(s->dir, sizeof s->dir, "%s%s%s/%s", root, sep, key, hex) &&
	       fmt(s->target, sizeof s->target, "../..%s%s/%s", sep, key, hex);
}

/* Whether the cache has the object: its link leads to a file named base;
 * for the kernel, a kallsyms written since boot. */
static bool cached(const struct slot *s)
{
	char path[PATH_MAX];
	struct stat st;

	return fmt(path, sizeof path, "%s/%s", s->link, s->base) && !stat(path, &st) &&
	       S_ISREG(st.st_mode) && (s->kind != OBJ_KALLSYMS || lp_since_boot(&st));
}

/* Writes all len bytes of p to fd.  0 or -errno. */
static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/* Copies fd to its end into out.  0 or -errno. */
static int copy_fd(int fd, int out)
{
	char *buf = malloc(COPY_CHUNK);
	int err = buf ? 0 : -ENOMEM;

	for (ssize_t got = 1; !err && got;) {
		got = read(fd, buf, COPY_CHUNK);
		if (got < 0)
			err = errno == EINTR ? 0 : -errno;
		else
			err = write_all(out, buf, (size_t)got);
	}
	free(buf);
	return err;
}

/* Writes len bytes of mem, or (mem NULL) all of fd, to a temporary file
 * next to to, with mode; check, when given, must accept the file (by its
 * name) before it is renamed to to.  0, -ESTALE when check refused, or
 * -errno. */
static int put_file(const char *to, mode_t mode, int fd, const void *mem, size_t len,
		    bool (*check)(const char *tmp, const struct slot *s), const struct slot *s)
{
	char tmp[PATH_MAX];

	if (!fmt(tmp, sizeof tmp, "%s.XXXXXX", to))
		return -ENAMETOOLONG;
	int out = mkstemp(tmp), err = 0;
	if (out < 0)
		return -errno;
	if (fchmod(out, mode))
		err = -errno;
	if (!err)
		err = mem ? write_all(out, mem, len) : copy_fd(fd, out);
	if (close(out) && !err)
		err = -errno;
	if (!err && check && !check(tmp, s))
		err = -ESTALE;
	if (!err && rename(tmp, to))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

/* Copies the file from to to with mode (0755: perf's copyfile's). */
static int copy_file(const char *from, const char *to, mode_t mode,
		     bool (*check)(const char *tmp, const struct slot *s), const struct slot *s)
{
	int fd = open(from, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -ESTALE;
	int err = put_file(to, mode, fd, NULL, 0, check, s);
	close(fd);
	return err;
}

/* Whether the ELF file at path has the slot's build-id. */
static bool has_id(const char *path, const struct slot *s)
{
	uint8_t id[LP_BUILD_ID_SIZE];
	size_t n = lp_elf_build_id(path, id, sizeof id);

	return lp_build_id_equal(s->id, s->n, id, n);
}

/* Links from to to, else copies it; either way only a file with the slot's
 * build-id stays (check NULL: no check, for a debug file, named by it). */
static int link_or_copy(const char *from, const char *to,
			bool (*check)(const char *tmp, const struct slot *s), const struct slot *s)
{
	if (link(from, to) && errno != EEXIST)
		return copy_file(from, to, 0755, check, s);
	if (check && !check(to, s)) {
		unlink(to);
		return -ESTALE;
	}
	return 0;
}

/* The separate debug file of the build-id, when installed: best effort,
 * as perf's. */
static void put_debug(const struct slot *s)
{
	char from[PATH_MAX], to[PATH_MAX];

	if (lp_debug_file_find(NULL, NULL, s->id, s->n, from, sizeof from) &&
	    fmt(to, sizeof to, "%s/%s", s->dir, "debug"))
		link_or_copy(from, to, NULL, s);
}

/* The mode perf 6.1 leaves on its [vdso] copy: it writes the image to a
 * mkstemp file in /tmp (0600) and links that into the cache, or, on
 * another file system, copies it (0755). */
static mode_t vdso_mode(const struct slot *s)
{
	struct stat tmp, dir;

	return !stat(PERF_VDSO_TMP, &tmp) && !stat(s->dir, &dir) && tmp.st_dev == dir.st_dev ?
	       0600 : 0755;
}

/* [vdso]: this process's image, when it has the recorded build-id. */
static int put_vdso(const struct slot *s, const char *to)
{
	const void *image = (const void *)(uintptr_t)getauxval(AT_SYSINFO_EHDR);
	size_t size = image ? lp_dso_mem_size(image) : 0;
	struct lp_dso *d = size ? lp_dso_open_mem("[vdso]", image, size) : NULL;
	const uint8_t *id;
	bool same = d && lp_build_id_equal(s->id, s->n, id, lp_dso_build_id(d, &id));

	lp_dso_free(d);
	return same ? put_file(to, vdso_mode(s), -1, image, size, NULL, s) : -ESTALE;
}

/* A copy of kallsyms is only worth keeping with its addresses. */
static bool kallsyms_shown(const char *path, const struct slot *s)
{
	static const char *const ref[] = { "_text" };
	uint64_t addr;

	(void)s;
	return lp_kallsyms_lookup(path, ref, &addr, 1) == 1;
}

/* [kernel.kallsyms]: /proc/kallsyms, when the running kernel is the
 * recorded one; 0600, its addresses being root's to see. */
static int put_kallsyms(const struct slot *s, const char *to)
{
	uint8_t run[LP_BUILD_ID_SIZE];
	size_t n = lp_kernel_build_id(KERNEL_NOTES, run, sizeof run);

	if (!lp_build_id_equal(s->id, s->n, run, n))
		return -ESTALE;
	return copy_file(KALLSYMS, to, 0600, kallsyms_shown, s);
}

/* The object's file in its directory. */
static int put_object(struct slot *s)
{
	char to[PATH_MAX];

	if (!fmt(to, sizeof to, "%s/%s", s->dir, s->base))
		return -ENAMETOOLONG;
	switch (s->kind) {
	case OBJ_VDSO:
		return put_vdso(s, to);
	case OBJ_KALLSYMS:
		return put_kallsyms(s, to);
	default: {
		int err = link_or_copy(s->src, to, has_id, s);
		if (!err)
			put_debug(s);
		return err;
	}
	}
}

/* The .build-id link, replacing a dangling one (a racing writer's good
 * link is kept). */
static int put_link(const struct slot *s, const char *root)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof dir, "%s", s->link);
	*strrchr(dir, '/') = '\0';
	int err = mkdirs(root, dir, 0755);
	if (err)
		return err;
	if (!symlink(s->target, s->link))
		return 0;
	err = -errno;
	if (cached(s))
		return 0;
	if (err != -EEXIST || (unlink(s->link) && errno != ENOENT))
		return err != -EEXIST ? err : -errno;
	return symlink(s->target, s->link) ? -errno : 0;
}

/* Whether this user may write the cache at root: root is a directory of
 * this user's or root's (not a symbolic link), or, not there yet, the
 * directory it would be made in is.  Root run with another user's HOME
 * must not leave root's files (a copy of kallsyms with real addresses)
 * in that home, nor follow that user's links.  0 or -EPERM. */
static int owned(const char *root)
{
	char parent[PATH_MAX];
	struct stat st;
	if (!lstat(root, &st))
		return S_ISLNK(st.st_mode) || (S_ISDIR(st.st_mode) && !mine(st.st_uid)) ?
		       -EPERM : 0;     /* not a directory: mkdirs says so */
	if (!fmt(parent, sizeof parent, "%s", root))
		return -ENAMETOOLONG;
	char *slash = strrchr(parent, '/');
	if (!slash || slash == parent)
		return 0;
	*slash = '\0';
	if (lstat(parent, &st))
		return 0;       /* mkdirs makes the parents, as this user */
	return S_ISDIR(st.st_mode) && !mine(st.st_uid) ? -EPERM : 0;
}

int lp_bidcache_add(const char *name, const uint8_t *id, size_t n)
{
	char root[PATH_MAX];
	struct slot *s;

	if (!n || n > LP_BUILD_ID_SIZE)
		return -EINVAL;
	if (!lp_bidcache_dir(root, sizeof root))
		return -ENOENT;
	int err = owned(root);
	if (err)
		return err;
	if (!(s = calloc(1, sizeof *s)))
		return -ENOMEM;
	s->id = id;
	s->n = n;
	s->kind = !strcmp(name, "[vdso]") ? OBJ_VDSO :
		  !strcmp(name, "[kernel.kallsyms]") ? OBJ_KALLSYMS : OBJ_ELF;
	s->base = s->kind == OBJ_VDSO ? "vdso" : s->kind == OBJ_KALLSYMS ? "kallsyms" : "elf";
	int rc = place_link(s, root) ? 0 : -ESTALE;
	if (!rc && cached(s))
		rc = 1;         /* there: nothing to do */
	if (!rc && !place_dir(s, root, name))
		rc = -ESTALE;
	if (!rc)
		rc = mkdirs(root, s->dir, s->kind == OBJ_KALLSYMS ? 0700 : 0755);
	if (!rc)
		rc = put_object(s);
	if (!rc)
		rc = put_link(s, root);
	if (rc == -ESTALE)
		rmdir(s->dir);  /* empty unless another writer's */
	free(s);
	return rc == 1 ? 0 : rc ? rc : 1;
}
