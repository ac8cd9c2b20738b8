/*
 * lfields.c - typos are errors: what a hook is handed (the sample s, the
 * records t, on_start's info) knows its own field names, and reading any
 * other name raises an error listing the valid ones, while a known field
 * that has no value in this record reads as nil.  Only a miss runs this
 * code: a field that is present is a plain read (tables) or its binding's
 * own switch (the views of lsample.c and lswitch.c).
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "lfields.h"
#include "luaprof/luaprof.h"

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int lp_fields_error(lua_State *L, const struct lp_fieldset *fs, int key_idx)
{
	const char *sorted[64];
	size_t n = fs->n < 64 ? fs->n : 64;
	memcpy(sorted, fs->names, n * sizeof sorted[0]);
	qsort(sorted, n, sizeof sorted[0], by_name);
	const char *key = lua_type(L, key_idx) == LUA_TSTRING ? lua_tostring(L, key_idx) :
			  luaL_tolstring(L, key_idx, NULL);
	luaL_Buffer b;
	luaL_buffinit(L, &b);
	luaL_where(L, 1);               /* the Lua code that read the field */
	luaL_addvalue(&b);
	lua_pushfstring(L, "%s.%s: no such field of %s; fields are: ", fs->var, LP_SHOW(key),
			fs->what);
	luaL_addvalue(&b);
	for (size_t i = 0; i < n; i++) {
		luaL_addstring(&b, sorted[i]);
		luaL_addstring(&b, i + 1 < n ? ", " : "");
	}
	luaL_pushresult(&b);
	return lua_error(L);
}

/* __index of a strict table: upvalue 1 the set of known names, 2 the
 * field set. */
static int strict_index(lua_State *L)
{
	lua_pushvalue(L, 2);
	if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL)
		return lua_pushnil(L), 1;       /* known, no value here */
	return lp_fields_error(L, lua_touserdata(L, lua_upvalueindex(2)), 2);
}

void lp_fields_set_strict(lua_State *L, const struct lp_fieldset *fs)
{
	if (lua_rawgetp(L, LUA_REGISTRYINDEX, fs) != LUA_TTABLE) {
		lua_pop(L, 1);
		lua_createtable(L, 0, 1);
		lua_createtable(L, 0, (int)fs->n);
		for (size_t i = 0; i < fs->n; i++) {
			lua_pushboolean(L, 1);
			lua_setfield(L, -2, fs->names[i]);
		}
		lua_pushlightuserdata(L, (void *)(uintptr_t)fs);
		lua_pushcclosure(L, strict_index, 2);
		lua_setfield(L, -2, "__index");
		lua_pushvalue(L, -1);
		lua_rawsetp(L, LUA_REGISTRYINDEX, fs);
	}
	lua_setmetatable(L, -2);
}

#define NAME_MAX_LEN 64         /* longer names are not compared */

/* The Damerau-Levenshtein distance (an adjacent swap costs one) of a and
 * b, case aside; both at most NAME_MAX_LEN bytes. */
static size_t distance(const char *a, size_t la, const char *b, size_t lb)
{
	size_t d[NAME_MAX_LEN + 1][NAME_MAX_LEN + 1];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++) {
		int ai = tolower((unsigned char)a[i - 1]);
		for (size_t j = 1; j <= lb; j++) {
			int bj = tolower((unsigned char)b[j - 1]);
			size_t v = d[i - 1][j - 1] + (ai != bj);
			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && ai == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == bj && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	}
	return d[la][lb];
}

const char *lp_closest(const char *name, const char *const *names, size_t n)
{
	size_t la = strlen(name), limit = la / 3 > 1 ? la / 3 : 1, best_d = 0;
	const char *best = NULL;
	if (la > NAME_MAX_LEN)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		size_t lb = names[i] ? strlen(names[i]) : 0;
		if (!lb || lb > NAME_MAX_LEN || (la > lb + limit) || (lb > la + limit))
			continue;
		size_t d = distance(name, la, names[i], lb);
		if (d <= limit && d < lb &&
		    (!best || d < best_d || (d == best_d && strcmp(names[i], best) < 0))) {
			best = names[i];
			best_d = d;
		}
	}
	return best;
}
