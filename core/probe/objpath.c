/*
 * objpath.c - the object a probe names: a file, a program on $PATH, or a
 * library found as the dynamic linker finds it (its cache, then the usual
 * directories).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "luaprof/probe.h"

#define LDCACHE "/etc/ld.so.cache"

static const char *const lib_dirs[] = {
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64",
	"/lib", "/usr/lib", "/usr/local/lib",
};

/* 0 when path is a regular file we may read, else -errno. */
static int usable(const char *path)
{
	struct stat st;
	if (stat(path, &st))
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISREG(st.st_mode))
		return -EACCES;
	return access(path, R_OK) ? -errno : 0;
}

static int copy(char *out, size_t size, const char *s)
{
	return snprintf(out, size, "%s", s) >= (int)size ? -ENAMETOOLONG : 0;
}

/* name in one of the directories of $PATH, executable (an empty entry,
 * the current directory, is skipped: ./NAME names that). */
static int on_path(const char *name, char *out, size_t size)
{
	const char *path = getenv("PATH");
	for (const char *p = path; p && *p;) {
		size_t n = strcspn(p, ":");
		int w = snprintf(out, size, "%.*s/%s", (int)n, p, name);
		if (n && w > 0 && (size_t)w < size && !usable(out) && !access(out, X_OK))
			return 0;
		p += n + (p[n] == ':');
	}
	return -ENOENT;
}

static int in_ldcache(const char *name, char *out, size_t size)
{
	int fd = open(LDCACHE, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0)
		return -ENOENT;
	int rc = -ENOENT;
	if (!fstat(fd, &st) && st.st_size > 0) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m != MAP_FAILED) {
			rc = lp_ldcache_lookup(m, (size_t)st.st_size, name, out, size);
			munmap(m, (size_t)st.st_size);
		}
	}
	close(fd);
	return rc == 0 && usable(out) ? -ENOENT : rc;
}

/* "NAME.so.6" or "NAME.so" as a file in the usual directories. */
static int in_lib_dirs(const char *name, char *out, size_t size)
{
	bool so = strstr(name, ".so") != NULL;
	for (size_t i = 0; i < sizeof lib_dirs / sizeof *lib_dirs; i++) {
		int w = snprintf(out, size, "%s/%s%s", lib_dirs[i], name, so ? "" : ".so");
		if (w > 0 && (size_t)w < size && !usable(out))
			return 0;
	}
	return -ENOENT;
}

int lp_probe_find_object(const char *name, char *out, size_t size)
{
	if (!*name)
		return -ENOENT;
	if (strchr(name, '/')) {
		int rc = usable(name);
		return rc ? rc : copy(out, size, name);
	}
	if (!on_path(name, out, size))
		return 0;
	int rc = in_ldcache(name, out, size);
	if (rc != -ENOENT)
		return rc;
	return in_lib_dirs(name, out, size);
}
