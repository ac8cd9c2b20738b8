/*
 * lpush.c - luaprof.push: sending profiles to a server over HTTP, from a
 * thread of their own (core/push/push.c, libcurl), so that a slow or
 * absent server never holds up the samples.
 *
 *   local s = luaprof.push{
 *     backlog = 16,        -- requests waiting to be sent, at most; a post
 *                          -- that finds it full is dropped
 *     timeout = 10,        -- one attempt's limit, in seconds
 *     retry = 0.5,         -- the first wait before trying again, doubling ...
 *     retry_max = 30,      -- ... up to this, in seconds
 *     attempts = 3,        -- tries of a request answered 408, 429 or 5xx
 *   }
 *   s:post(url, body [, content_type])   queues a POST (content_type defaults
 *                        to application/octet-stream); true, or false when
 *                        the backlog was full and it was dropped
 *   s:events()           what happened since the last call, oldest first:
 *                        { kind = "unreachable"|"refused"|"back"|"full",
 *                          url = (without credentials, query or fragment:
 *                          luaprof.url.shown), status = (refused),
 *                          retry = (refused: it will be tried again),
 *                          text = (libcurl's error, or the first line of
 *                          the server's answer) }, one per change of state
 *   s:stats()            { posted, sent, refused, dropped, attempts_failed, waiting }
 *   s:flush(seconds)     tries what waits now, and waits until it is sent
 *                        or the time passed: true when nothing waits, else
 *                        false and "timeout" (or "interrupted": a signal
 *                        came while it waited)
 *   s:close()            stops the sender; what waits is dropped (also at
 *                        garbage collection, and by <close>)
 *
 * A request is sent in order; one that cannot reach the server is
 * tried again for as long as it takes, the backlog bounding what waits
 * (see include/luaprof/push.h).  The URL must be one libcurl's URL parser
 * takes (luaprof.url.parse).  Each request carries an Idempotency-Key
 * header of its own, the same on every attempt: an attempt that timed out
 * may have reached the server, which can drop the second copy by it.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include <lauxlib.h>

#include "lclass.h"
#include "linit.h"
#include "lp.h"
#include "luaprof/err.h"
#include "luaprof/push.h"
#include "luaprof/url.h"

struct lpush {
	struct lp_push *p;
};

static const struct lp_class sender_class;

static struct lp_push *check(lua_State *L)
{
	struct lpush *u = lp_class_check(L, 1, &sender_class);
	return u->p;
}

static int l_post(lua_State *L)
{
	struct lp_push *p = check(L);
	const char *url = luaL_checkstring(L, 2);
	size_t len;
	const char *body = luaL_checklstring(L, 3, &len);
	const char *ct = luaL_optstring(L, 4, "application/octet-stream");
	luaL_argcheck(L, !strncmp(url, "http://", 7) || !strncmp(url, "https://", 8), 2,
		      "an http:// or https:// URL");
	struct lp_url u;
	int bad = lp_url_parse(url, &u);
	lp_url_free(&u);
	if (bad == -ENOMEM)
		return lp_nomem(L);
	if (bad)
		return luaL_argerror(L, 2, lua_pushfstring(L, "a URL libcurl takes (%s)",
								   lp_last_error()));
	int rc = lp_push_post(p, url, ct, body, len);
	if (rc == -ENOMEM)
		return lp_nomem(L);
	lua_pushboolean(L, rc == 0);
	return 1;
}

static void push_event(lua_State *L, const struct lp_push_event *e)
{
	static const char *const kinds[] = { "unreachable", "refused", "back", "full" };
	lua_createtable(L, 0, 5);
	lua_pushstring(L, kinds[e->kind]);
	lua_setfield(L, -2, "kind");
	lua_pushstring(L, e->url);
	lua_setfield(L, -2, "url");
	lua_pushstring(L, e->text);
	lua_setfield(L, -2, "text");
	if (e->kind == LP_PUSH_REFUSED) {
		lua_pushinteger(L, e->status);
		lua_setfield(L, -2, "status");
		lua_pushboolean(L, e->retry);
		lua_setfield(L, -2, "retry");
	}
}

static int l_events(lua_State *L)
{
	struct lp_push *p = check(L);
	struct lp_push_event ev[8];
	size_t n, k = 0;
	lua_newtable(L);
	while ((n = lp_push_events(p, ev, 8, NULL)))
		for (size_t i = 0; i < n; i++) {
			push_event(L, &ev[i]);
			lua_rawseti(L, -2, (lua_Integer)++k);
		}
	return 1;
}

static void set_count(lua_State *L, const char *name, uint64_t v)
{
	lua_pushinteger(L, (lua_Integer)v);
	lua_setfield(L, -2, name);
}

static int l_stats(lua_State *L)
{
	struct lp_push_stats st;
	lp_push_stats(check(L), &st);
	lua_createtable(L, 0, 6);
	set_count(L, "posted", st.posted);
	set_count(L, "sent", st.sent);
	set_count(L, "refused", st.refused);
	set_count(L, "dropped", st.dropped);
	set_count(L, "attempts_failed", st.attempts_failed);
	set_count(L, "waiting", st.waiting);
	return 1;
}

/* A number of seconds at index idx (none or nil: def) as ns, 0 staying
 * 0; anything else an error of argument arg, saying what. */
