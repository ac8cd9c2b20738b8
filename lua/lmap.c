/*
 * lmap.c - luaprof.map(): a counting map in C.
 *
 *   local m = luaprof.map()
 *   m:add(key [, n])       key: a string, an integer, or a tuple {a, b, ...}
 *   m:get(key)             its count (0 when absent)
 *   m:total(), #m, m:clear()
 *   for k, n in m:sorted([by [, limit]]) do ... end   by "value" (default,
 *                          largest first, ties by key) or "key"
 *   m:top(n)               { {key, count}, ... }, largest first
 *   pairs(m)               as m:sorted()
 *
 * Keys are encoded to bytes in a core hash map (luaprof/hmap.h): a string
 * as itself (prefixed "\0s" only when it starts with a NUL byte), an
 * integer as "\0i" + 8 bytes, a tuple as "\0t" + its elements each tagged
 * (i/f + 8 bytes, s + 4-byte length + bytes, T/F).  So a string key costs a
 * hash and one probe, with no copy and no Lua allocation.  Counts are exact
 * integers until a fractional amount is added; the map then holds doubles.
 */
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "lmap.h"

#define MAX_TUPLE 16

struct lmap {
	struct lp_hmap *h;
	bool is_float;
	int64_t itotal;
	double ftotal;
	char *scratch;          /* encoded non-string keys */
	size_t cap, len;
};

/* ------------------------------------------------------------ keys */

static struct lmap *check_map(lua_State *L)
{
	struct lmap *m = lua_touserdata(L, 1);
	if (!m || !lua_getmetatable(L, 1) || !lua_rawequal(L, -1, lua_upvalueindex(1)))
		luaL_typeerror(L, 1, LP_MAP_MT);
	lua_pop(L, 1);
	if (!m->h)
		luaL_error(L, "map used after it was freed");
	return m;
}

static void put(lua_State *L, struct lmap *m, const void *p, size_t n)
{
	if (m->len + n > m->cap) {
		size_t cap = m->cap ? m->cap : 256;
		while (cap < m->len + n)
			cap *= 2;
		char *s = realloc(m->scratch, cap);
		if (!s)
			luaL_error(L, "out of memory");
		m->scratch = s;
		m->cap = cap;
	}
	memcpy(m->scratch + m->len, p, n);
	m->len += n;
}

static void put_tag(lua_State *L, struct lmap *m, char tag, const void *p, size_t n)
{
	put(L, m, &tag, 1);
	put(L, m, p, n);
}

static void put_element(lua_State *L, struct lmap *m, int idx)
{
	switch (lua_type(L, idx)) {
	case LUA_TNUMBER:
		if (lua_isinteger(L, idx)) {
			lua_Integer v = lua_tointeger(L, idx);
			put_tag(L, m, 'i', &v, sizeof v);
		} else {
			lua_Number v = lua_tonumber(L, idx);
			put_tag(L, m, 'f', &v, sizeof v);
		}
		return;
	case LUA_TSTRING: {
		size_t n;
		const char *s = lua_tolstring(L, idx, &n);
		uint32_t n32 = (uint32_t)n;
		put_tag(L, m, 's', &n32, sizeof n32);
		put(L, m, s, n);
		return;
	}
	case LUA_TBOOLEAN:
		put_tag(L, m, lua_toboolean(L, idx) ? 'T' : 'F', NULL, 0);
		return;
	default:
		luaL_error(L, "map key: a tuple holds strings, numbers and booleans, not %s",
			   luaL_typename(L, idx));
	}
}

/* The encoded key of the value at idx (borrowed: the Lua string, or the
 * map's scratch buffer until the next encode). */
static const char *encode(lua_State *L, struct lmap *m, int idx, size_t *n)
{
	int t = lua_type(L, idx);
	if (t == LUA_TSTRING) {
		const char *s = lua_tolstring(L, idx, n);
		if (*n == 0 || s[0] != '\0')
			return s;
	} else if (t != LUA_TNUMBER && t != LUA_TTABLE) {
		luaL_typeerror(L, idx, "string, integer or tuple");
	}
	m->len = 0;
	if (t == LUA_TTABLE) {
		lua_Integer len = luaL_len(L, idx);
		if (len < 1 || len > MAX_TUPLE)
			luaL_error(L, "map key: a tuple has 1 to %d elements", MAX_TUPLE);
		put_tag(L, m, '\0', "t", 1);
		for (lua_Integer i = 1; i <= len; i++) {
			lua_rawgeti(L, idx, i);
			put_element(L, m, -1);
			lua_pop(L, 1);
		}
	} else {
		put(L, m, "", 1);
		put_element(L, m, idx);
	}
	*n = m->len;
	return m->scratch;
}

