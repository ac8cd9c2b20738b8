/*
 * lscript.c - finding scripts and the Lua library.
 *
 * The installed layout is PREFIX/bin/luaprof, PREFIX/share/luaprof/scripts,
 * PREFIX/share/luaprof/lua (the public modules) and
 * PREFIX/share/luaprof/helpers (the shipped scripts' own modules); a
 * checkout has ./luaprof, ./scripts, ./lua/lib and ./lua/helpers.  Both are found from the running binary (/proc/self/exe), so
 * no environment variable is needed.  The current directory is not
 * searched: a bare NAME.lua that is a file there is that file, named by
 * the user as `lua NAME.lua` takes it (issue 32), and a bare name without
 * .lua (top) is only ever looked for in the directories below, so that a
 * root user is not made to run a top.lua someone left in a directory;
 * require never looks there.
 *
 * Trust: a bare NAME runs code found in directories the caller did not
 * name, often as root (sudo -E, or HOME left at another user's home).  So
 * a directory of $LUAPROF_PATH or ~/.local/share/luaprof/scripts, and the
 * script found there, are used only when each belongs to luaprof's
 * effective user or root and neither group nor others may write to it, as
 * the kallsyms cache's directories (core/sym/kcache.c) and ssh's
 * StrictModes: the directory's parents up to / too (a directory of the
 * path can be replaced by whoever may write to its parent), where a
 * root-owned directory with the sticky bit (/tmp) is allowed.  What fails
 * is skipped with one line on stderr naming it and why, and the search goes
 * on (the shipped script of that name runs).  $LUAPROF_PATH gets the same
 * rule: naming a directory in it says "my scripts are here", not "run
 * whatever anyone may put here".  The shipped scripts' directory is
 * luaprof's own, trusted as its binary is.  A path (./NAME, /dir/NAME.lua)
 * is run as given: the caller chose the file.
 */
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lualib.h>

#include "lp.h"
#include "lscript.h"
#include "luaprof/luaprof.h"


static bool is_dir(const char *p)
{
	struct stat st;
	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

static bool is_file(const char *p)
{
	struct stat st;
	return !stat(p, &st) && S_ISREG(st.st_mode);
}

/* The directory of the running binary, resolved; "" when unknown. */
static const char *exe_dir(void)
{
	static char dir[PATH_MAX];
	if (!dir[0]) {
		ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
		dir[n > 0 ? n : 0] = '\0';
		char *slash = strrchr(dir, '/');
		if (slash)
			*slash = '\0';
	}
	return dir;
}

/* PREFIX/share/luaprof/SUB when the binary is PREFIX/bin/luaprof, else
 * the checkout's CHECKOUT_SUB; false when neither is a directory. */
static bool data_dir(const char *sub, const char *checkout_sub, char *out, size_t size)
{
	const char *d = exe_dir();
	size_t n = strlen(d);
	if (n >= 4 && !strcmp(d + n - 4, "/bin")) {
		snprintf(out, size, "%.*s/share/luaprof/%s", (int)(n - 4), d, sub);
		if (is_dir(out))
			return true;
	}
	char marker[PATH_MAX];
	int k = snprintf(out, size, "%s/%s", d, checkout_sub);
	int m = snprintf(marker, sizeof marker, "%s/lua/lib/luaprof", d);
	if (k < 0 || (size_t)k >= size || m < 0 || (size_t)m >= sizeof marker)
		return false;           /* a path too long is no directory of ours */
	return is_dir(out) && is_dir(marker);
}

const char *lp_script_libdir(void)
{
	static char dir[PATH_MAX];
	static int found = -1;
	if (found < 0)
		found = data_dir("lua", "lua/lib", dir, sizeof dir);
	return found ? dir : NULL;
}

const char *lp_script_helperdir(void)
{
	static char dir[PATH_MAX];
	static int found = -1;
	if (found < 0)
		found = data_dir("helpers", "lua/helpers", dir, sizeof dir);
	return found ? dir : NULL;
}

/* Whether the script (resolved: dir) is one of luaprof's own: its
 * directory is the shipped scripts directory. */
static bool shipped(const char *dir)
{
	char scripts[PATH_MAX], real[PATH_MAX];
	return data_dir("scripts", "scripts", scripts, sizeof scripts) &&
	       realpath(scripts, real) && !strcmp(real, dir);
}

/* Why a file or directory of status st may not hold code luaprof runs:
 * into why (NULL: it may).  It must belong to the effective user or root
 * and be writable by neither group nor others; a parent directory
 * (parent set) may instead be root's with the sticky bit, as /tmp. */
static const char *distrust(const struct stat *st, bool parent, char *why, size_t size)
{
	uid_t me = geteuid();
	if (st->st_uid != me && st->st_uid != 0)
		return snprintf(why, size, "it belongs to uid %u, not to luaprof's user (uid %u) "
				"or root", (unsigned)st->st_uid, (unsigned)me), why;
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) &&
	    !(parent && st->st_uid == 0 && (st->st_mode & S_ISVTX)))
		return snprintf(why, size, "%s can write to it (chmod go-w)",
				(st->st_mode & S_IWOTH) ? "anyone" : "its group"), why;
	return NULL;
}

