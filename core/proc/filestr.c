/*
 * filestr.c - a string of a process's read-only file mapping (a string
 * literal in a program or library) read from the file itself: exact at any
 * time, the process alive or long gone (see capture.h).
 *
 * The run's maps hold each object's executable mapping (perf records no
 * other unless asked: perf record -d), and a literal lies in the object's
 * read-only data segment beside it.  So for an address, each file mapped
 * into the process gives its load bias (the mapping's address less its
 * segment's link address), and the object's program headers say whether
 * the address, less that bias, falls in a segment that is never written
 * (a PT_LOAD without PF_W: the relocated-then-protected data of RELRO is
 * part of a writable segment, and is left out).  The file is read there.
 *
 * Objects' program headers are read once (64-bit ELF only, by pread: a
 * few hundred bytes), kept with an open fd in a small cache by path; a
 * file whose inode is not the mapping's (replaced since, or another mount
 * namespace's) is read through /proc/PID/root while the process lives,
 * and is otherwise refused.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "luaprof/proc.h"

#define SLOTS 32
#define MAX_LOADS 16

struct seg {
	uint64_t vaddr, off, filesz;
	bool writable;
};

struct obj {
	char *path;             /* NULL: a free slot */
	uint64_t ino;
	uint32_t maj, min;      /* of the mapping it was opened for */
	int fd;                 /* -1: not an ELF we read */
	struct seg seg[MAX_LOADS];
	size_t nr_seg;
	uint64_t used;          /* for replacement: the least recently used goes */
};

struct lp_filestr {
	struct obj slot[SLOTS];
	uint64_t clock;
};

struct lp_filestr *lp_filestr_new(void)
{
	struct lp_filestr *fs = calloc(1, sizeof *fs);
	for (size_t i = 0; fs && i < SLOTS; i++)
		fs->slot[i].fd = -1;
	return fs;
}

static void obj_clear(struct obj *o)
{
	if (o->fd >= 0)
		close(o->fd);
	free(o->path);
	*o = (struct obj){ .fd = -1 };
}

void lp_filestr_free(struct lp_filestr *fs)
{
	for (size_t i = 0; fs && i < SLOTS; i++)
		obj_clear(&fs->slot[i]);
	free(fs);
}

/* The PT_LOAD segments of the 64-bit ELF at fd into o; false when it is
 * not one. */
static bool read_segments(int fd, struct obj *o)
{
	Elf64_Ehdr eh;
	if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    eh.e_phnum == 0 || eh.e_phnum > 256)
		return false;
	Elf64_Phdr ph[256];
	size_t n = eh.e_phnum;
	if (pread(fd, ph, n * sizeof *ph, (off_t)eh.e_phoff) != (ssize_t)(n * sizeof *ph))
		return false;
	o->nr_seg = 0;
	for (size_t i = 0; i < n && o->nr_seg < MAX_LOADS; i++)
		if (ph[i].p_type == PT_LOAD)
			o->seg[o->nr_seg++] = (struct seg){ ph[i].p_vaddr, ph[i].p_offset, ph[i].p_filesz,
							    (ph[i].p_flags & PF_W) != 0 };
	return o->nr_seg > 0;
}

/* Opens path (or its copy under /proc/PID/root) when its inode is the
 * mapping's; -1 otherwise. */
