/*
 * kcache.c - parsed kallsyms tables (and object files' symbol tables)
 * kept in a cache file, so that the next replay naming kernel frames maps
 * the table instead of parsing 5 MB of text again.
 *
 * Why: a recording's kallsyms copy (perf's build-id cache) has 100-200k
 * lines, whose parse, and the fresh memory its table and names take, cost
 * a replay naming kernel frames more than most of its work
 * (docs/performance.md, "Measured choices in the code").  A cached table
 * costs one mapping, the entries' copy (names stay in the page cache),
 * and its checks.
 *
 * Where: DIR/kallsyms/HASH, DIR being $XDG_CACHE_HOME/luaprof, else
 * $HOME/.cache/luaprof, HASH the kallsyms file's path's lp_hash in hex.  A file of the cache belongs to one kallsyms file, named by its
 * path, and stands for it only while that file's device, inode, size and
 * modification time are the ones it records; a changed file (perf's cache
 * replaces a copy by renaming a new one in) is parsed and its cache file
 * written again.  Only files of LP_KCACHE_MIN bytes or more are cached:
 * /proc/kallsyms has size 0 (and changes as modules and BPF programs come
 * and go), and small files parse in microseconds.
 *
 * Trust: the cache holds the kernel's real addresses, like the kallsyms
 * copy it stands for, and is outside data all the same.  Its directories
 * are made mode 0700, and used (made, read or written) only when each of
 * them from the base (XDG_CACHE_HOME or ~/.cache) down is a directory,
 * not a symbolic link, of luaprof's effective user: root run with another
 * user's HOME neither writes there nor reads what that user put there.
 * The file is opened without following links, must be a regular file of
 * the same user, and every count, offset, index and order in it is
 * checked before use (lp_kcache_parse; lp_symtab_import checks the
 * records).  It is written to a temporary file (0600) renamed into place,
 * so a reader sees a whole file or none, and concurrent writers leave one
 * whole file.
 *
 * Layout (native byte order and sizes, which the magic and rec_size
 * stand for): the header, nr_mods 32-bit offsets of the module names
 * (padded to 8 bytes), nr_recs lp_symtab_rec records, then the names,
 * NUL-terminated, names_len bytes in all.
 *
 * Object files' tables (lp_ocache_*, used by dso.c) are kept the same
 * way in DIR/objects/HASH, under their own magic: one module name, the
 * object's build-id in hex, which dso.c compares with the file's (a
 * file rewritten in place within one tick of the clock keeps its size
 * and time), and the KC_FULL_SYMTAB flag.  Any regular file may be
 * cached; dso.c writes only tables of LP_OCACHE_MIN_SYMS or more.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "luaprof/hmap.h"
#include "sym/sym_int.h"

/* What a cache file holds: a kallsyms table, or an object file's (the
 * same layout, its own directory and magic, one empty module name). */
struct kc_kind {
	const char *sub;        /* the directory under the cache's, for its files */
	char magic[8];
	uint32_t flags;         /* the header flags it may have */
	uint32_t max_mods;      /* module names it may have (at least one) */
};

struct kc_header {
	char magic[8];
	uint32_t rec_size;      /* sizeof(struct lp_symtab_rec) */
	uint32_t flags;         /* KC_HIDDEN, the flaw << KC_FLAW_SHIFT */
	struct lp_kcache_key key;
	uint64_t nr_recs, nr_mods, names_len;
};

#define KC_HIDDEN 1u            /* kallsyms: every address was zero */
#define KC_FULL_SYMTAB 1u       /* objects: the symbols came from a .symtab */
#define KC_FLAW_SHIFT 1
#define KC_FLAW_MASK (7u << KC_FLAW_SHIFT)
#define KC_MAX_MODS 65536u

/* kallsyms 2: the flags hold the kallsyms file's flaw (files of 1 are
 * parsed and written again) */
static const struct kc_kind kallsyms_kind = { "kallsyms", "LPKSYM2\n", KC_HIDDEN | KC_FLAW_MASK,
					      KC_MAX_MODS };
static const struct kc_kind objects_kind = { "objects", "LPOSYM2\n", KC_FULL_SYMTAB, 1 };