/* Whether the scripts' directory dir (an existing one) and its parents
 * may be used; else one line says which is not and why. */
static bool dir_trusted(const char *dir)
{
	char p[PATH_MAX], why[160];
	if (!realpath(dir, p))
		return false;
	for (bool self = true;; self = false) {
		const char *path = *p ? p : "/";
		struct stat st;
		const char *bad = stat(path, &st) ? strerror(errno) :
				  distrust(&st, !self, why, sizeof why);
		if (bad) {
			fprintf(stderr, "luaprof: not looking for scripts in %s: %s%s%s\n", dir,
				self ? "" : path, self ? "" : ": ", bad);
			return false;
		}
		if (!*p)
			return true;
		*strrchr(p, '/') = '\0';     /* "/a/b" -> "/a" -> "" ("/") */
	}
}

/* Adds the directory p (n bytes): the shipped one as it is, another when
 * it exists and may be trusted (dir_trusted). */
static void add_dir(struct lp_script_dirs *d, const char *p, size_t n, bool own)
{
	char dir[PATH_MAX];
	if (d->n >= LP_SCRIPT_MAX_DIRS || !n || n >= PATH_MAX)
		return;
	snprintf(dir, sizeof dir, "%.*s", (int)n, p);
	if (own || (is_dir(dir) && dir_trusted(dir))) {
		snprintf(d->path[d->n], PATH_MAX, "%s", dir);
		d->shipped[d->n++] = own;
	}
}

static const char *home(void)
{
	const char *h = getenv("HOME");
	if (h && *h)
		return h;
	struct passwd *pw = getpwuid(getuid());
	return pw ? pw->pw_dir : NULL;
}

void lp_script_dirs(struct lp_script_dirs *d)
{
	char p[PATH_MAX];
	const char *env = getenv("LUAPROF_PATH");
	d->n = 0;
	for (const char *s = env; s && *s;) {
		size_t n = strcspn(s, ":");
		add_dir(d, s, n, false);
		s += n + (s[n] == ':');
	}
	if (home()) {
		snprintf(p, sizeof p, "%s/.local/share/luaprof/scripts", home());
		add_dir(d, p, strlen(p), false);
	}
	if (data_dir("scripts", "scripts", p, sizeof p))
		add_dir(d, p, strlen(p), true);
}

bool lp_script_file_trusted(const char *path)
{
	char why[160];
	struct stat st;
	const char *bad = stat(path, &st) ? strerror(errno) : distrust(&st, false, why, sizeof why);
	if (bad)
		fprintf(stderr, "luaprof: not running %s: %s\n", path, bad);
	return !bad;
}

/* dir/name, or dir/name.lua for a name without the suffix, when it may
 * be run: a shipped one (own), or one lp_script_file_trusted accepts. */