/* Pushes the Lua value of an encoded element at p; returns its size. */
static size_t push_element(lua_State *L, const char *p)
{
	lua_Integer i;
	lua_Number f;
	uint32_t n;
	switch (p[0]) {
	case 'i': memcpy(&i, p + 1, 8); lua_pushinteger(L, i); return 9;
	case 'f': memcpy(&f, p + 1, 8); lua_pushnumber(L, f); return 9;
	case 's': memcpy(&n, p + 1, 4); lua_pushlstring(L, p + 5, n); return 5 + n;
	case 'T': lua_pushboolean(L, 1); return 1;
	default: lua_pushboolean(L, 0); return 1;
	}
}

static void push_key(lua_State *L, const char *k, size_t n)
{
	if (n == 0 || k[0] != '\0') {
		lua_pushlstring(L, k, n);
	} else if (k[1] != 't') {
		push_element(L, k + 1);
	} else {
		lua_createtable(L, 4, 0);
		size_t off = 2;
		for (int i = 1; off < n; i++) {
			off += push_element(L, k + off);
			lua_rawseti(L, -2, i);
		}
	}
}

/* ---------------------------------------------------------- values */

double lp_lmap_value(struct lp_hmap *h, bool is_float, size_t i)
{
	uint64_t v = *lp_hmap_value(h, i);
	double d;
	if (!is_float)
		return (double)(int64_t)v;
	memcpy(&d, &v, sizeof d);
	return d;
}

static void push_value(lua_State *L, const struct lmap *m, size_t i)
{
	if (m->is_float)
		lua_pushnumber(L, lp_lmap_value(m->h, true, i));
	else
		lua_pushinteger(L, (lua_Integer)*lp_hmap_value(m->h, i));
}

static void to_float(struct lmap *m)
{
	for (size_t i = 0; i < lp_hmap_count(m->h); i++) {
		uint64_t *v = lp_hmap_value(m->h, i);
		double d = (double)(int64_t)*v;
		memcpy(v, &d, sizeof d);
	}
	m->ftotal = (double)m->itotal;
	m->is_float = true;
}

static int l_add(lua_State *L)
{
	struct lmap *m = check_map(L);
	size_t n;
	const char *k = encode(L, m, 2, &n);
	int isint = 1;
	lua_Integer by = lua_isnoneornil(L, 3) ? 1 : lua_tointegerx(L, 3, &isint);
	if (!isint && !m->is_float)
		to_float(m);
	int64_t i = lp_hmap_find(m->h, k, n, lp_hash(k, n), true, NULL);
	if (i < 0)
		return luaL_error(L, "out of memory");
	uint64_t *v = lp_hmap_value(m->h, (size_t)i);
	if (!m->is_float) {
		*v = (uint64_t)((int64_t)*v + by);
		m->itotal += by;
	} else {
		double d, add = isint ? (double)by : luaL_checknumber(L, 3);
		memcpy(&d, v, sizeof d);
		d += add;
		memcpy(v, &d, sizeof d);
		m->ftotal += add;
	}
	return 0;
}

static int l_get(lua_State *L)
{
	struct lmap *m = check_map(L);
	size_t n;
	const char *k = encode(L, m, 2, &n);
	int64_t i = lp_hmap_find(m->h, k, n, lp_hash(k, n), false, NULL);
	if (i < 0)
		m->is_float ? lua_pushnumber(L, 0) : lua_pushinteger(L, 0);
	else
		push_value(L, m, (size_t)i);
	return 1;
}

static int l_total(lua_State *L)
{
	struct lmap *m = check_map(L);
	m->is_float ? lua_pushnumber(L, m->ftotal) : lua_pushinteger(L, m->itotal);
	return 1;
}

static int l_len(lua_State *L)
{
	lua_pushinteger(L, (lua_Integer)lp_hmap_count(check_map(L)->h));
	return 1;
}

static int l_clear(lua_State *L)
{
	struct lmap *m = check_map(L);
	lp_hmap_clear(m->h);
	m->is_float = false;
	m->itotal = 0;
	m->ftotal = 0;
	return 0;
}

/* ---------------------------------------------------------- sorting */

static int kind(const char *k, size_t n)
{
	if (n == 0 || k[0] != '\0' || k[1] == 's')
		return 2;
	return k[1] == 't' ? 3 : 1;     /* numbers first, strings, tuples */
}

static double num_of(const char *p)
{
	double f;
	int64_t i;
	if (p[0] == 'f') {
		memcpy(&f, p + 1, 8);
		return f;
	}
	memcpy(&i, p + 1, 8);
	return (double)i;
}

