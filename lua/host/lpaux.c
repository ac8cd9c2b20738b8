/*
 * lpaux.c - helpers the bindings and the C modules share, as Lua's lauxlib
 * serves its libraries: writing a file whole (lp_stacks_each, declared in
 * lpaux.h, is lstacks.c's).  Nothing here calls back into a binding.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <lauxlib.h>

#include "lp.h"
#include "lpaux.h"
#include "luaprof/luaprof.h"

/* One chunk of data: lp_lib_write_file's producer. */
struct whole {
	const char *data;
	size_t len;
};

static bool put_whole(void *ctx, FILE *f)
{
	const struct whole *w = ctx;
	return fwrite(w->data, 1, w->len, f) == w->len;
}

/* Writes to what path already is when that is no regular file (/dev/null,
 * /dev/stdout, a FIFO): a temporary file renamed over it would replace a
 * device node with a file. */
static void write_special(lua_State *L, const char *path, lp_lib_producer put, void *ctx)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		luaL_error(L, "cannot open %s: %s", LP_SHOW(path), strerror(errno));
	bool ok = put(ctx, f);
	int err = errno;
	if (fclose(f) || !ok)
		luaL_error(L, "cannot write %s: %s", LP_SHOW(path), strerror(ok ? errno : err));
}

void lp_lib_write_with(lua_State *L, const char *path, lp_lib_producer put, void *ctx)
{
	struct stat st;
	if (!strcmp(path, "-")) {
		if (!put(ctx, stdout) || fflush(stdout))
			luaL_error(L, "cannot write to standard output: %s", strerror(errno));
		return;
	}
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		write_special(L, path, put, ctx);
		return;
	}
	char tmp[4096];
	if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid()) >= sizeof tmp)
		luaL_error(L, "cannot create %s: %s", LP_SHOW(path), strerror(ENAMETOOLONG));
	FILE *f = fopen(tmp, "wb");
	if (!f)
		luaL_error(L, "cannot create %s: %s", LP_SHOW(path), strerror(errno));
	bool ok = put(ctx, f);
	int err = errno;
	if (fclose(f) || !ok || rename(tmp, path)) {
		err = ok ? errno : err;
		unlink(tmp);
		luaL_error(L, "cannot write %s: %s", LP_SHOW(path), strerror(err));
	}
}

void lp_lib_write_file(lua_State *L, const char *path, const char *data, size_t len)
{
	struct whole w = { data, len };
	lp_lib_write_with(L, path, put_whole, &w);
}

void lp_push_strings(lua_State *L, const char *const *v, size_t n)
{
	lua_createtable(L, n < INT_MAX ? (int)n : 0, 0);
	for (size_t i = 0; i < n; i++) {
		lua_pushstring(L, v[i]);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
}

void lp_sort_sequence(lua_State *L, int idx)
{
	idx = lua_absindex(L, idx);
	lua_getglobal(L, "table");
	lua_getfield(L, -1, "sort");
	lua_pushvalue(L, idx);
	lua_call(L, 1, 0);
	lua_pop(L, 1);
}