bool lp_kcache_dir(char *buf, size_t size)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n;

	if (xdg && *xdg == '/')         /* the spec: relative ones are ignored */
		n = snprintf(buf, size, "%s/luaprof", xdg);
	else if (home && *home)
		n = snprintf(buf, size, "%s/.cache/luaprof", home);
	else
		return false;
	return n > 0 && (size_t)n < size;
}

/* The luaprof directory's base: buf holds "BASE/luaprof"; its length. */
static size_t base_len(const char *dir)
{
	const char *slash = strrchr(dir, '/');
	return slash ? (size_t)(slash - dir) : 0;
}

/* Whether path is a directory of this user, not a link: made (mode 0700)
 * when missing and make is set. */
static bool own_dir(const char *path, bool make)
{
	struct stat st;

	if (make && mkdir(path, 0700) && errno != EEXIST)
		return false;
	return !lstat(path, &st) && S_ISDIR(st.st_mode) && st.st_uid == geteuid();
}

/* Whether base may be used: a directory of this user, or, missing and to
 * be made, in one (never made in another user's home). */
static bool own_base(const char *base, bool make)
{
	char parent[PATH_MAX];
	struct stat st;

	if (!lstat(base, &st) || errno != ENOENT || !make)
		return own_dir(base, make);
	size_t n = base_len(base);
	if (!n || n >= sizeof parent)
		return false;
	memcpy(parent, base, n);
	parent[n] = '\0';
	return own_dir(parent, false) && own_dir(base, true);
}

/* Checks (and with make, makes) BASE, BASE/luaprof and BASE/luaprof/SUB
 * (kind's) for dir "BASE/luaprof", then names the file of path into out.
 * false when a directory is not this user's or a name does not fit. */
static bool cache_file(const struct kc_kind *kind, const char *dir, const char *path, bool make,
		       char *out, size_t size)
{
	char buf[PATH_MAX];
	size_t base = base_len(dir);
	uint64_t h = lp_hash(path, strlen(path));

	if (!base || base >= sizeof buf)
		return false;
	memcpy(buf, dir, base);
	buf[base] = '\0';
	if (!own_base(buf, make) || !own_dir(dir, make))
		return false;
	int n = snprintf(buf, sizeof buf, "%s/%s", dir, kind->sub);
	if (n < 0 || (size_t)n >= sizeof buf || !own_dir(buf, make))
		return false;
	n = snprintf(out, size, "%s/%016llx", buf, (unsigned long long)h);
	return n > 0 && (size_t)n < size;
}

bool lp_kcache_wants(const struct stat *st)
{
	return S_ISREG(st->st_mode) && (uint64_t)st->st_size >= LP_KCACHE_MIN;
}

void lp_kcache_key_of(const struct stat *st, struct lp_kcache_key *key)
{
	*key = (struct lp_kcache_key){
		.dev = (uint64_t)st->st_dev, .ino = (uint64_t)st->st_ino,
		.size = (uint64_t)st->st_size,
		.mtime_ns = (uint64_t)st->st_mtim.tv_sec * 1000000000ull + (uint64_t)st->st_mtim.tv_nsec,
	};
}

/* The size of the module offsets, padded so that the records are 8-byte
 * aligned. */
static uint64_t mods_bytes(uint64_t nr_mods)
{
	return (nr_mods * sizeof(uint32_t) + 7) & ~(uint64_t)7;
}

