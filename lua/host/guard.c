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
 *    from signals.c's handler) arms the interrupt; the run's own stop still
 *    happens, so a hook that returns promptly is not disturbed;
 *  - arming (in the signal handler, where lua_sethook may be called) sets
 *    a count hook on the main thread and on the coroutine running then;
 *    it raises an error in the running Lua code, with the position, when
 *    the call armed for is still running: at once for the timeout, after
 *    a second of grace (or a second signal) for a signal.  A call that has
 *    returned meanwhile just removes the hook.
 * Lua's debug hooks are per thread, and a coroutine only inherits the one
 * its creator had when it was made: so coroutine.resume and coroutine.wrap
 * are replaced by ones that note the coroutine they run (g->running, for
 * the handler) and, while the guard is armed, set the count hook on it
 * before it runs and on the resumer after.  Once raised, the error is
 * raised again wherever the call's code runs on (a coroutine's resumer,
 * code behind a pcall that caught it) until the call has unwound.
 * The error goes through lua_pcall's traceback handler like any script
 * error, so the run stops and luaprof exits 255; as after any error in a
 * hook of the run, on_end is called then, with info.error (run.c), and
 * guarded as any call.
 *
 * Some code no hook reaches: a __gc finalizer (Lua turns debug hooks off
 * while one runs, and lua_close runs the last ones), a C function that does
 * not return (a read of a terminal nobody types at), a pcall that catches
 * the error again and again.  Arming also sets alarm(2): a call still
 * running a second after its error was due (at once when no hook can act,
 * in lua_close) cannot be stopped, and luaprof exits from the SIGALRM
 * handler with one line saying so (exit 255; the command gets SIGTERM from
 * the kernel, as when luaprof is killed).
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
#include "luaprof/thread.h"

#define GRACE_NS 1000000000ull          /* a signalled hook's time to return */
#define HOOK_COUNT 1000                 /* VM instructions between checks, once armed */
#define STUCK_NS 1000000000ull          /* a due error's time to be raised before luaprof
					 * gives up on the call */

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
	if (L)
		lp_set_run(L, NULL);    /* lp_vm_open sets it */
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

/* ---- giving up: code no hook reaches ---- */

/* Appends str to buf (NUL-terminated, size bytes); async-signal-safe. */
static size_t put(char *buf, size_t at, size_t size, const char *str)
{
	while (str && *str && at + 1 < size)
		buf[at++] = *str++;
	buf[at] = '\0';
	return at;
}

static const char *signal_name(int sig)
{
	return sig == SIGINT ? "SIGINT (Ctrl-C)" : sig == SIGTERM ? "SIGTERM" : "SIGHUP";
}

/* The call armed for did not stop when its error was due: it runs where
 * no hook does.  Says so and exits; async-signal-safe. */
static _Noreturn void give_up(struct lp_guard *g)
{
	char buf[512];
	size_t n = put(buf, 0, sizeof buf, "luaprof: ");
	n = put(buf, n, sizeof buf, g->hook ? g->hook : "the script");
	if (g->armed == ARM_TIMEOUT) {
		n = put(buf, n, sizeof buf, " ran longer than --script-timeout ");
		n = put(buf, n, sizeof buf, g->timeout_str);
		n = put(buf, n, sizeof buf, g->L ? " s and did not stop" : " s");
	} else {
		n = put(buf, n, sizeof buf, " did not stop at ");
		n = put(buf, n, sizeof buf, signal_name(g->signo));
	}
	n = put(buf, n, sizeof buf, g->L ?
		": it runs where no hook reaches (a __gc finalizer, where Lua runs none; a C "
		"function that does not return; a pcall that keeps catching the error): "
		"luaprof exits\n" :
		": Lua runs no hook in a __gc finalizer, so luaprof exits without finishing "
		"them\n");
	if (write(STDERR_FILENO, buf, n) < 0)
		n = 0;                  /* nothing more to do about it */
	lp_term_release();
	_exit(LP_EXIT_FAILURE);
}

/* Has SIGALRM come when the call armed for should have stopped (its
 * error due, plus a second for a hook to raise it, or nothing when no
 * hook can: the state is closing). */
