/*
 * lscript.h - internal to lua/: where scripts and luaprof's Lua library
 * are found.
 */
#ifndef LP_LSCRIPT_H
#define LP_LSCRIPT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include <lua.h>

/* Resolves a script argument to a file: a name with a '/' is a path, as
 * given, and so is a bare NAME.lua that is a file in the current
 * directory; another bare name (NAME or NAME.lua) is looked for in
 * $LUAPROF_PATH (colon-separated), ~/.local/share/luaprof/scripts, the
 * installed scripts directory, then the checkout's scripts/ (when luaprof
 * runs from a checkout) - never in the current directory.  A directory or file that
 * another user could have put there is skipped, with one line on stderr
 * (see lp_script_dirs, lp_script_file_trusted).  Returns 0 with the path
 * in out, or -1 after writing one line (no "luaprof: " prefix) into err. */
int lp_script_find(const char *arg, char *out, size_t size, char *err, size_t errsz);

/* luaprof's own Lua library directory (holding luaprof/NAME.lua): the
 * installed one, or the checkout's lua/lib; NULL when neither exists. */
const char *lp_script_libdir(void);

/* The directory of the shipped scripts' helpers (NAME.lua: modules that
 * only luaprof's own scripts may require): the installed one, or the
 * checkout's lua/helpers; NULL when neither exists. */
const char *lp_script_helperdir(void);

/* Sets package.path to the script's directory, luaprof's library, the
 * helpers' directory when the script is one of luaprof's own (in the
 * shipped scripts directory), then
 * Lua's default directories, leaving out every entry relative to the
 * current directory ("./?.lua"); package.cpath likewise.  The environment
 * (LUA_PATH, LUA_CPATH) is not read.  Call after luaL_openlibs. */
void lp_script_set_path(lua_State *L, const char *script);

/* Whether the script at path is one of luaprof's own (it lies in the
 * shipped scripts directory). */
bool lp_script_is_shipped(const char *script);

/* Whether the script at path may be run when found by its bare name: it
 * belongs to luaprof's effective user or root, and neither group nor
 * others may write to it; else false after one line on stderr naming it
 * and why. */
bool lp_script_file_trusted(const char *path);

/* The directories scripts are looked for in, in lp_script_find's order
 * (at most LP_SCRIPT_MAX_DIRS): those of $LUAPROF_PATH and
 * ~/.local/share/luaprof/scripts only when they exist and they and their
 * parents belong to luaprof's effective user or root and neither group nor
 * others may write to them (a root-owned parent with the sticky bit, as
 * /tmp, excepted); each one left out gets one line on stderr saying why. */
#define LP_SCRIPT_MAX_DIRS 32
struct lp_script_dirs {
	char path[LP_SCRIPT_MAX_DIRS][PATH_MAX];
	bool shipped[LP_SCRIPT_MAX_DIRS];       /* luaprof's own scripts: not checked */
	size_t n;
};
void lp_script_dirs(struct lp_script_dirs *d);

#endif
