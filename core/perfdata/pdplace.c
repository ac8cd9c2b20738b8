/*
 * pdplace.c - where a recording goes: the checks on -o's path, the file
 * written before the run starts, and putting it at its path once it has.
 *
 * A recording is written from the start into a file of its own in its
 * directory that no one sees: unnamed (O_TMPFILE) where the file system
 * allows, else PATH.tmp.XXXXXX.  Nothing at PATH or PATH.old changes until
 * the caller says the run has started (pd_place): then an existing PATH
 * becomes PATH.old, as perf record keeps it, and the new file takes its
 * name.  A run that never starts (a command that cannot be run, events
 * that cannot be opened) leaves both exactly as they were (pd_discard).
 *
 * A recording goes to a regular file only: a device, a FIFO, a socket or
 * a directory at PATH (or behind a symbolic link there) is refused, and
 * so is one at PATH.old when PATH would be kept there, since renaming
 * over it would destroy it.  Nothing is ever removed that luaprof did not
 * create, but for an empty regular file at PATH, which the new recording
 * replaces (as perf truncates it) rather than keeping it as PATH.old over
 * an earlier recording.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "luaprof/luaprof.h"
#include "perfdata/perfdata_int.h"

/* Whether PATH would be kept as PATH.old when a recording takes its
 * place: it holds something (a symbolic link, even a dangling one, is
 * kept rather than written through). */
static bool worth_keeping(const struct stat *lst)
{
	return !S_ISREG(lst->st_mode) || lst->st_size > 0;
}

int lp_pd_writer_check(const char *path, bool *old, mode_t *mode)
{
	struct stat st, lst;
	*old = false;
	*mode = 0;
	if (lstat(path, &lst))
		return errno == ENOENT ? 0 : -errno;
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		*mode = st.st_mode;
		return -EEXIST;
	}
	if (!worth_keeping(&lst))
		return 0;
	char *o;
	if (asprintf(&o, "%s.old", path) < 0)
		return -ENOMEM;
	int rc = 0;
	if (lstat(o, &lst))
		rc = errno == ENOENT ? 0 : -errno;
	else if (!S_ISREG(lst.st_mode) && !S_ISLNK(lst.st_mode)) {
		*old = true;
		*mode = lst.st_mode;
		rc = -EEXIST;
	}
	free(o);
	return rc;
}

/* The directory path lies in, as a string of its own ("." for a bare
 * name); NULL when out of memory. */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return strdup(".");
	return strndup(path, slash == path ? 1 : (size_t)(slash - path));
}

/* A named temporary file beside path, for a file system without
 * O_TMPFILE: its name in *tmp.  The fd, or -errno. */
static int named_temp(const char *path, char **tmp)
{
	if (asprintf(tmp, "%s.tmp.XXXXXX", path) < 0) {
		*tmp = NULL;
		return -ENOMEM;
	}
	int fd = mkostemp(*tmp, O_CLOEXEC);    /* mode 0600 */
	if (fd < 0) {
		int err = -errno;
		free(*tmp);
		*tmp = NULL;
		return err;
	}
	return fd;
}

int pd_temp_open(const char *path, char **tmp)
{
	*tmp = NULL;
	char *dir = dir_of(path);
	if (!dir)
		return -ENOMEM;
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	int err = fd < 0 ? errno : 0;
	free(dir);
	if (fd >= 0)
		return fd;
	/* no O_TMPFILE here (EISDIR: a kernel without it) */
	if (err == EOPNOTSUPP || err == EISDIR || err == EINVAL)
		return named_temp(path, tmp);
	return -err;
}

/* Makes room at path for the new file: an existing one becomes path.old
 * (an empty regular file is removed instead), checked again as
 * lp_pd_writer_check does, since time has passed.  *kept tells whether
 * path was renamed.  0 or -errno. */
static int make_room(const char *path, bool *kept)
{
	struct stat lst;
	bool old;
	mode_t mode;
	*kept = false;
	int rc = lp_pd_writer_check(path, &old, &mode);
	if (rc)
		return rc;
	if (lstat(path, &lst))
		return errno == ENOENT ? 0 : -errno;
	if (!worth_keeping(&lst))
		return unlink(path) && errno != ENOENT ? -errno : 0;
	char *o;
	if (asprintf(&o, "%s.old", path) < 0)
		return -ENOMEM;
	rc = rename(path, o) ? -errno : 0;
	*kept = !rc;
	free(o);
	return rc;
}

/* Gives the file of fd (named tmp, or unnamed) the name path, which is
 * free.  0 or -errno. */
static int link_in(int fd, const char *tmp, const char *path)
{
	if (tmp)
		return rename(tmp, path) ? -errno : 0;
	char self[64];
	snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
	if (!linkat(AT_FDCWD, self, AT_FDCWD, path, AT_SYMLINK_FOLLOW))
		return 0;
	int err = errno;
	/* without /proc: the fd itself (CAP_DAC_READ_SEARCH) */
	if (!linkat(fd, "", AT_FDCWD, path, AT_EMPTY_PATH))
		return 0;
	return -err;
}

int pd_place(int fd, char **tmp, const char *path)
{
	bool kept;
	int rc = make_room(path, &kept);
	if (!rc && (rc = link_in(fd, *tmp, path)) && kept) {
		char *o;    /* put the old one back where it was */
		if (asprintf(&o, "%s.old", path) >= 0) {
			if (rename(o, path))
				lp_log(LP_WARN, "%s: kept as %s.old: the new recording could not "
				       "take its place", path, path);
			free(o);
		}
	}
	if (!rc) {
		free(*tmp);
		*tmp = NULL;
	}
	return rc;
}

void pd_discard(char **tmp)
{
	if (*tmp)
		unlink(*tmp);
	free(*tmp);
	*tmp = NULL;
}