static void alarm_at(const struct lp_guard *g, uint64_t now)
{
	uint64_t at = g->due_ns + (g->L ? STUCK_NS : 0);
	uint64_t secs = at > now ? (at - now + 999999999ull) / 1000000000ull : 1;
	alarm((unsigned)(secs ? secs : 1));
}

/* SIGALRM for a call armed for: gives up when it still runs though its
 * error is overdue, else looks again later. */
static void check_stuck(struct lp_guard *g)
{
	uint64_t now = mono_ns();
	if (now >= g->due_ns + (g->L ? STUCK_NS : 0))
		give_up(g);
	alarm_at(g, now);
}

/* ---- the count hook ---- */

static bool still_armed(const struct lp_guard *g)
{
	return g && g->armed != ARM_NONE &&
	       atomic_load_explicit(&g->calls, memory_order_relaxed) == g->armed_calls;
}

/* The error, made once (with the position where the call was found),
 * and raised again in every thread the call's code runs on. */
static void count_hook(lua_State *L, lua_Debug *ar)
{
	struct lp_guard *g = the_guard;
	if (!still_armed(g)) {
		lua_sethook(L, NULL, 0, 0);     /* the call armed for has returned */
		return;
	}
	if (!g->struck) {
		char what[160];
		if (g->armed == ARM_TIMEOUT)
			snprintf(what, sizeof what, "%s ran longer than --script-timeout %s s: stopped",
				 g->hook, g->timeout_str);
		else if (g->signals > 1 || mono_ns() >= g->due_ns)
			snprintf(what, sizeof what, "%s interrupted by %s", g->hook,
				 signal_name(g->signo));
		else
			return;                 /* a signal's grace is not over */
		lua_getinfo(L, "Sl", ar);
		if (ar->currentline > 0)
			snprintf(g->what, sizeof g->what, "%s:%d: %s", ar->short_src,
				 ar->currentline, what);
		else
			snprintf(g->what, sizeof g->what, "%s", what);
		g->struck = 1;
	}
	lua_pushstring(L, g->what);
	lua_error(L);
}

/* Sets the count hook on L, when the guard is armed (a thread about to
 * run, or running again). */
static void reach(struct lp_guard *g, lua_State *L)
{
	if (L && g->armed != ARM_NONE)
		lua_sethook(L, count_hook, LUA_MASKCOUNT, HOOK_COUNT);
}

/* Async-signal-safe: arms the count hook for the call running now, on the
 * main thread and on the coroutine running. */
static void arm(struct lp_guard *g, int how, unsigned long calls)
{
	if (g->armed == ARM_TIMEOUT && g->armed_calls == calls)
		return;                         /* already stopping it */
	uint64_t now = mono_ns();
	g->armed = ARM_NONE;                    /* the hook ignores it while it changes */
	g->armed_calls = calls;
	g->armed_ns = now;
	g->due_ns = how == ARM_TIMEOUT ? now : now + GRACE_NS;
	g->struck = 0;
	g->armed = how;
	if (!g->L && now >= g->due_ns)
		give_up(g);                     /* no hook can act: nothing to wait for */
	reach(g, g->L);
	if (g->L)
		reach(g, g->running);
	alarm_at(g, now);
}

void lp_guard_signal(int sig)
{
	struct lp_guard *g = the_guard;
	if (!g)
		return;
	unsigned long c = atomic_load_explicit(&g->calls, memory_order_relaxed);
	if (!(c & 1))
		return;                         /* no hook running: the run just stops */
	if (g->armed == ARM_SIGNAL && g->armed_calls == c) {
		uint64_t now = mono_ns();
		g->signals++;                   /* due at once */
		if (now < g->due_ns)
			g->due_ns = now;
		alarm_at(g, now);
		return;
	}
	g->signo = sig;
	g->signals = 1;
	arm(g, ARM_SIGNAL, c);
}

static void on_alarm(int sig)
{
	struct lp_guard *g = the_guard;
	int saved = errno;
	(void)sig;
	if (g) {
		unsigned long c = atomic_load_explicit(&g->calls, memory_order_relaxed);
		if (c == atomic_load_explicit(&g->overdue, memory_order_relaxed) &&
		    !(g->armed == ARM_TIMEOUT && g->armed_calls == c))
			arm(g, ARM_TIMEOUT, c);         /* the watchdog's */
		else if (still_armed(g))
			check_stuck(g);                 /* alarm()'s */
	}
	errno = saved;
}

