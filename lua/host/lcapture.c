/*
 * lcapture.c - a sample's strings: s:str(addr [, max]) (and
 * luaprof.read_string(s, addr [, max])), the string at addr as the event
 * saw it, and args.argv of an exec (ltrace.c asks).
 *
 * A string is looked for in the exact sources first, then the late ones
 * (capture.h tells each):
 *
 *   kernel   the copy a probe's fetch argument made (a tracefs uprobe);
 *   stack    the sample's copy of the user stack;
 *   prompt   the drain thread's read of the live process, in the capture
 *            record that came just before the sample (kept here by tid);
 *   file     a read-only mapping of a file (a string literal), read from
 *            the file;
 *   late     the live process, read now (as luaprof.read_string(pid, ...)
 *            always did): a short-lived process has exited, and any may
 *            have changed the memory.
 *
 * A string found nowhere is nil, with a reason as second value, and is
 * counted: per event, and said in one line at the end of the run
 * (lp_strings_report), never a silent nil.  What was read from where is
 * on_end's info.strings.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <asm/perf_regs.h>

#include <lauxlib.h>

#include "lclass.h"
#include "lp.h"
#include "luaprof/capture.h"
#include "luaprof/event.h"
#include "luaprof/proc.h"

static const char *const from_names[LP_STR_N] = { "kernel", "stack", "prompt", "file", "late" };

/* ---- the capture records ---- */

int lp_strings_record(struct lp_run *run, const struct lp_record *rec)
{
	struct lp_capture c;
	if (lp_capture_decode(rec->data, rec->size, &c))
		return 0;               /* not ours to judge: it is left out */
	struct lp_capslot *sl = c.call ? &run->strings.call[c.tid % LP_CAPTURE_SLOTS] :
				&run->strings.slot[c.tid % LP_CAPTURE_SLOTS];
	if (sl->cap < rec->size) {
		void *p = realloc(sl->rec, rec->size);
		if (!p)
			return -ENOMEM;
		sl->rec = p;
		sl->cap = rec->size;
	}
	memcpy(sl->rec, rec->data, rec->size);
	memset(sl->taken, 0, sizeof sl->taken);
	sl->len = rec->size;
	sl->tid = c.tid;
	sl->time = c.time;
	return 0;
}

/* The capture record of the sample in the view, if one came before it. */
static bool sample_capture(struct lp_run *run, struct lp_capture *c)
{
	const struct lp_sample *s = &run->view.rec->u.sample;
	const struct lp_capslot *sl = &run->strings.slot[s->tid % LP_CAPTURE_SLOTS];
	return sl->rec && sl->tid == s->tid && sl->time == s->time &&
	       !lp_capture_decode(sl->rec, sl->len, c);
}

/* The latest library call of the sample's thread (made before it). */
static bool thread_call(struct lp_run *run, struct lp_capture *c)
{
	const struct lp_sample *s = &run->view.rec->u.sample;
	const struct lp_capslot *sl = &run->strings.call[s->tid % LP_CAPTURE_SLOTS];
	return sl->rec && sl->tid == s->tid && sl->time <= s->time &&
	       !lp_capture_decode(sl->rec, sl->len, c);
}

/* The item of the thread's latest call of kind (for LP_CAPTURE_CALL, the
 * string at addr), or NULL.  A system call's string is taken by one
 * sample, the first that asks (its own system call's): a later sample
 * whose own call left no record (its string unread by the kernel, its
 * probe's sample lost) must not take an older call's string at a
 * pointer used again.  Nor is one the kernel could not read taken. */
static const struct lp_capture_item *call_item(struct lp_run *run, struct lp_capture *c,
					       uint16_t kind, uint64_t addr)
{
	const struct lp_sample *s = &run->view.rec->u.sample;
	struct lp_capslot *sl = &run->strings.call[s->tid % LP_CAPTURE_SLOTS];
	if (!thread_call(run, c))
		return NULL;
	for (size_t i = 0; i < c->nr; i++) {
		const struct lp_capture_item *it = &c->items[i];
		if (it->kind != kind || (kind == LP_CAPTURE_CALL && it->addr != addr))
			continue;
		if (kind == LP_CAPTURE_CALL) {
			if (it->err || (sl->taken[i] && sl->taken[i] != s->time))
				return NULL;
			sl->taken[i] = s->time;
		}
		return it;
	}
	return NULL;
}