static bool try_dir(const char *dir, bool own, const char *name, char *out, size_t size)
{
	size_t n = strlen(name);
	bool has_lua = n > 4 && !strcmp(name + n - 4, ".lua");
	if (!has_lua) {
		snprintf(out, size, "%s/%s.lua", dir, name);
		if (is_file(out))
			return own || lp_script_file_trusted(out);
	}
	snprintf(out, size, "%s/%s", dir, name);
	return is_file(out) && (own || lp_script_file_trusted(out));
}

/* Whether arg is a bare NAME.lua naming a regular file in the current
 * directory: the user named that file, as `lua NAME.lua` does. */
static bool local_file(const char *arg)
{
	size_t n = strlen(arg);
	return n > 4 && !strcmp(arg + n - 4, ".lua") && is_file(arg);
}

int lp_script_find(const char *arg, char *out, size_t size, char *err, size_t errsz)
{
	if (strchr(arg, '/') || local_file(arg)) {
		if ((size_t)snprintf(out, size, "%s", arg) < size)
			return 0;
		snprintf(err, errsz, "cannot open the script %s: %s", LP_SHOW(arg),
			 strerror(ENAMETOOLONG));
		return -1;
	}
	struct lp_script_dirs *d = malloc(sizeof *d);
	if (!d)
		return snprintf(err, errsz, "out of memory"), -1;
	lp_script_dirs(d);
	for (size_t i = 0; i < d->n; i++) {
		if (try_dir(d->path[i], d->shipped[i], arg, out, size)) {
			free(d);
			return 0;
		}
	}
	free(d);
	size_t n = strlen(arg);
	if (n > 4 && !strcmp(arg + n - 4, ".lua"))
		snprintf(err, errsz, "no script '%s' in the current directory, $LUAPROF_PATH, "
			 "~/.local/share/luaprof/scripts or luaprof's scripts (see 'luaprof list "
			 "scripts')", LP_SHOW(arg));
	else
		snprintf(err, errsz, "no script '%s' in $LUAPROF_PATH, ~/.local/share/luaprof/scripts "
			 "or luaprof's scripts (see 'luaprof list scripts'); a file in the current "
			 "directory is run as ./%s", LP_SHOW(arg), LP_SHOW(arg));
	return -1;
}

bool lp_script_is_shipped(const char *script)
{
	char dir[PATH_MAX], *slash;
	if (!realpath(script, dir))
		return false;
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	return shipped(dir);
}

/* ------------------------------------------------------------ require */

/* Appends the entries of Lua's default path that are not relative to the
 * current directory. */
static void add_absolute(luaL_Buffer *b, const char *path)
{
	for (const char *s = path; *s;) {
		size_t n = strcspn(s, ";");
		if (n && s[0] == '/') {
			luaL_addlstring(b, s, n);
			luaL_addchar(b, ';');
		}
		s += n + (s[n] == ';');
	}
}

void lp_script_set_path(lua_State *L, const char *script)
{
	char dir[PATH_MAX], *slash;
	if (!realpath(script, dir))
		snprintf(dir, sizeof dir, "%s", script);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	const char *lib = lp_script_libdir();
	lua_getglobal(L, "package");
	luaL_Buffer b;
	luaL_buffinit(L, &b);
	lua_pushfstring(L, "%s/?.lua;%s/?/init.lua;", dir, dir);
	luaL_addvalue(&b);
	if (lib) {
		lua_pushfstring(L, "%s/?.lua;%s/?/init.lua;", lib, lib);
		luaL_addvalue(&b);
	}
	const char *helpers = lp_script_helperdir();
	if (helpers && shipped(dir)) {
		lua_pushfstring(L, "%s/?.lua;", helpers);
		luaL_addvalue(&b);
	}
	add_absolute(&b, LUA_PATH_DEFAULT);
	luaL_pushresult(&b);
	lua_setfield(L, -2, "path");
	luaL_buffinit(L, &b);
	add_absolute(&b, LUA_CPATH_DEFAULT);
	luaL_pushresult(&b);
	lua_setfield(L, -2, "cpath");
	lua_pop(L, 1);
}