static int cmp_bytes(const char *a, size_t na, const char *b, size_t nb)
{
	int c = memcmp(a, b, na < nb ? na : nb);
	return c ? c : (na > nb) - (na < nb);
}

static int cmp_tuple(const char *a, size_t na, const char *b, size_t nb)
{
	size_t i = 2, j = 2;
	while (i < na && j < nb) {
		int ka = a[i] == 's' ? 2 : a[i] == 'i' || a[i] == 'f' ? 1 : 0;
		int kb = b[j] == 's' ? 2 : b[j] == 'i' || b[j] == 'f' ? 1 : 0;
		if (ka != kb)
			return ka - kb;
		uint32_t la = 0, lb = 0;
		if (ka == 2) {
			memcpy(&la, a + i + 1, 4);
			memcpy(&lb, b + j + 1, 4);
			int c = cmp_bytes(a + i + 5, la, b + j + 5, lb);
			if (c)
				return c;
			i += 5 + la, j += 5 + lb;
			continue;
		}
		double x = ka ? num_of(a + i) : a[i] == 'T', y = kb ? num_of(b + j) : b[j] == 'T';
		if (x != y)
			return x < y ? -1 : 1;
		i += ka ? 9 : 1, j += kb ? 9 : 1;
	}
	return (i < na) - (j < nb);
}

static int cmp_keys(const char *a, size_t na, const char *b, size_t nb)
{
	int ka = kind(a, na), kb = kind(b, nb);
	if (ka != kb)
		return ka - kb;
	if (ka == 1) {
		double x = num_of(a + 1), y = num_of(b + 1);
		return (x > y) - (x < y);
	}
	if (ka == 3)
		return cmp_tuple(a, na, b, nb);
	if (na && a[0] == '\0')
		a += 2, na -= 2;
	if (nb && b[0] == '\0')
		b += 2, nb -= 2;
	return cmp_bytes(a, na, b, nb);
}

struct sort_ctx {
	struct lmap *m;
	bool by_key;
};

static int cmp_entries(const void *pa, const void *pb, void *arg)
{
	const struct sort_ctx *c = arg;
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb, na, nb;
	struct lp_hmap *h = c->m->h;
	if (!c->by_key) {
		double va = lp_lmap_value(h, c->m->is_float, a);
		double vb = lp_lmap_value(h, c->m->is_float, b);
		if (va != vb)
			return va > vb ? -1 : 1;
	}
	const char *ka = lp_hmap_key(h, a, &na), *kb = lp_hmap_key(h, b, &nb);
	return cmp_keys(ka, na, kb, nb);
}

/* Pushes a userdata holding the entries' numbers in order; returns them. */
static size_t *sorted(lua_State *L, struct lmap *m, bool key_order, size_t *count)
{
	size_t n = lp_hmap_count(m->h);
	size_t *idx = lua_newuserdatauv(L, (n ? n : 1) * sizeof *idx, 0);
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	struct sort_ctx c = { m, key_order };
	qsort_r(idx, n, sizeof *idx, cmp_entries, &c);
	*count = n;
	return idx;
}

static bool order_arg(lua_State *L, int arg)
{
	static const char *const orders[] = { "value", "key", NULL };
	return luaL_checkoption(L, arg, "value", orders) == 1;
}

/* Iterator: upvalues map, index userdata, count, position. */
static int sorted_next(lua_State *L)
{
	struct lmap *m = lua_touserdata(L, lua_upvalueindex(1));
	const size_t *idx = lua_touserdata(L, lua_upvalueindex(2));
	lua_Integer n = lua_tointeger(L, lua_upvalueindex(3));
	lua_Integer pos = lua_tointeger(L, lua_upvalueindex(4));
	if (pos >= n || !m->h || (size_t)n > lp_hmap_count(m->h))
		return 0;
	lua_pushinteger(L, pos + 1);
	lua_replace(L, lua_upvalueindex(4));
	size_t kn;
	const char *k = lp_hmap_key(m->h, idx[pos], &kn);
	push_key(L, k, kn);
	push_value(L, m, idx[pos]);
	return 2;
}

static int l_sorted(lua_State *L)
{
	struct lmap *m = check_map(L);
	bool key_order = order_arg(L, 2);
	lua_Integer limit = luaL_optinteger(L, 3, -1);
	size_t n;
	lua_settop(L, 1);
	sorted(L, m, key_order, &n);
	lua_pushinteger(L, limit >= 0 && (size_t)limit < n ? limit : (lua_Integer)n);
	lua_pushinteger(L, 0);
	lua_pushcclosure(L, sorted_next, 4);
	return 1;
}

static int l_pairs(lua_State *L)
{
	lua_settop(L, 1);
	return l_sorted(L);
}