void lp_strings_free(struct lp_run *run)
{
	for (size_t i = 0; i < LP_CAPTURE_SLOTS; i++)
		free(run->strings.slot[i].rec), free(run->strings.call[i].rec);
	for (size_t i = 0; i < sizeof run->strings.missed_by / sizeof run->strings.missed_by[0]; i++)
		free(run->strings.missed_by[i].event);
	lp_filestr_free(run->strings.files);
	free(run->strings.buf);
	memset(&run->strings, 0, sizeof run->strings);
}

/* ---- the sources ---- */

static const unsigned arg_regs[7] = {
	PERF_REG_X86_DI, PERF_REG_X86_SI, PERF_REG_X86_DX,
	PERF_REG_X86_CX, PERF_REG_X86_R8, PERF_REG_X86_R9, PERF_REG_X86_AX,
};

/* The kernel's copy of the string at addr, when the sample's event is a
 * probe that fetched the argument holding addr. */
static bool from_kernel(struct lp_run *run, uint64_t addr, const char **str, size_t *len)
{
	const struct lp_event_spec *e = run->view.spec;
	const struct lp_sample *s = &run->view.rec->u.sample;
	if (!e || !e->fetch || !e->dyn_event || !s->raw)
		return false;
	for (unsigned i = 0; i < 7; i++) {
		uint64_t v;
		uint32_t dl;
		if (!(e->fetch & (1u << i)) || lp_sample_reg(s, arg_regs[i], &v) || v != addr ||
		    (size_t)e->fetch_off[i] + 4 > s->raw_size)
			continue;
		memcpy(&dl, (const uint8_t *)s->raw + e->fetch_off[i], 4);
		size_t off = dl & 0xffff, n = dl >> 16;
		if (!n || off > s->raw_size || n > s->raw_size - off)
			continue;       /* 0 bytes: the kernel could not read it */
		*str = (const char *)s->raw + off;
		*len = strnlen(*str, n);
		return true;
	}
	return false;
}

/* What the capture record before the sample holds for addr: the string
 * of the library call that made the system call (a kernel's copy), or the
 * drain thread's read; 1 found (*from says which), 0 not there, -ESRCH
 * the process had exited by then. */
static int from_record(struct lp_run *run, uint64_t addr, const char **str, size_t *len,
		       enum lp_str_from *from)
{
	struct lp_capture c;
	if (!sample_capture(run, &c))
		return 0;
	for (size_t i = 0; i < c.nr; i++) {
		const struct lp_capture_item *it = &c.items[i];
		if ((it->kind != LP_CAPTURE_STR && it->kind != LP_CAPTURE_CALL) || it->addr != addr)
			continue;
		if (it->err)
			return it->err == ESRCH ? -ESRCH : 0;
		*str = it->data;
		*len = it->len;
		*from = it->kind == LP_CAPTURE_CALL ? LP_STR_KERNEL : LP_STR_PROMPT;
		return 1;
	}
	return 0;
}

/* Scratch of at least n bytes; NULL when out of memory. */
static char *scratch(struct lp_run_strings *st, size_t n)
{
	if (st->bufcap < n) {
		char *b = realloc(st->buf, n);
		if (!b)
			return NULL;
		st->buf = b;
		st->bufcap = n;
	}
	return st->buf;
}

/* A string of a read-only file mapping of the sample's process. */
static bool from_file(struct lp_run *run, uint64_t addr, char *buf, size_t size, size_t *len)
{
	struct lp_thread *t = lp_view_thread(run);
	if (!t || !t->proc || (!run->strings.files && !(run->strings.files = lp_filestr_new())))
		return false;
	pid_t pid = run->live.on ? (pid_t)run->view.rec->u.sample.pid : 0;
	return !lp_filestr_read(run->strings.files, t->proc, pid, addr, buf, size, len);
}

/* ---- s:str ---- */

static int found(lua_State *L, struct lp_run *run, enum lp_str_from from, const char *s,
		 size_t len, size_t max)
{
	run->strings.read[from]++;
	lua_pushlstring(L, s, len < max ? len : max);
	return 1;
}

/* Counts a string not read, for the sample's event (by name: the first
 * few events that miss some). */
static void count_missed(struct lp_run *run)
{
	struct lp_run_strings *st = &run->strings;
	const char *name = run->src->event_name(run->src->ctx, run->view.event);
	st->missed++;
	for (size_t i = 0; name && i < sizeof st->missed_by / sizeof st->missed_by[0]; i++) {
		if (!st->missed_by[i].event && !(st->missed_by[i].event = strdup(name)))
			return;
		if (!strcmp(st->missed_by[i].event, name)) {
			st->missed_by[i].n++;
			return;
		}
	}
}

