/*
 * lstrings.c - luaprof.setup{ strings = ... }: which strings of which
 * events the run keeps as the events saw them, for s:str and args.argv
 * (lcapture.c reads them; capture.h tells the sources).
 *
 *   strings = true                     every event's, as below
 *   strings = { [EVENT or glob] = true | { NAME, ... }, ... }
 *
 * What an event keeps:
 *   syscalls:sys_enter_*   true: its "const char *" fields (filename,
 *                          pathname, ...); a list names pointer fields.  The
 *                          sample carries a copy of the user stack (the
 *                          stack pointer and LP_CAPTURE_STACK bytes) and
 *                          the drain thread reads the fields' strings
 *                          from the live process as it takes each sample
 *                          (but for execve and execveat, whose process
 *                          changes its memory for good: their strings
 *                          come from the stack copy or a file only);
 *   other tracepoints      a list names pointer fields, read so too; true
 *                          keeps nothing (their pointers are the kernel's);
 *   sched:sched_process_exec, syscalls:sys_exit_execve, sys_exit_execveat
 *                          args.argv: libc's execve copying its argv, the
 *                          stack copy (the new program's arguments top its
 *                          stack) and /proc/PID/cmdline read by the drain
 *                          thread;
 *   uprobes                true: the six argument registers' strings; a
 *                          list names arguments 1 to 6 (s.args[N]);
 *   uretprobes             true or { "retval" }: the returned string;
 *                          both copied by the kernel (evdyn.c).
 * Nothing is added to an event no key names: a run that reads no strings
 * pays nothing.  Replaying, the key is checked, not applied.
 */
#include <fnmatch.h>
#include <string.h>
#include <asm/perf_regs.h>

#include <lauxlib.h>

#include "lclass.h"
#include "lp.h"
#include "settings.h"
#include "luaprof/capture.h"
#include "luaprof/trace.h"

/* The tracepoint format of e (its system and event from its name); NULL
 * when it cannot be read (the open will say why). */
static struct lp_tp_format *format_of(const struct lp_event_spec *e)
{
	char sys[256];
	struct lp_tp_format *f = NULL;
	const char *colon = strchr(e->name, ':');
	if (!colon || (size_t)(colon - e->name) >= sizeof sys)
		return NULL;
	memcpy(sys, e->name, (size_t)(colon - e->name));
	sys[colon - e->name] = '\0';
	return lp_tracefs_format(sys, colon + 1, &f) ? NULL : f;
}

/* "const char *", spaces as the format writes them or not. */
static bool const_char_ptr(const char *type)
{
	char t[64];
	size_t n = 0;
	for (; *type && n + 1 < sizeof t; type++)
		if (*type != ' ')
			t[n++] = *type;
	t[n] = '\0';
	return !strcmp(t, "constchar*");
}

/* The stack copy and its stack pointer. */
static void keep_stack(struct lp_event_spec *e)
{
	e->regs_user |= 1ull << PERF_REG_X86_SP;
	if (e->stack_user < LP_CAPTURE_STACK)
		e->stack_user = LP_CAPTURE_STACK;
}

static void add_ptr(struct lp_event_spec *e, const struct lp_tp_field *f, bool prompt)
{
	struct lp_capture_plan *p = &e->capture;
	for (size_t i = 0; i < p->nr_ptrs; i++)
		if (p->ptr_off[i] == f->offset)
			return;
	if (prompt && p->nr_ptrs < LP_CAPTURE_MAX)
		p->ptr_off[p->nr_ptrs++] = (uint16_t)f->offset;
}

/* A pointer field: 8 bytes, an integer. */
static bool pointer_field(const struct lp_tp_field *f)
{
	return !f->common && !f->dyn && f->kind == LP_TP_INT && f->size == 8;
}

/* A tracepoint: its fields named at the top of the stack (a list), or
 * with `all` its const char * fields when it is a system call's entry. */