static int l_top(lua_State *L)
{
	struct lmap *m = check_map(L);
	lua_Integer limit = luaL_checkinteger(L, 2);
	size_t n;
	const size_t *idx = sorted(L, m, false, &n);
	if (limit >= 0 && (size_t)limit < n)
		n = (size_t)limit;
	lua_createtable(L, (int)n, 0);
	for (size_t i = 0; i < n; i++) {
		size_t kn;
		const char *k = lp_hmap_key(m->h, idx[i], &kn);
		lua_createtable(L, 2, 0);
		push_key(L, k, kn);
		lua_rawseti(L, -2, 1);
		push_value(L, m, idx[i]);
		lua_rawseti(L, -2, 2);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	return 1;
}

static int l_gc(lua_State *L)
{
	struct lmap *m = luaL_checkudata(L, 1, LP_MAP_MT);
	lp_hmap_free(m->h);
	m->h = NULL;
	free(m->scratch);
	m->scratch = NULL;
	return 0;
}

static int l_tostring(lua_State *L)
{
	struct lmap *m = check_map(L);
	lua_pushfstring(L, "luaprof.map (%d keys)", (int)lp_hmap_count(m->h));
	return 1;
}

/* --------------------------------------------------- for other C code */

struct lp_hmap *lp_lmap_test(lua_State *L, int idx, bool *is_float)
{
	struct lmap *m = luaL_testudata(L, idx, LP_MAP_MT);
	if (!m || !m->h)
		return NULL;
	*is_float = m->is_float;
	return m->h;
}

const char *lp_lmap_string_key(const struct lp_hmap *h, size_t i, size_t *len)
{
	const char *k = lp_hmap_key(h, i, len);
	if (*len && k[0] == '\0') {
		if (*len < 2 || k[1] != 's')
			return NULL;
		*len -= 2;
		return k + 2;
	}
	return k;
}

static void each_table(lua_State *L, int idx, lp_lmap_fn fn, void *ctx, const char *what)
{
	lua_pushnil(L);
	while (lua_next(L, idx)) {
		if (lua_type(L, -2) == LUA_TSTRING) {
			size_t n;
			const char *k = lua_tolstring(L, -2, &n);
			if (!lua_isnumber(L, -1))
				luaL_error(L, "%s: the count of '%s' is not a number", what, k);
			if (fn(ctx, k, n, lua_tonumber(L, -1)))
				luaL_error(L, "%s: out of memory", what);
		}
		lua_pop(L, 1);
	}
}

void lp_lmap_each_string(lua_State *L, int idx, lp_lmap_fn fn, void *ctx, const char *what)
{
	bool fl;
	idx = lua_absindex(L, idx);
	struct lp_hmap *h = lp_lmap_test(L, idx, &fl);
	if (!h) {
		if (!lua_istable(L, idx))
			luaL_error(L, "%s: expected a luaprof.map or a table of stack -> count, got %s",
				   what, luaL_typename(L, idx));
		each_table(L, idx, fn, ctx, what);
		return;
	}
	for (size_t i = 0; i < lp_hmap_count(h); i++) {
		size_t n;
		const char *k = lp_lmap_string_key(h, i, &n);
		if (k && fn(ctx, k, n, lp_lmap_value(h, fl, i)))
			luaL_error(L, "%s: out of memory", what);
	}
}

/* ------------------------------------------------------------ open */

static int l_new(lua_State *L)
{
	struct lmap *m = lua_newuserdatauv(L, sizeof *m, 0);
	memset(m, 0, sizeof *m);
	luaL_setmetatable(L, LP_MAP_MT);
	if (!(m->h = lp_hmap_new()))
		return luaL_error(L, "out of memory");
	return 1;
}

static const luaL_Reg methods[] = {
	{ "add", l_add }, { "get", l_get }, { "total", l_total }, { "count", l_len },
	{ "clear", l_clear }, { "sorted", l_sorted }, { "top", l_top }, { NULL, NULL },
};

static const luaL_Reg metamethods[] = {
	{ "__len", l_len }, { "__pairs", l_pairs }, { "__gc", l_gc }, { "__close", l_gc },
	{ "__tostring", l_tostring }, { NULL, NULL },
};

int luaopen_luaprof_map(lua_State *L)
{
	luaL_newmetatable(L, LP_MAP_MT);
	lua_pushvalue(L, -1);
	luaL_setfuncs(L, metamethods, 1);
	luaL_newlibtable(L, methods);
	lua_pushvalue(L, -2);
	luaL_setfuncs(L, methods, 1);
	lua_setfield(L, -2, "__index");
	lua_pop(L, 1);
	lua_pushcfunction(L, l_new);
	return 1;
}