static int missed(lua_State *L, struct lp_run *run, bool gone)
{
	count_missed(run);
	lua_pushnil(L);
	lua_pushstring(L, !run->live.on ? "not in the recording: it keeps the samples' stack copies only" :
			  gone ? "the process had exited" : "the address could not be read");
	return 2;
}

int lp_strings_push(lua_State *L, struct lp_run *run, uint64_t addr, size_t max)
{
	const struct lp_sample *s = &run->view.rec->u.sample;
	const char *str;
	size_t len;
	if (!addr) {
		lua_pushnil(L);
		lua_pushliteral(L, "a NULL pointer");
		return 2;
	}
	if (from_kernel(run, addr, &str, &len))
		return found(L, run, LP_STR_KERNEL, str, len, max);
	if (!lp_sample_stack_str(s, addr, max, &str, &len))
		return found(L, run, LP_STR_STACK, str, len, max);
	struct lp_capture c;
	const struct lp_capture_item *it = call_item(run, &c, LP_CAPTURE_CALL, addr);
	if (it)
		return found(L, run, LP_STR_KERNEL, it->data, it->len, max);
	enum lp_str_from from;
	int prompt = from_record(run, addr, &str, &len, &from);
	if (prompt > 0)
		return found(L, run, from, str, len, max);
	char *buf = scratch(&run->strings, max + 1);
	if (!buf)
		return lp_nomem(L);
	if (from_file(run, addr, buf, max + 1, &len))
		return found(L, run, LP_STR_FILE, buf, len, max);
	/* late: unless the drain thread found the process gone (its pid may
	 * be another process's now) */
	int rc = run->live.on && !prompt ? lp_proc_read_str((pid_t)s->pid, addr, buf, max + 1, &len)
					 : prompt ? -ESRCH : -EFAULT;
	if (!rc)
		return found(L, run, LP_STR_LATE, buf, len, max);
	return missed(L, run, rc == -ESRCH);
}

/* s:str(addr [, max]): the Sample is argument 1. */
int lp_strings_method(lua_State *L)
{
	struct lp_run *run = lp_view_check(L, 1);
	lua_Integer addr = luaL_checkinteger(L, 2);
	lua_Integer max = luaL_optinteger(L, 3, LP_CAPTURE_STR_MAX);
	luaL_argcheck(L, max >= 1 && max <= (1 << 20), 3, "max must be from 1 to 1048576 bytes");
	return lp_strings_push(L, run, (uint64_t)addr, (size_t)max);
}

/* ---- args.argv ---- */

/* The arguments from the stack copy of an exec sample: argc at the new
 * stack pointer, then argv's pointers, the strings above.  Pushes the
 * array and returns true, or pushes nothing. */
