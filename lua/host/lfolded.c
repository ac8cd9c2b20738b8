/*
 * lfolded.c - luaprof.folded: FlameGraph's folded stack text.
 *
 *   luaprof.folded.write(path, stacks)    one "stack count" line per key,
 *                                         sorted by stack ("-": stdout)
 *   luaprof.folded.text(stacks) -> string the same text
 *   luaprof.folded.read(path) -> stacks [, base]
 *
 * stacks is a luaprof.map or a table of stack -> count.  read returns a
 * plain table of stack -> count (counts of repeated stacks summed), and
 * for a differential file ("stack A B" lines, as difffolded.pl writes) a
 * second table with the base (A) counts.  A line that is not folded text
 * stops the read with an error naming the file and the line.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "lclass.h"
#include "linit.h"
#include "lpaux.h"
#include "luaprof/buf.h"
#include "luaprof/folded.h"
#include "luaprof/luaprof.h"

#define MAX_FILE (1ull << 32)

struct line {
	const char *key;
	size_t len;
	double count;
};

struct lines {
	struct line *v;
	size_t n, cap;
};

static int collect(void *ctx, const char *key, size_t len, double count)
{
	struct lines *l = ctx;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 1024;
		struct line *v = realloc(l->v, cap * sizeof *v);
		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = (struct line){ key, len, count };
	return 0;
}

static int by_key(const void *a, const void *b)
{
	const struct line *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->key, y->key, n);
	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* Whether the lines are in order already (a luaprof.stacks gives them so). */
static bool sorted(const struct lines *l)
{
	for (size_t i = 1; i < l->n; i++)
		if (by_key(&l->v[i - 1], &l->v[i]) > 0)
			return false;
	return true;
}

/* " COUNT\n" into s (24 bytes), the count as %.15g prints it: a whole
 * count below 10^15 (every count of samples) in digits, without printf.
 * Its length. */
static size_t count_text(char *s, double count)
{
	if (count >= 0 && count < 1e15 && count == (double)(uint64_t)count) {
		char d[24], *p = d + sizeof d;
		uint64_t v = (uint64_t)count;
		*--p = '\n';
		do
			*--p = (char)('0' + v % 10);
		while (v /= 10);
		*--p = ' ';
		size_t n = (size_t)(d + sizeof d - p);
		memcpy(s, p, n);
		return n;
	}
	int n = snprintf(s, 24, " %.15g\n", count);
	return n > 0 && n < 24 ? (size_t)n : 0;
}

static const struct lp_class lines_class;

static int lines_gc(lua_State *L)
{
	struct lines *l = lp_class_check_any(L, 1, &lines_class);
	free(l->v);
	l->v = NULL;
	return 0;
}

static const luaL_Reg lines_meta[] = { { "__gc", lines_gc }, { NULL, NULL } };
static const struct lp_class lines_class = {
	.name = LP_CLASS_NAME("folded", "Lines"), .meta = lines_meta,
};

/* Pushes the lines of the stacks at idx, sorted by stack (the keys are
 * borrowed from the table, which stays on the stack, or from the
 * luaprof.stacks), in an object whose collection frees them, so that an
 * error raised on the way leaks nothing. */
static struct lines *sorted_lines(lua_State *L, int idx)
{
	idx = lua_absindex(L, idx);
	lp_class_new(L, &lines_class, 0);
	struct lines *l = lp_class_alloc(L, &lines_class, sizeof *l, 0);
	lp_stacks_each(L, idx, collect, l, "folded");
	if (l->n && !sorted(l))         /* qsort takes no NULL array, even empty */
		qsort(l->v, l->n, sizeof *l->v, by_key);
	return l;
}

