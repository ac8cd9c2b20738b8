/*
 * guard.c - runaway scripts: a hook that loops forever, or allocates
 * without bound, is stopped with a message naming it instead of hanging
 * the run or pushing the machine into the OOM killer.
 *
 * Memory (--script-memory MB): the Lua state's allocator counts the bytes
 * it holds and refuses to go past the limit.  Lua then collects garbage
 * and tries again, so the limit applies to live data; when that fails too
 * the hook fails with LUA_ERRMEM and lp_guard_explain() names the limit.
 *
 * Time (--script-timeout SECONDS, per call) and Ctrl-C: every hook call
 * adds 1 to a counter on entry and on exit (odd: a hook is running), which
 * is all the guard costs on the per-sample path.  Nothing else runs until
 * it is needed:
 *  - a watchdog thread (only with --script-timeout) wakes ten times per
 *    timeout; a call seen running for the whole timeout gets SIGALRM sent
 *    to the main thread;
 *  - SIGINT, SIGTERM or SIGHUP arriving while a hook runs (lp_guard_signal,
 *    from main.c's handler) arms the interrupt; the run's own stop still
 *    happens, so a hook that returns promptly is not disturbed;
 *  - arming (in the signal handler, where lua_sethook may be called) sets
 *    a count hook; it raises an error in the running Lua code, with the
 *    position, when the call armed for is still running: at once for the
 *    timeout, after a second of grace (or a second signal) for a signal.
 *    A call that has returned meanwhile just removes the hook.
 * The error goes through lua_pcall's traceback handler like any script
 * error, so the run stops, luaprof exits 255, and no further hook (on_end
 * included) is called.  Code inside a C function (a long string.rep, a
 * sort) is stopped when it returns to Lua; a coroutine's own loop is not
 * watched.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>

#include "lp.h"

#define GRACE_NS 1000000000ull          /* a signalled hook's time to return */
#define HOOK_COUNT 1000                 /* VM instructions between checks, once armed */

enum { ARM_NONE, ARM_TIMEOUT, ARM_SIGNAL };

static struct lp_guard *the_guard;      /* for the signal handlers: one run per process */

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- memory ---- */

static void *guard_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
	struct lp_guard *g = ud;
	size_t old = ptr ? osize : 0;           /* without ptr, osize is a type tag */
	if (nsize == 0) {
		free(ptr);
		g->bytes -= old;
		return NULL;
	}
	if (nsize > old && nsize - old > g->limit - g->bytes) {
		g->limit_hit = true;
		return NULL;
	}
	void *p = realloc(ptr, nsize);
	if (p)
		g->bytes += nsize - old;        /* modular: shrinking subtracts */
	return p;
}

lua_State *lp_guard_newstate(struct lp_guard *g, size_t limit)
{
	lua_State *L = luaL_newstate();
	g->L = L;
	g->main = pthread_self();
	if (!L || !limit)
		return L;
	/* The state's own count of what luaL_newstate allocated, so that
	 * freeing it balances the counter. */
	g->bytes = (size_t)lua_gc(L, LUA_GCCOUNT, 0) * 1024 + (size_t)lua_gc(L, LUA_GCCOUNTB, 0);
	g->limit = limit > g->bytes ? limit : g->bytes;
	lua_setallocf(L, guard_alloc, g);
	return L;
}

/* ---- the count hook ---- */

static void raise_at(lua_State *L, lua_Debug *ar, const char *what)
{
	lua_getinfo(L, "Sl", ar);
	if (ar->currentline > 0)
		lua_pushfstring(L, "%s:%d: %s", ar->short_src, ar->currentline, what);
	else
		lua_pushstring(L, what);
	lua_error(L);
}

static void count_hook(lua_State *L, lua_Debug *ar)
{
	struct lp_guard *g = the_guard;
	char what[160];
	if (!g || atomic_load_explicit(&g->calls, memory_order_relaxed) != g->armed_calls) {
		lua_sethook(L, NULL, 0, 0);     /* the call armed for has returned */
		return;
	}
	if (g->armed == ARM_TIMEOUT)
		snprintf(what, sizeof what, "%s ran longer than --script-timeout %g s: stopped",
			 g->hook, (double)g->timeout_ns / 1e9);
	else if (g->signals > 1 || mono_ns() - g->armed_ns >= GRACE_NS)
		snprintf(what, sizeof what, "%s interrupted by %s", g->hook,
			 g->signo == SIGINT ? "SIGINT (Ctrl-C)" :
			 g->signo == SIGTERM ? "SIGTERM" : "SIGHUP");
	else
		return;                         /* a signal's grace is not over */
	lua_sethook(L, NULL, 0, 0);
	g->armed = ARM_NONE;
	raise_at(L, ar, what);
}