static int parse_kind(const struct kc_kind *kind, const void *image, size_t len,
		      const struct lp_kcache_key *key, struct lp_kcache *out)
{
	const struct kc_header *h = image;

	if (len < sizeof *h || memcmp(h->magic, kind->magic, sizeof kind->magic) ||
	    h->rec_size != sizeof(struct lp_symtab_rec) || (h->flags & ~kind->flags) ||
	    (h->flags & KC_FLAW_MASK) >> KC_FLAW_SHIFT > LP_KFLAW_MAX)
		return -EINVAL;
	if (memcmp(&h->key, key, sizeof *key))
		return -ESTALE;
	if (!h->nr_mods || h->nr_mods > kind->max_mods || h->nr_recs > INT32_MAX ||
	    !h->names_len || h->names_len > len)
		return -EINVAL;
	uint64_t recs_at = sizeof *h + mods_bytes(h->nr_mods);
	uint64_t names_at = recs_at + h->nr_recs * sizeof(struct lp_symtab_rec);
	if (names_at > len || len - names_at != h->names_len)
		return -EINVAL;
	const char *names = (const char *)image + names_at;
	const uint32_t *mods = (const uint32_t *)(const void *)(h + 1);
	if (names[h->names_len - 1])
		return -EINVAL;
	for (uint64_t i = 0; i < h->nr_mods; i++)
		if (mods[i] >= h->names_len)
			return -EINVAL;
	*out = (struct lp_kcache){
		.recs = (const struct lp_symtab_rec *)(const void *)((const char *)image + recs_at),
		.nr_recs = (size_t)h->nr_recs, .mods = mods, .nr_mods = (size_t)h->nr_mods,
		.names = names, .names_len = (size_t)h->names_len,
		.hidden = kind == &kallsyms_kind && (h->flags & KC_HIDDEN),
		.full_symtab = kind == &objects_kind && (h->flags & KC_FULL_SYMTAB),
		.flaw = (enum lp_kflaw)((h->flags & KC_FLAW_MASK) >> KC_FLAW_SHIFT),
		.fd = -1,
	};
	return 0;
}

int lp_kcache_parse(const void *image, size_t len, const struct lp_kcache_key *key,
		    struct lp_kcache *out)
{
	return parse_kind(&kallsyms_kind, image, len, key, out);
}

int lp_ocache_parse(const void *image, size_t len, const struct lp_kcache_key *key,
		    struct lp_kcache *out)
{
	return parse_kind(&objects_kind, image, len, key, out);
}

/* lp_kcache_open() of kind's file, src a file of the kind cached. */
static int open_kind(const struct kc_kind *kind, const char *dir, const char *path,
		     const struct stat *src, struct lp_kcache *out)
{
	char file[PATH_MAX];
	struct lp_kcache_key key;
	struct stat st;

	if (!cache_file(kind, dir, path, false, file, sizeof file))
		return -ENOENT;
	int fd = open(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	void *map = MAP_FAILED;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_uid == geteuid() && st.st_size > 0)
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		close(fd);
		return -EINVAL;
	}
	lp_kcache_key_of(src, &key);
	int err = parse_kind(kind, map, (size_t)st.st_size, &key, out);
	if (err) {
		munmap(map, (size_t)st.st_size);
		close(fd);
		return err;
	}
	out->map = map;
	out->map_len = (size_t)st.st_size;
	out->fd = fd;           /* lookups read the records again (lp_kcache_source) */
	return 0;
}

int lp_kcache_open(const char *dir, const char *path, const struct stat *src,
		   struct lp_kcache *out)
{
	return lp_kcache_wants(src) ? open_kind(&kallsyms_kind, dir, path, src, out) : -ENOENT;
}

int lp_ocache_open(const char *dir, const char *path, const struct stat *src,
		   struct lp_kcache *out)
{
	return S_ISREG(src->st_mode) ? open_kind(&objects_kind, dir, path, src, out) : -ENOENT;
}

void lp_kcache_release(struct lp_kcache *c)
{
	if (c->map)
		(void)madvise(c->map, c->map_len, MADV_DONTNEED);      /* advice */
}

void lp_kcache_close(struct lp_kcache *c)
{
	if (c->map) {           /* fd is open only with a mapping (a zeroed
				 * lp_kcache has fd 0: no file of its own) */
		munmap(c->map, c->map_len);
		close(c->fd);
	}
	c->map = NULL;
	c->fd = -1;
}

void lp_kcache_source(const struct lp_kcache *c, struct lp_symsrc *src)
{
	const char *base = c->map;
	*src = (struct lp_symsrc){ .fd = c->map ? c->fd : -1 };
	if (c->map) {
		src->recs_at = (uint64_t)((const char *)c->recs - base);
		src->names_at = (uint64_t)(c->names - base);
	}
}

