/*
 * lterm.c - the luaprof.term module: a script drives the terminal it runs
 * in, as a live view (scripts/live.lua) needs.
 *
 *   luaprof.term.isatty()   whether standard output is a terminal
 *   luaprof.term.size()     its rows and columns (nil when not a terminal)
 *   luaprof.term.start()    take the terminal: keys one at a time, not
 *                           echoed (cbreak: Ctrl-C still interrupts), the
 *                           alternate screen, the cursor hidden; the keys
 *                           go to the script's on_key(key).  Returns
 *                           whether keys will come (standard input is a
 *                           terminal and the script has on_key).
 *   luaprof.term.stop()     give the terminal back as it was found
 *   luaprof.term.active()   whether the terminal is taken
 *
 * The terminal is given back whatever happens: by term.stop(), when the
 * records end (lp_run_loop), before a hook's error is printed, when the
 * Lua state closes, at exit(), on SIGTSTP (taken again at SIGCONT), and on
 * a fatal signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT: given back,
 * then the signal's default action).  One terminal per process: the state
 * is static, and lp_term_restore is async-signal-safe (tcsetattr, write).
 *
 * Keys are read without blocking (VMIN = VTIME = 0: no O_NONBLOCK on a
 * file description the shell and the command share) and named: a
 * printable character is itself (a UTF-8 sequence whole); "enter", "tab",
 * "esc", "backspace", "up", "down", "left", "right", "home", "end",
 * "pgup", "pgdn", "insert", "delete", "f1".."f12"; other control
 * characters "ctrl-a".. ("ctrl-c" only when ISIG is off: it is not).  A
 * live run's loop polls standard input with the samples (lp_live_watch)
 * and hands the keys to on_key as they come; any run also delivers them
 * before each on_interval (lp_term_deliver, in lkeys.c).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include <lauxlib.h>

#include "lclass.h"
#include "linit.h"
#include "lp.h"

#define ENTER_SEQ "\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J"  /* alternate screen, cursor hidden */
#define LEAVE_SEQ "\x1b[?25h\x1b[?1049l"               /* cursor shown, main screen */

static struct {
	volatile sig_atomic_t on;       /* the terminal is taken */
	int in;                         /* standard input when it is a terminal, else -1 */
	struct termios saved, taken;    /* the input's modes as found, and as taken */
	bool handlers;                  /* the signal handlers and atexit are set */
} term = { .in = -1 };

static void put(const char *s)
{
	size_t n = strlen(s);
	while (n) {
		ssize_t w = write(STDOUT_FILENO, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

/* Gives the terminal back; async-signal-safe (no stdio). */
static void restore(void)
{
	if (!term.on)
		return;
	term.on = 0;
	put(LEAVE_SEQ);
	if (term.in >= 0)
		tcsetattr(term.in, TCSADRAIN, &term.saved);
}

/* Takes the terminal again (SIGCONT); async-signal-safe. */
static void retake(void)
{
	if (term.in >= 0)
		tcsetattr(term.in, TCSADRAIN, &term.taken);
	put(ENTER_SEQ);
	term.on = 1;
}

static const int fatal[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
static struct sigaction fatal_old[sizeof fatal / sizeof *fatal];

/* Gives the terminal back, then has the signal do what it did before
 * (its default, or a sanitizer's handler): it is raised again once this
 * handler returns, where it is blocked now. */
static void on_fatal(int sig)
{
	restore();
	for (size_t i = 0; i < sizeof fatal / sizeof *fatal; i++)
		if (fatal[i] == sig)
			sigaction(sig, &fatal_old[i], NULL);
	raise(sig);
}

static volatile sig_atomic_t was_on;

static void on_stop(int sig)
{
	int saved = errno;
	was_on = term.on;
	restore();
	signal(sig, SIG_DFL);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);                     /* stopped here until SIGCONT */
	signal(sig, on_stop);
	if (was_on)
		retake();
	errno = saved;
}

void lp_term_restore(void)
{
	if (!term.on)
		return;
	fflush(stdout);                 /* what was drawn goes to the screen being left */
	restore();
}

void lp_term_release(void)
{
	restore();
}

static void install_handlers(void)
{
	struct sigaction sa = { .sa_handler = on_fatal };
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof fatal / sizeof *fatal; i++)
		sigaction(fatal[i], &sa, &fatal_old[i]);
	sa = (struct sigaction){ .sa_handler = on_stop, .sa_flags = SA_RESTART };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTSTP, &sa, NULL);
	atexit(lp_term_restore);
	term.handlers = true;
}

/* luaprof.term.isatty() */
static int l_isatty(lua_State *L)
{
	lua_pushboolean(L, isatty(STDOUT_FILENO));
	return 1;
}

/* luaprof.term.size(): rows, columns; nil when stdout is no terminal. */
static int l_size(lua_State *L)
{
	struct winsize ws;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) || !ws.ws_row || !ws.ws_col) {
		lua_pushnil(L);
		return 1;
	}
	lua_pushinteger(L, ws.ws_row);
	lua_pushinteger(L, ws.ws_col);
	return 2;
}

/* luaprof.term.start(): takes the terminal (see the top); true when keys
 * will come to on_key. */
static int l_start(lua_State *L)
{
	struct lp_run *run = lp_get_run(L);
	if (!isatty(STDOUT_FILENO))
		return luaL_error(L, "luaprof.term.start: standard output is not a terminal "
				  "(test luaprof.term.isatty() first)");
	if (!term.on) {
		if (!term.handlers)
			install_handlers();
		term.in = isatty(STDIN_FILENO) && !tcgetattr(STDIN_FILENO, &term.saved) ? STDIN_FILENO : -1;
		if (term.in >= 0) {
			term.taken = term.saved;
			term.taken.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
			term.taken.c_cc[VMIN] = 0;
			term.taken.c_cc[VTIME] = 0;
		}
		fflush(stdout);
		retake();
	}
	lua_pushboolean(L, term.in >= 0 && run->vm.ref[LP_HOOK_KEY] != LUA_NOREF);
	return 1;
}

/* luaprof.term.active() */
static int l_active(lua_State *L)
{
	lua_pushboolean(L, term.on);
	return 1;
}

/* luaprof.term.stop() */
static int l_stop(lua_State *L)
{
	(void)L;
	lp_term_restore();
	return 0;
}

static int l_gc(lua_State *L)
{
	(void)L;
	lp_term_restore();
	return 0;
}

int lp_term_input_fd(const struct lp_run *run)
{
	return term.on && term.in >= 0 && run->vm.ref[LP_HOOK_KEY] != LUA_NOREF ? term.in : -1;
}

void lp_term_input_closed(void)
{
	term.in = -1;
}

static const luaL_Reg funcs[] = {
	{ "active", l_active },
	{ "isatty", l_isatty },
	{ "size", l_size },
	{ "start", l_start },
	{ "stop", l_stop },
	{ NULL, NULL },
};

int luaopen_luaprof_term(lua_State *L)
{
	static const luaL_Reg guard_meta[] = { { "__gc", l_gc }, { NULL, NULL } };
	static const struct lp_class guard_class = {
		.name = LP_CLASS_NAME("term", "Guard"), .meta = guard_meta,
	};
	luaL_newlib(L, funcs);
	/* a guard whose __gc gives the terminal back when the state closes,
	 * kept by the registry under its class's name */
	lp_class_new(L, &guard_class, 0);
	lp_class_alloc(L, &guard_class, 1, 0);
	lua_setfield(L, LUA_REGISTRYINDEX, LP_CLASS_NAME("term", "Guard") ".ud");
	return 1;
}