static int l_text(lua_State *L)
{
	struct lines *l = sorted_lines(L, 1);
	struct lp_buf b = { 0 };
	char c[24];
	for (size_t i = 0; i < l->n; i++) {
		lp_buf_add(&b, l->v[i].key, l->v[i].len);
		lp_buf_add(&b, c, count_text(c, l->v[i].count));
	}
	if (b.err) {
		lp_buf_free(&b);
		return luaL_error(L, "folded: out of memory");
	}
	lua_pushlstring(L, b.p ? b.p : "", b.len);
	lp_buf_free(&b);
	return 1;
}

static bool put_lines(void *ctx, FILE *f)
{
	const struct lines *l = ctx;
	char c[24];
	for (size_t i = 0; i < l->n; i++)
		if (fwrite(l->v[i].key, 1, l->v[i].len, f) != l->v[i].len ||
		    fwrite(c, 1, count_text(c, l->v[i].count), f) == 0)
			return false;
	return true;
}

/* Streams the lines to the file (no copy of the whole text in memory: a
 * large profile's text is megabytes). */
static int l_write(lua_State *L)
{
	const char *path = luaL_checkstring(L, 1);
	struct lines *l = sorted_lines(L, 2);
	lp_lib_write_with(L, path, put_lines, l);
	return 0;
}

struct reader {
	lua_State *L;
	int stacks, base;
};

static void add_to(lua_State *L, int t, const char *k, size_t n, uint64_t count)
{
	lua_pushlstring(L, k, n);
	lua_pushvalue(L, -1);
	lua_Integer old = lua_rawget(L, t) == LUA_TNUMBER ? lua_tointeger(L, -1) : 0;
	lua_pop(L, 1);
	lua_pushinteger(L, old + (lua_Integer)count);
	lua_rawset(L, t);
}

static int on_line(void *ctx, const char *stack, size_t len, const uint64_t *counts, int nr)
{
	struct reader *r = ctx;
	add_to(r->L, r->stacks, stack, len, counts[0]);
	if (nr == 2)
		add_to(r->L, r->base, stack, len, counts[1]);
	return 0;
}

/* The whole file at path, in a Lua string pushed on the stack. */
static const char *slurp(lua_State *L, const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!f)
		luaL_error(L, "folded.read: cannot open %s: %s", LP_SHOW(path), strerror(errno));
	luaL_Buffer b;
	luaL_buffinit(L, &b);
	size_t n, total = 0;
	do {
		char *p = luaL_prepbuffer(&b);
		n = fread(p, 1, LUAL_BUFFERSIZE, f);
		luaL_addsize(&b, n);
		total += n;
	} while (n > 0 && total < MAX_FILE);
	bool err = ferror(f);
	if (f != stdin)
		fclose(f);
	if (err)
		luaL_error(L, "folded.read: cannot read %s", LP_SHOW(path));
	luaL_pushresult(&b);
	return lua_tolstring(L, -1, len);
}

static int l_read(lua_State *L)
{
	const char *path = luaL_checkstring(L, 1);
	lua_settop(L, 1);
	size_t len, bad = 0;
	const char *s = slurp(L, path, &len);
	lua_newtable(L);
	lua_newtable(L);
	struct reader r = { L, lua_gettop(L) - 1, lua_gettop(L) };
	if (lp_folded_parse(s, len, on_line, &r, &bad))
		return luaL_error(L, "folded.read: %s:%d: not a folded stack line (\"frame;frame;... "
				     "COUNT\", or \"... BASE COUNT\")", LP_SHOW(path), (int)bad);
	lua_pushnil(L);
	if (!lua_next(L, r.base)) {
		lua_pushvalue(L, r.stacks);
		return 1;
	}
	lua_pushvalue(L, r.stacks);
	lua_pushvalue(L, r.base);
	return 2;
}

static const luaL_Reg funcs[] = {
	{ "write", l_write }, { "text", l_text }, { "read", l_read }, { NULL, NULL },
};

int luaopen_luaprof_folded(lua_State *L)
{
	luaL_newlib(L, funcs);
	return 1;
}