/* Async-signal-safe: arms the count hook for the call running now. */
static void arm(struct lp_guard *g, int how, unsigned long calls)
{
	if (g->armed == ARM_TIMEOUT)
		return;                         /* already stopping it */
	g->armed_calls = calls;
	g->armed_ns = mono_ns();
	g->armed = how;
	lua_sethook(g->L, count_hook, LUA_MASKCOUNT, HOOK_COUNT);
}

void lp_guard_signal(int sig)
{
	struct lp_guard *g = the_guard;
	if (!g || !g->L)
		return;
	unsigned long c = atomic_load_explicit(&g->calls, memory_order_relaxed);
	if (!(c & 1))
		return;                         /* no hook running: the run just stops */
	if (g->armed == ARM_SIGNAL && g->armed_calls == c) {
		g->signals++;
		return;
	}
	g->signo = sig;
	g->signals = 1;
	arm(g, ARM_SIGNAL, c);
}

static void on_alarm(int sig)
{
	struct lp_guard *g = the_guard;
	(void)sig;
	if (!g)
		return;
	unsigned long c = atomic_load_explicit(&g->calls, memory_order_relaxed);
	if (c == atomic_load_explicit(&g->overdue, memory_order_relaxed))
		arm(g, ARM_TIMEOUT, c);
}

/* ---- the watchdog ---- */

static void *watchdog(void *arg)
{
	struct lp_guard *g = arg;
	uint64_t tick = g->timeout_ns / 10, seen_at = 0;
	unsigned long seen = 0;
	if (tick > 100000000ull)
		tick = 100000000ull;
	if (tick < 1000000)
		tick = 1000000;
	pthread_mutex_lock(&g->mu);
	while (!g->quit) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		uint64_t t = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec + tick;
		ts = (struct timespec){ (time_t)(t / 1000000000ull), (long)(t % 1000000000ull) };
		pthread_cond_timedwait(&g->cv, &g->mu, &ts);
		unsigned long c = atomic_load_explicit(&g->calls, memory_order_relaxed);
		uint64_t now = mono_ns();
		if (!(c & 1) || c != seen) {
			seen = c;
			seen_at = now;
		} else if (now - seen_at >= g->timeout_ns &&
			   atomic_load_explicit(&g->overdue, memory_order_relaxed) != c) {
			atomic_store_explicit(&g->overdue, c, memory_order_relaxed);
			pthread_kill(g->main, SIGALRM);
		}
	}
	pthread_mutex_unlock(&g->mu);
	return NULL;
}

int lp_guard_start(struct lp_guard *g, uint64_t timeout_ns)
{
	the_guard = g;
	g->timeout_ns = timeout_ns;
	if (!timeout_ns)
		return 0;
	struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = SA_RESTART };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&g->cv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&g->mu, NULL);
	/* The thread takes no signal meant for the process. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int rc = pthread_create(&g->thread, NULL, watchdog, g);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc)
		return -rc;
	g->watching = true;
	return 0;
}

void lp_guard_stop(struct lp_guard *g)
{
	if (g->watching) {
		pthread_mutex_lock(&g->mu);
		g->quit = true;
		pthread_cond_signal(&g->cv);
		pthread_mutex_unlock(&g->mu);
		pthread_join(g->thread, NULL);
		pthread_cond_destroy(&g->cv);
		pthread_mutex_destroy(&g->mu);
		g->watching = false;
	}
	if (the_guard == g)
		the_guard = NULL;
}

void lp_guard_disarm(struct lp_guard *g)
{
	lua_sethook(g->L, NULL, 0, 0);
	g->armed = ARM_NONE;
}

void lp_guard_explain(const struct lp_guard *g, int status, const char *msg)
{
	const char *hook = g->hook;
	lp_term_restore();              /* the line is seen on the main screen */
	if (status == LUA_ERRMEM && g->limit_hit)
		fprintf(stderr, "luaprof: %s: out of memory: the script's Lua data reached the "
			"--script-memory limit of %zu MB (raise it, or 0 for none)\n", hook,
			g->limit >> 20);
	else if (status == LUA_ERRMEM)
		fprintf(stderr, "luaprof: %s: out of memory\n", hook);
	else
		fprintf(stderr, "luaprof: %s\n", msg ? msg : "(error object is not a string)");
}

size_t lp_guard_default_memory(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
	size_t quarter = pages > 0 && size > 0 ? (size_t)pages / 4 * (size_t)size : 0;
	size_t dflt = (size_t)LP_SCRIPT_MEMORY_DEFAULT << 20;
	return quarter && quarter < dflt ? quarter & ~(((size_t)1 << 20) - 1) : dflt;
}