static int open_same(const struct lp_map *m, pid_t pid)
{
	char alt[4096 + 64];
	const char *tries[2] = { m->path, NULL };
	if (pid > 0 && snprintf(alt, sizeof alt, "/proc/%d/root%s", (int)pid, m->path) < (int)sizeof alt)
		tries[1] = alt;
	for (int i = 0; i < 2 && tries[i]; i++) {
		struct stat st;
		int fd = open(tries[i], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (!fstat(fd, &st) && S_ISREG(st.st_mode) && (!m->ino || st.st_ino == m->ino))
			return fd;
		close(fd);
	}
	return -1;
}

/* The cached object of m's file, read now if it is not cached; NULL when
 * it cannot be read as an ELF object. */
static struct obj *object_of(struct lp_filestr *fs, const struct lp_map *m, pid_t pid)
{
	struct obj *victim = &fs->slot[0];
	for (size_t i = 0; i < SLOTS; i++) {
		struct obj *o = &fs->slot[i];
		if (o->path && o->ino == m->ino && o->maj == m->maj && o->min == m->min &&
		    !strcmp(o->path, m->path)) {
			o->used = ++fs->clock;
			return o->fd >= 0 ? o : NULL;
		}
		if (!o->path || o->used < victim->used)
			victim = o;
	}
	obj_clear(victim);
	if (!(victim->path = strdup(m->path)))
		return NULL;
	victim->ino = m->ino;
	victim->maj = m->maj;
	victim->min = m->min;
	victim->used = ++fs->clock;
	victim->fd = open_same(m, pid);
	if (victim->fd >= 0 && !read_segments(victim->fd, victim)) {
		close(victim->fd);
		victim->fd = -1;        /* remembered as unreadable */
	}
	return victim->fd >= 0 ? victim : NULL;
}

/* The file offset of addr in object o mapped by m, when addr lies in one
 * of its never-written segments; false otherwise. */
static bool file_offset(const struct obj *o, const struct lp_map *m, uint64_t addr, uint64_t *off,
			uint64_t *room)
{
	/* the segment the mapping starts (its page), else one it lies in
	 * (a mapping split by mprotect) */
	const struct seg *at = NULL;
	for (size_t i = 0; i < o->nr_seg && !at; i++)
		if ((o->seg[i].off & ~0xfffull) == m->pgoff)
			at = &o->seg[i];
	for (size_t i = 0; i < o->nr_seg && !at; i++)
		if (m->pgoff >= (o->seg[i].off & ~0xfffull) && m->pgoff < o->seg[i].off + o->seg[i].filesz)
			at = &o->seg[i];
	if (!at)
		return false;
	uint64_t bias = m->start - m->pgoff + at->off - at->vaddr;   /* wraps as the kernel's does */
	uint64_t vaddr = addr - bias;
	for (size_t i = 0; i < o->nr_seg; i++) {
		const struct seg *s = &o->seg[i];
		if (!s->writable && vaddr >= s->vaddr && vaddr - s->vaddr < s->filesz) {
			*off = s->off + (vaddr - s->vaddr);
			*room = s->filesz - (vaddr - s->vaddr);
			return true;
		}
	}
	return false;
}

static bool file_backed(const struct lp_map *m)
{
	return m->path && m->path[0] == '/' && strncmp(m->path, "//anon", 6);
}

/* Reads the NUL-terminated string at off in o (room bytes of segment
 * left): 0, or -ERANGE when it does not end within the segment. */
static int read_at(const struct obj *o, uint64_t off, uint64_t room, char *buf, size_t size,
		   size_t *len)
{
	size_t want = room < size - 1 ? (size_t)room : size - 1;
	ssize_t n = pread(o->fd, buf, want, (off_t)off);
	if (n <= 0)
		return -EIO;
	const char *nul = memchr(buf, '\0', (size_t)n);
	if (!nul && (size_t)n == want && want < size - 1)
		return -ERANGE;         /* the segment ends first */
	*len = nul ? (size_t)(nul - buf) : (size_t)n;
	buf[*len] = '\0';
	return 0;
}

int lp_filestr_read(struct lp_filestr *fs, const struct lp_proc *p, pid_t pid, uint64_t addr,
		    char *buf, size_t size, size_t *len)
{
	if (!fs || !p || size < 2)
		return -EINVAL;
	const struct lp_map *last = NULL;
	for (uint32_t i = 0; i < p->nr_maps; i++) {
		const struct lp_map *m = &p->maps[i];
		uint64_t off, room;
		if (!file_backed(m) || (last && last->path == m->path && last->ino == m->ino))
			continue;       /* one try per object: its pieces agree */
		last = m;
		struct obj *o = object_of(fs, m, pid);
		if (o && file_offset(o, m, addr, &off, &room))
			return read_at(o, off, room, buf, size, len);
	}
	return -ENOENT;
}