static uint64_t seconds_ns(lua_State *L, int idx, int arg, double def, const char *what)
{
	int ok = 1;
	double s = lua_isnoneornil(L, idx) ? def : lua_tonumberx(L, idx, &ok);
	if (!ok || !(s >= 0 && s <= 86400 * 365))
		lp_argerror(L, arg, "%s must be a number of seconds, 0 or more", what);
	return (uint64_t)llround(s * 1e9);
}

/* A signal during the hook that flushes (Ctrl-C at the end of a run, where
 * the last profile waits for the server) ends the wait at once: the
 * guard counts it, and the hook then stops as after any such signal. */
static int l_flush(lua_State *L)
{
	struct lp_push *p = check(L);
	uint64_t wait = seconds_ns(L, 2, 2, 0, "the wait");
	int rc = lp_push_flush(p, wait, &lp_get_run(L)->vm.guard.signals);
	lua_pushboolean(L, rc == 0);
	if (!rc)
		return 1;
	lua_pushstring(L, rc == -EINTR ? "interrupted" : "timeout");
	return 2;
}

static int l_close(lua_State *L)
{
	struct lpush *u = lp_class_check_any(L, 1, &sender_class);
	lp_push_free(u->p);
	u->p = NULL;
	return 0;
}

/* opts[name] as seconds in ns (0 when absent). */
static uint64_t opt_seconds(lua_State *L, const char *name)
{
	lua_getfield(L, 1, name);
	uint64_t v = seconds_ns(L, -1, 1, 0, name);
	lua_pop(L, 1);
	return v;
}

static lua_Integer opt_count(lua_State *L, const char *name, lua_Integer max)
{
	lua_getfield(L, 1, name);
	lua_Integer v = 0;
	if (!lua_isnil(L, -1)) {
		int ok;
		v = lua_tointegerx(L, -1, &ok);
		if (!ok || v < 1 || v > max)
			lp_argerror(L, 1, "%s must be an integer from 1 to %d", name, (int)max);
	}
	lua_pop(L, 1);
	return v;
}

static int l_new(lua_State *L)
{
	struct lp_push_opts o = { 0 };
	if (!lua_isnoneornil(L, 1)) {
		luaL_checktype(L, 1, LUA_TTABLE);
		o.backlog = (size_t)opt_count(L, "backlog", 1000000);
		o.attempts = (unsigned)opt_count(L, "attempts", 1000);
		o.timeout_ms = (long)(opt_seconds(L, "timeout") / 1000000);
		o.retry_ns = opt_seconds(L, "retry");
		o.retry_max_ns = opt_seconds(L, "retry_max");
	}
	struct lpush *u = lp_class_alloc(L, &sender_class, sizeof *u, 0);
	if (!(u->p = lp_push_new(&o)))
		return errno == ELIBACC ?
		       luaL_error(L, "push: libcurl (libcurl.so.4) cannot be opened: install "
				     "Debian's libcurl4 (make deps)") :
		       luaL_error(L, "push: cannot start the sender: %s", strerror(errno));
	return 1;
}

static const luaL_Reg methods[] = {
	{ "post", l_post }, { "events", l_events }, { "stats", l_stats },
	{ "flush", l_flush }, { "close", l_close }, { NULL, NULL },
};

static const luaL_Reg meta[] = { { "__gc", l_close }, { "__close", l_close }, { NULL, NULL } };

static const struct lp_class sender_class = {
	.name = LP_CLASS_NAME("push", "Sender"), .methods = methods, .meta = meta,
	.closable = true, .handle = offsetof(struct lpush, p),
};

int luaopen_luaprof_push(lua_State *L)
{
	lp_class_new(L, &sender_class, 0);
	lua_pushcfunction(L, l_new);    /* the module is the constructor */
	return 1;
}
