/*
 * lfields.h - internal to lua/: the field names of what a hook is handed
 * (s, t, info), so that reading a field that does not exist is an error
 * naming it and the valid ones, while a known field with no value reads
 * as nil (lfields.c).
 */
#ifndef LP_LFIELDS_H
#define LP_LFIELDS_H

#include <stddef.h>

#include <lua.h>

/* The fields of one kind of value: var is its name in the manual ("s",
 * "t", "info"), what a phrase for the error ("a sample"), names[0..n-1]
 * every field it may have. */
struct lp_fieldset {
	const char *var;
	const char *what;
	const char *const *names;
	size_t n;
};

#define LP_FIELDSET(var, what, names) \
	{ (var), (what), (names), sizeof(names) / sizeof((names)[0]) }

/* Raises "VAR.KEY: no such field of WHAT; fields are: A, B, ..." (the
 * names sorted), KEY being the value at key_idx, located at the Lua code
 * that read it.  Does not return. */
int lp_fields_error(lua_State *L, const struct lp_fieldset *fs, int key_idx);

/* Gives the table on top of the stack fs's metatable (made once per Lua
 * state): reading a field of fs's that the table lacks is nil, any other
 * missing key is lp_fields_error's error.  Costs a registry lookup. */
void lp_fields_set_strict(lua_State *L, const struct lp_fieldset *fs);

/* The name among names[0..n-1] closest to name, when one is close enough
 * to be what was meant, else NULL: the Damerau-Levenshtein distance of
 * the two, case aside, at most a third of name's length (at least 1) and
 * less than the candidate's length, the smallest such (the first in
 * alphabetical order on a tie), as the one-liners' "did you mean"
 * (olplan.lua's closest).  A NULL entry of names is skipped. */
const char *lp_closest(const char *name, const char *const *names, size_t n);

#endif