/* Writes the image of table t to f: header, module offsets, records, names.
 * 0, -EFBIG (names past 4 GiB) or -EIO. */
static int write_image(FILE *f, const struct kc_kind *kind, const struct lp_kcache_key *key,
		       const struct lp_symtab *t, const char *const *mods, size_t nr_mods,
		       uint32_t flags)
{
	size_t n = lp_symtab_count(t);
	uint64_t names_len = 0;
	struct lp_symtab_rec r;
	uint32_t off;

	for (size_t i = 0; i < nr_mods; i++)
		names_len += strlen(mods[i]) + 1;
	for (size_t i = 0; i < n; i++)
		names_len += strlen(lp_symtab_at(t, i)->name) + 1;
	if (names_len > UINT32_MAX)
		return -EFBIG;
	struct kc_header h = { .rec_size = sizeof r, .key = *key, .flags = flags,
			       .nr_recs = n, .nr_mods = nr_mods, .names_len = names_len };
	memcpy(h.magic, kind->magic, sizeof h.magic);
	static const char pad[8];
	fwrite(&h, sizeof h, 1, f);
	off = 0;
	for (size_t i = 0; i < nr_mods; off += (uint32_t)strlen(mods[i++]) + 1)
		fwrite(&off, sizeof off, 1, f);
	fwrite(pad, 1, (size_t)(mods_bytes(nr_mods) - nr_mods * sizeof off), f);
	for (size_t i = 0; i < n && lp_symtab_rec(t, i, &r); i++) {
		r.name = off;
		off += (uint32_t)strlen(lp_symtab_at(t, i)->name) + 1;
		fwrite(&r, sizeof r, 1, f);
	}
	for (size_t i = 0; i < nr_mods; i++)
		fwrite(mods[i], 1, strlen(mods[i]) + 1, f);
	for (size_t i = 0; i < n; i++) {
		const char *name = lp_symtab_at(t, i)->name;
		fwrite(name, 1, strlen(name) + 1, f);
	}
	return ferror(f) ? -EIO : 0;
}

/* lp_kcache_save() of kind's file, its header's flags given. */
static int save_kind(const struct kc_kind *kind, const char *dir, const char *path,
		     const struct stat *src, const struct lp_symtab *t, const char *const *mods,
		     size_t nr_mods, uint32_t flags)
{
	char file[PATH_MAX], tmp[PATH_MAX + 8];
	struct lp_kcache_key key;

	if (!cache_file(kind, dir, path, true, file, sizeof file))
		return -EPERM;
	snprintf(tmp, sizeof tmp, "%s.XXXXXX", file);
	int fd = mkostemp(tmp, O_CLOEXEC);      /* mode 0600 */
	if (fd < 0)
		return -errno;
	FILE *f = fdopen(fd, "w");
	if (!f) {
		int err = -errno;
		close(fd);
		unlink(tmp);
		return err;
	}
	lp_kcache_key_of(src, &key);
	int err = write_image(f, kind, &key, t, mods, nr_mods, flags);
	if (fclose(f) && !err)
		err = -EIO;
	if (!err && rename(tmp, file))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

int lp_kcache_save(const char *dir, const char *path, const struct stat *src,
		   const struct lp_symtab *t, const char *const *mods, size_t nr_mods, bool hidden,
		   enum lp_kflaw flaw)
{
	if (!lp_kcache_wants(src) || !nr_mods || nr_mods > KC_MAX_MODS || flaw > LP_KFLAW_MAX)
		return -EINVAL;
	return save_kind(&kallsyms_kind, dir, path, src, t, mods, nr_mods,
			 (hidden ? KC_HIDDEN : 0) | (uint32_t)flaw << KC_FLAW_SHIFT);
}

int lp_ocache_save(const char *dir, const char *path, const struct stat *src,
		   const struct lp_symtab *t, bool full_symtab, const char *build_id)
{
	const char *const mods[1] = { build_id };

	if (!S_ISREG(src->st_mode))
		return -EINVAL;
	return save_kind(&objects_kind, dir, path, src, t, mods, 1,
			 full_symtab ? KC_FULL_SYMTAB : 0);
}