/* ---- coroutines ---- */

static lua_CFunction lua_resume_fn;     /* Lua's own coroutine.resume */

/* coroutine.resume(co, ...): Lua's, with co noted as the thread running
 * (which Lua's, called once co's type is checked, never raises an error
 * past), the count hook set on it and, after, on the resumer while the
 * guard is armed.  An error the guard raised in co goes on in the resumer. */
static int guarded_resume(lua_State *L)
{
	struct lp_guard *g = the_guard;
	lua_State *co = lua_tothread(L, 1);
	if (!g || !co)
		return lua_resume_fn(L);        /* its own argument error */
	lua_State *was = g->running;
	g->running = co;
	reach(g, g->L ? co : NULL);
	int n = lua_resume_fn(L);
	g->running = was;
	if (still_armed(g)) {
		reach(g, g->L ? L : NULL);
		if (g->struck && n == 2 && !lua_toboolean(L, -2))
			return lua_error(L);    /* the error on the top */
	}
	return n;
}

/* A function coroutine.wrap made: resumes its coroutine (upvalue 1) as
 * guarded_resume does, and raises its error as Lua's own wrap does (with
 * the position, when it is a string, once its to-be-closed variables are
 * closed). */
static int wrapped(lua_State *L)
{
	lua_State *co = lua_tothread(L, lua_upvalueindex(1));
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	int n = guarded_resume(L);
	if (lua_toboolean(L, -n))
		return n - 1;                   /* the results, after true */
	int status = lua_status(co);
	if (status != LUA_OK && status != LUA_YIELD) {  /* an error inside co */
#if LUA_VERSION_RELEASE_NUM >= 50406
		status = lua_closethread(co, L);
#else
		status = lua_resetthread(co);
#endif
		lua_xmove(co, L, 1);
	}
	if (status != LUA_ERRMEM && lua_type(L, -1) == LUA_TSTRING) {
		luaL_where(L, 1);
		lua_insert(L, -2);
		lua_concat(L, 2);
	}
	return lua_error(L);
}

/* coroutine.wrap(f) */
static int guarded_wrap(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TFUNCTION);
	lua_State *co = lua_newthread(L);
	lua_pushvalue(L, 1);
	lua_xmove(L, co, 1);
	lua_pushcclosure(L, wrapped, 1);
	return 1;
}

void lp_guard_open_coroutines(lua_State *L)
{
	int top = lua_gettop(L);
	if (lua_getglobal(L, "coroutine") == LUA_TTABLE &&
	    lua_getfield(L, -1, "resume") == LUA_TFUNCTION &&
	    (lua_resume_fn = lua_tocfunction(L, -1))) {
		lua_pushcfunction(L, guarded_resume);
		lua_setfield(L, -3, "resume");
		lua_pushcfunction(L, guarded_wrap);
		lua_setfield(L, -3, "wrap");
	}
	lua_settop(L, top);
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
	snprintf(g->timeout_str, sizeof g->timeout_str, "%g", (double)timeout_ns / 1e9);
	/* SIGALRM: the watchdog's, and alarm()'s (arm); not nested in the
	 * handler of a signal that arms, nor that one in it */
	struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = SA_RESTART };
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaddset(&sa.sa_mask, SIGHUP);
	sigaction(SIGALRM, &sa, NULL);
	if (!timeout_ns)
		return 0;
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&g->cv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&g->mu, NULL);
	int rc = lp_thread_start(&g->thread, watchdog, g);
	if (rc)
		return rc;
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
	if (the_guard == g) {
		the_guard = NULL;
		alarm(0);
	}
}

/* Coroutines that got the hook drop it themselves when they next run
 * (count_hook: the call has returned). */
void lp_guard_disarm(struct lp_guard *g)
{
	g->armed = ARM_NONE;
	g->struck = 0;
	alarm(0);
	if (g->L)
		lua_sethook(g->L, NULL, 0, 0);
}

void lp_guard_close(struct lp_guard *g, lua_State *L)
{
	g->L = NULL;            /* no hook runs in a finalizer: the guard can only give up */
	g->running = NULL;
	lp_guard_enter(g, "the __gc finalizers at the end");
	lua_close(L);
	lp_guard_leave(g);
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
