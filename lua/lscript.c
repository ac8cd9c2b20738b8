/*
 * lscript.c - finding scripts and the Lua library, and listing scripts.
 *
 * The installed layout is PREFIX/bin/luaprof, PREFIX/share/luaprof/scripts
 * and PREFIX/share/luaprof/lua; a checkout has ./luaprof, ./scripts and
 * ./lua/lib.  Both are found from the running binary (/proc/self/exe), so
 * no environment variable is needed.  The current directory is never
 * searched: a script there is named ./NAME, and require never looks there,
 * so that a root user is not made to run files someone left in a
 * directory.
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

#include "cli.h"
#include "lp.h"
#include "lscript.h"

#define MAX_DIRS 32

struct dirs {
	char path[MAX_DIRS][PATH_MAX];
	size_t n;
};

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

static void add_dir(struct dirs *d, const char *p, size_t n)
{
	if (d->n < MAX_DIRS && n && n < PATH_MAX)
		snprintf(d->path[d->n++], PATH_MAX, "%.*s", (int)n, p);
}

static const char *home(void)
{
	const char *h = getenv("HOME");
	if (h && *h)
		return h;
	struct passwd *pw = getpwuid(getuid());
	return pw ? pw->pw_dir : NULL;
}

/* The search order, as documented in lp_script_find. */
static void search_dirs(struct dirs *d)
{
	char p[PATH_MAX];
	const char *env = getenv("LUAPROF_PATH");
	d->n = 0;
	for (const char *s = env; s && *s;) {
		size_t n = strcspn(s, ":");
		add_dir(d, s, n);
		s += n + (s[n] == ':');
	}
	if (home()) {
		snprintf(p, sizeof p, "%s/.local/share/luaprof/scripts", home());
		add_dir(d, p, strlen(p));
	}
	if (data_dir("scripts", "scripts", p, sizeof p))
		add_dir(d, p, strlen(p));
}

/* dir/name, or dir/name.lua for a name without the suffix. */
static bool try_dir(const char *dir, const char *name, char *out, size_t size)
{
	size_t n = strlen(name);
	bool has_lua = n > 4 && !strcmp(name + n - 4, ".lua");
	if (!has_lua) {
		snprintf(out, size, "%s/%s.lua", dir, name);
		if (is_file(out))
			return true;
	}
	snprintf(out, size, "%s/%s", dir, name);
	return is_file(out);
}

int lp_script_find(const char *arg, char *out, size_t size, char *err, size_t errsz)
{
	if (strchr(arg, '/')) {
		snprintf(out, size, "%s", arg);
		return 0;
	}
	struct dirs *d = malloc(sizeof *d);
	if (!d)
		return snprintf(err, errsz, "out of memory"), -1;
	search_dirs(d);
	for (size_t i = 0; i < d->n; i++) {
		if (try_dir(d->path[i], arg, out, size)) {
			free(d);
			return 0;
		}
	}
	free(d);
	snprintf(err, errsz, "no script '%s' in $LUAPROF_PATH, ~/.local/share/luaprof/scripts or "
		 "luaprof's scripts (see 'luaprof list scripts'); a file in the current "
		 "directory is run as ./%s", arg, arg);
	return -1;
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
	add_absolute(&b, LUA_PATH_DEFAULT);
	luaL_pushresult(&b);
	lua_setfield(L, -2, "path");
	luaL_buffinit(L, &b);
	add_absolute(&b, LUA_CPATH_DEFAULT);
	luaL_pushresult(&b);
	lua_setfield(L, -2, "cpath");
	lua_pop(L, 1);
}

/* ------------------------------------------------------------ listing */

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.lua names in dir, sorted (malloc'd array of malloc'd strings). */
static char **lua_files(const char *dir, size_t *n)
{
	DIR *d = opendir(dir);
	char **v = NULL;
	size_t cap = 0;
	*n = 0;
	for (struct dirent *e; d && (e = readdir(d));) {
		size_t len = strlen(e->d_name);
		if (len <= 4 || strcmp(e->d_name + len - 4, ".lua") || e->d_name[0] == '.')
			continue;
		if (*n == cap) {
			char **nv = realloc(v, (cap = cap ? 2 * cap : 16) * sizeof *v);
			if (!nv)
				break;
			v = nv;
		}
		v[(*n)++] = strndup(e->d_name, len - 4);
	}
	if (d)
		closedir(d);
	if (v)
		qsort(v, *n, sizeof *v, by_name);
	return v;
}

/* The script's description: its top level runs until luaprof.options. */
static void describe(const char *path, char *out, size_t size)
{
	struct lp_cli cli = { .command = "run" };
	struct lp_run run = { .ref_on_sample = LUA_NOREF, .ref_on_end = LUA_NOREF,
			      .ref_on_start = LUA_NOREF, .cli = &cli, .mode = LP_MODE_DESCRIBE };
	int rc = lp_vm_open(&run, path, NULL, 0);
	if (run.description)
		snprintf(out, size, "%s", run.description);
	else
		snprintf(out, size, rc < 0 ? "(does not load: see the error above)" :
			 "(no description: the script does not call luaprof.options)");
	free(run.description);
	lp_vm_close(&run);
}

static bool seen_name(char **seen, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(seen[i], name))
			return true;
	return false;
}

int lp_list_scripts(void)
{
	struct dirs *d = malloc(sizeof *d);
	char **seen = NULL, desc[512], path[PATH_MAX];
	size_t nseen = 0, headers = 0;
	if (!d)
		return LP_EXIT_FAILURE;
	search_dirs(d);
	for (size_t i = 0; i < d->n; i++) {
		size_t n;
		char **names = lua_files(d->path[i], &n);
		bool header = false;
		for (size_t k = 0; k < n; k++) {
			char **ns = seen_name(seen, nseen, names[k]) ? NULL :
				    realloc(seen, (nseen + 1) * sizeof *seen);
			if (!ns) {
				free(names[k]);
				continue;
			}
			seen = ns;
			seen[nseen++] = names[k];
			if (!header)
				printf("%s%s:\n", headers++ ? "\n" : "", d->path[i]);
			header = true;
			snprintf(path, sizeof path, "%s/%s.lua", d->path[i], names[k]);
			fflush(stdout);
			describe(path, desc, sizeof desc);
			printf("  %-16s %s\n", names[k], desc);
		}
		free(names);
	}
	for (size_t i = 0; i < nseen; i++)
		free(seen[i]);
	free(seen);
	free(d);
	return 0;
}