static void tracepoint(lua_State *L, struct lp_event_spec *e, bool all)
{
	bool sys_enter = !strncmp(e->name, "syscalls:sys_enter_", 19);
	bool exec = lp_capture_exec_event(e->name);
	/* execve's process replaces its memory: a late read there reads the
	 * new program's, so its strings come from the stack copy or a file */
	bool prompt = strcmp(e->name, "syscalls:sys_enter_execve") &&
		      strcmp(e->name, "syscalls:sys_enter_execveat");
	if (exec) {
		keep_stack(e);
		e->capture.cmdline = true;
		return;
	}
	if (all && !sys_enter)
		return;
	struct lp_tp_format *f = format_of(e);
	if (!f) {
		if (!all)
			luaL_error(L, "luaprof.setup: strings: cannot read the format of '%s' (tracefs)",
				   e->name);
		return;
	}
	keep_stack(e);
	for (size_t i = 0; all && i < f->nr_fields; i++)
		if (pointer_field(&f->fields[i]) && const_char_ptr(f->fields[i].type))
			add_ptr(e, &f->fields[i], prompt);
	lua_Integer n = all ? 0 : luaL_len(L, -1);
	for (lua_Integer i = 1; i <= n; i++) {
		const char *name = lua_geti(L, -1, i) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
		const struct lp_tp_field *fl = name ? lp_tp_field_find(f, name) : NULL;
		if (!fl || !pointer_field(fl)) {
			lp_tp_format_free(f);
			lp_argerror(L, 1, "strings: %s%s%s is not a pointer field of '%s' "
				    "(its fields: luaprof list --fields %s)", name ? "'" : "entry ",
				    name ? name : lua_typename(L, lua_type(L, -1)), name ? "'" : "",
				    e->name, e->name);
		}
		add_ptr(e, fl, prompt);
		lua_pop(L, 1);
	}
	lp_tp_format_free(f);
}

/* A uprobe (arguments 1 to 6) or uretprobe ("retval"): what the kernel
 * copies, from the list at the top of the stack or all with `all`. */
static void probe(lua_State *L, struct lp_event_spec *e, bool all)
{
	bool ret = e->probe == LP_PROBE_URETPROBE;
	if (all) {
		e->fetch |= ret ? LP_FETCH_RETVAL : 0x3f;
		return;
	}
	lua_Integer n = luaL_len(L, -1);
	for (lua_Integer i = 1; i <= n; i++) {
		int ok, t = lua_geti(L, -1, i);
		lua_Integer a = lua_tointegerx(L, -1, &ok);
		if (ret && t == LUA_TSTRING && !strcmp(lua_tostring(L, -1), "retval"))
			e->fetch |= LP_FETCH_RETVAL;
		else if (!ret && ok && a >= 1 && a <= 6)
			e->fetch |= (uint8_t)(1u << (a - 1));
		else
			lp_argerror(L, 1, "strings: '%s' keeps %s", e->name,
				    ret ? "\"retval\" (the returned string)" :
				    "arguments 1 to 6 (s.args[N]: { 1 } for the first)");
		lua_pop(L, 1);
	}
}

/* Applies the value at the top of the stack (true or a list) to e. */
static void apply(lua_State *L, struct lp_event_spec *e)
{
	bool all = lua_toboolean(L, -1) && !lua_istable(L, -1);
	if (!all && !lua_istable(L, -1))
		return;         /* false: nothing */
	if (e->type == PERF_TYPE_TRACEPOINT && !e->probe)
		tracepoint(L, e, all);
	else if (e->probe == LP_PROBE_UPROBE || e->probe == LP_PROBE_URETPROBE)
		probe(L, e, all);
	else if (!all)
		lp_argerror(L, 1, "strings: '%s' has no string arguments luaprof can keep "
			    "(tracepoints, uprobes and uretprobes have)", e->name);
}

void lp_strings_setup(lua_State *L, struct lp_cli *cli)
{
	lp_get_run(L)->strings.declared = true;
	if (lua_type(L, -1) == LUA_TBOOLEAN) {
		for (size_t i = 0; i < cli->events.n; i++)
			apply(L, &cli->events.v[i]);
		return;
	}
	if (!lua_istable(L, -1))
		lp_argerror(L, 1, "strings must be true or a table of event names (or "
			    "globs) to true or a list of fields or arguments");
	for (lua_pushnil(L); lua_next(L, -2); lua_pop(L, 1)) {
		if (lua_type(L, -2) != LUA_TSTRING || (!lua_istable(L, -1) && !lua_isboolean(L, -1)))
			lp_argerror(L, 1, "strings must map event names to true or a list "
				    "such as { \"filename\" } or { 1 }");
		const char *pattern = lua_tostring(L, -2);
		size_t matched = 0;
		for (size_t i = 0; i < cli->events.n; i++) {
			if (fnmatch(pattern, cli->events.v[i].name, 0))
				continue;
			matched++;
			apply(L, &cli->events.v[i]);
		}
		if (!matched && !cli->user_events)
			lp_argerror(L, 1, "strings for '%s' names none of the events",
				    pattern);
	}
}