static bool argv_from_stack(lua_State *L, const struct lp_sample *s)
{
	uint64_t sp, argc, ptr;
	const char *str;
	size_t len;
	if (!s->user_stack || lp_sample_reg(s, PERF_REG_X86_SP, &sp) ||
	    s->user_stack_dyn_size > s->user_stack_size || s->user_stack_dyn_size < 8)
		return false;
	memcpy(&argc, s->user_stack, 8);
	if (!argc || argc > s->user_stack_dyn_size / 8 - 1)
		return false;
	int top = lua_gettop(L);
	lua_createtable(L, (int)argc, 0);
	for (uint64_t i = 0; i < argc; i++) {
		memcpy(&ptr, (const uint8_t *)s->user_stack + 8 * (i + 1), 8);
		if (lp_sample_stack_str(s, ptr, 1u << 20, &str, &len)) {
			lua_settop(L, top);
			return false;
		}
		lua_pushlstring(L, str, len);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	return true;
}

/* A command line, NUL-separated (no trailing NUL), as an array. */
static void push_cmdline(lua_State *L, const char *p, size_t len)
{
	lua_newtable(L);
	lua_Integer n = 0;
	for (const char *end = p + len; p <= end;) {
		const char *nul = memchr(p, '\0', (size_t)(end - p));
		size_t l = nul ? (size_t)(nul - p) : (size_t)(end - p);
		lua_pushlstring(L, p, l);
		lua_rawseti(L, -2, ++n);
		p += l + 1;
	}
}

/* /proc/PID/cmdline read now into the scratch; its length, or -errno. */
static ssize_t read_cmdline(struct lp_run *run, pid_t pid)
{
	char path[64];
	char *buf = scratch(&run->strings, LP_CAPTURE_CMDLINE_MAX);
	if (!buf)
		return -ENOMEM;
	snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ESRCH;
	size_t len = 0;
	ssize_t n;
	while (len < LP_CAPTURE_CMDLINE_MAX &&
	       (n = read(fd, buf + len, LP_CAPTURE_CMDLINE_MAX - len)) > 0)
		len += (size_t)n;
	close(fd);
	while (len && buf[len - 1] == '\0')
		len--;
	return len ? (ssize_t)len : -ESRCH;
}

/* The capture record's item of kind for the sample in the view; NULL
 * when there is none.  *gone: it is there but could not be read. */
static const struct lp_capture_item *record_item(struct lp_run *run, struct lp_capture *c,
						 uint16_t kind, bool *gone)
{
	for (size_t i = 0; sample_capture(run, c) && i < c->nr; i++) {
		if (c->items[i].kind != kind)
			continue;
		if (!c->items[i].err)
			return &c->items[i];
		*gone = true;
	}
	return NULL;
}

void lp_strings_push_argv(lua_State *L, struct lp_run *run, bool failed)
{
	const struct lp_sample *s = &run->view.rec->u.sample;
	const struct lp_capture_item *it;
	struct lp_capture c;
	bool gone = false;
	if ((it = call_item(run, &c, LP_CAPTURE_ARGV, 0))) {
		run->strings.read[LP_STR_KERNEL]++;     /* copied at the execve call */
		push_cmdline(L, it->data, it->len);
		return;
	}
	/* a failed exec's process runs on in its old program: its stack and
	 * its command line are that program's */
	if (!failed && argv_from_stack(L, s)) {
		run->strings.read[LP_STR_STACK]++;
		return;
	}
	if (!failed && (it = record_item(run, &c, LP_CAPTURE_CMDLINE, &gone))) {
		run->strings.read[LP_STR_PROMPT]++;
		push_cmdline(L, it->data, it->len);
		return;
	}
	ssize_t n = run->live.on && !gone && !failed ? read_cmdline(run, (pid_t)s->pid) : -ESRCH;
	if (n > 0) {
		run->strings.read[LP_STR_LATE]++;
		push_cmdline(L, run->strings.buf, (size_t)n);
		return;
	}
	count_missed(run);
	lua_pushnil(L);
}

/* ---- the end ---- */

void lp_strings_push_info(lua_State *L, struct lp_run *run)
{
	const struct lp_run_strings *st = &run->strings;
	uint64_t read = 0;
	lua_createtable(L, 0, 2 + LP_STR_N);
	for (int i = 0; i < LP_STR_N; i++) {
		read += st->read[i];
		lua_pushinteger(L, (lua_Integer)st->read[i]);
		lua_setfield(L, -2, from_names[i]);
	}
	lua_pushinteger(L, (lua_Integer)read);
	lua_setfield(L, -2, "read");
	lua_pushinteger(L, (lua_Integer)st->missed);
	lua_setfield(L, -2, "missed");
}

void lp_strings_report(struct lp_run *run)
{
	const struct lp_run_strings *st = &run->strings;
	if (!st->missed)
		return;
	uint64_t all = st->missed;
	for (int i = 0; i < LP_STR_N; i++)
		all += st->read[i];
	char events[512] = "";
	size_t n = 0;
	for (size_t i = 0; i < sizeof st->missed_by / sizeof st->missed_by[0] && n < sizeof events; i++) {
		if (!st->missed_by[i].event)
			break;
		int w = snprintf(events + n, sizeof events - n, "%s%s %llu", n ? ", " : "",
				 st->missed_by[i].event, (unsigned long long)st->missed_by[i].n);
		n += w > 0 ? (size_t)w : 0;
	}
	const char *why = !run->live.on ?
		"a recording holds the samples' stack copies, not the processes' memory" :
		st->declared ? "not on the sample's stack copy, in a file, or in the process "
			       "as its sample was drained" :
		"their processes had exited or changed the memory before the script read it; "
		"luaprof.setup{strings = true} keeps them at the event";
	fprintf(stderr, "luaprof: %llu of %llu strings could not be read (%s): %s\n",
		(unsigned long long)st->missed, (unsigned long long)all, events, why);
}
