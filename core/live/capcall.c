/*
 * capcall.c - a system call's strings copied by the kernel at the library
 * call that makes it.
 *
 * A system call tracepoint carries pointers only, and this kernel has no
 * event probe (CONFIG_EPROBE_EVENTS) to copy what they point at.  But
 * almost every program makes its system calls through libc's wrappers
 * (open64, openat64, stat64, execve, ...), and the dynamic linker through
 * its own (__open64_nocancel, found in libc6-dbg's symbols): a uprobe
 * there with fetch arguments (evdyn.c) has the kernel copy the string as
 * the call is made, exactly, however soon the process exits.  So for each
 * system call tracepoint whose strings a run keeps, the wrappers of that
 * call get such a probe, opened on the run's targets into the run's rings
 * (never handed to the script): the drain thread makes each of their
 * samples a call record (capture.h) in its place (lp_capcall_take), and
 * the script's side gives its strings to the thread's next sample whose
 * pointer is the same: the wrapper passes its argument to the system call
 * unchanged.  (Pairing them there, in time order across the CPUs, holds
 * when exec moves the thread to another CPU between the two.)  A call that bypasses the wrappers (a static program, another
 * libc, a raw syscall()) is read from the process, as before.
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "live/evlist.h"
#include "luaprof/capture.h"
#include "luaprof/luaprof.h"
#include "luaprof/probe.h"
#include "luaprof/sym.h"

#define LIBC "libc.so.6"
#define LD "ld-linux-x86-64.so.2"

/* The wrappers: the system calls (sys_enter_NAME; "exec" for
 * sched:sched_process_exec's args.argv) whose strings a function passes,
 * in arguments (bit i: argument i + 1), and in argument argv (1 to 6), a
 * NULL-terminated array of them. */
static const struct wrapper {
	const char *calls;      /* space-separated, each between spaces */
	const char *object, *func;
	uint8_t args;
	uint8_t argv;
} wrappers[] = {
	{ " openat open ", LIBC, "open64", 1 },
	{ " openat ", LIBC, "openat64", 2 },
	{ " openat open ", LIBC, "__open64_nocancel", 1 },
	{ " openat open ", LD, "__open64_nocancel", 1 },
	{ " creat ", LIBC, "creat64", 1 },
	{ " newfstatat newstat ", LIBC, "stat64", 1 },
	{ " newfstatat newlstat ", LIBC, "lstat64", 1 },
	{ " newfstatat ", LIBC, "fstatat64", 2 },
	{ " statx ", LIBC, "statx", 2 },
	{ " statfs ", LIBC, "statfs", 1 },
	{ " access faccessat faccessat2 ", LIBC, "access", 1 },
	{ " faccessat faccessat2 ", LIBC, "faccessat", 2 },
	{ " execve exec ", LIBC, "execve", 1, 2 },
	{ " unlink unlinkat ", LIBC, "unlink", 1 },
	{ " unlinkat ", LIBC, "unlinkat", 2 },
	{ " rmdir unlinkat ", LIBC, "rmdir", 1 },
	{ " mkdir mkdirat ", LIBC, "mkdir", 1 },
	{ " mkdirat ", LIBC, "mkdirat", 2 },
	{ " chdir ", LIBC, "chdir", 1 },
	{ " readlink readlinkat ", LIBC, "readlink", 1 },
	{ " readlinkat ", LIBC, "readlinkat", 2 },
	{ " rename renameat renameat2 ", LIBC, "rename", 3 },
	{ " renameat renameat2 ", LIBC, "renameat", 10 },
	{ " renameat2 ", LIBC, "renameat2", 10 },
	{ " symlink symlinkat ", LIBC, "symlink", 3 },
	{ " link linkat ", LIBC, "link", 3 },
	{ " chmod fchmodat ", LIBC, "chmod", 1 },
	{ " chown fchownat ", LIBC, "chown", 1 },
	{ " truncate ", LIBC, "truncate", 1 },
};

#define NR_WRAPPERS (sizeof wrappers / sizeof wrappers[0])

/* Whether a run keeps the strings of tracepoint e, a system call's entry
 * that wrapper w makes. */
static bool makes(const struct wrapper *w, const struct lp_event_spec *e)
{
	const char *p = "syscalls:sys_enter_";
	char name[80];
	if (e->type == PERF_TYPE_TRACEPOINT && !e->probe && e->capture.cmdline &&
	    lp_capture_exec_event(e->name))
		return strstr(w->calls, " exec ") != NULL;
	if (e->type != PERF_TYPE_TRACEPOINT || e->probe || !e->capture.nr_ptrs ||
	    strncmp(e->name, p, strlen(p)) || strlen(e->name) - strlen(p) + 3 > sizeof name)
		return false;
	snprintf(name, sizeof name, " %s ", e->name + strlen(p));
	return strstr(w->calls, name) != NULL;
}

/* The file offset of func in object (a library name), from its symbols or
 * else those of its separate debug file (libc6-dbg: the dynamic linker's
 * are only there); *path the object's.  0 or -errno. */
static int locate(const char *object, const char *func, char *path, size_t size, uint64_t *off)
{
	struct lp_elf_sym sym;
	uint8_t id[64];
	char debug[256];
	int rc = lp_probe_find_object(object, path, size);
	if (rc)
		return rc;
	if (!lp_elf_symbol(path, func, &sym) && sym.type == STT_FUNC && sym.has_offset) {
		*off = sym.offset;
		return 0;
	}
	size_t n = lp_elf_build_id(path, id, sizeof id);
	if (n < 2)
		return -ENOENT;
	int w = snprintf(debug, sizeof debug, "/usr/lib/debug/.build-id/%02x/", id[0]);
	for (size_t i = 1; i < n && w > 0 && (size_t)w + 3 < sizeof debug; i++)
		w += snprintf(debug + w, sizeof debug - (size_t)w, "%02x", id[i]);
	snprintf(debug + w, sizeof debug - (size_t)w, ".debug");
	if (lp_elf_symbol(debug, func, &sym) || sym.type != STT_FUNC)
		return -ENOENT;
	return lp_elf_file_offset(path, sym.vaddr, off);
}

/* Adds the probe of wrapper w to cc's specs, unless one is there at the
 * same place (an alias).  0, or -ENOMEM. */
static int add_probe(struct lp_capcall *cc, const struct wrapper *w)
{
	char path[4096], name[4096 + 160];
	uint64_t off;
	if (locate(w->object, w->func, path, sizeof path, &off))
		return 0;       /* not in this libc: those calls are read from the process */
	for (size_t i = 0; i < cc->nr; i++)
		if (cc->specs[i].config2 == off && !strcmp(cc->specs[i].probe_str, path))
			return 0;
	struct lp_event_spec *v = realloc(cc->specs, (cc->nr + 1) * sizeof *v);
	if (!v)
		return -ENOMEM;
	cc->specs = v;
	struct lp_event_spec *e = &v[cc->nr];
	snprintf(name, sizeof name, "uprobe:%s:%s", path, w->func);
	*e = (struct lp_event_spec){ .name = strdup(name), .probe_str = strdup(path),
				     .probe = LP_PROBE_UPROBE, .config2 = off, .fetch = w->args,
				     .fetch_argv = w->argv,
				     .call_capture = true, .rate = LP_RATE_OWN, .use_period = true,
				     .period = 1, .callchain = 0 };
	if (!e->name || !e->probe_str) {
		lp_event_spec_free(e);
		return -ENOMEM;
	}
	cc->nr++;
	return 0;
}

int lp_capcall_init(struct lp_capcall *cc, const struct lp_event_spec *events, size_t n,
		    const struct lp_sampling *s)
{
	memset(cc, 0, sizeof *cc);
	for (size_t w = 0; w < NR_WRAPPERS; w++) {
		bool wanted = false;
		for (size_t i = 0; i < n && !wanted; i++)
			wanted = makes(&wrappers[w], &events[i]);
		int rc = wanted ? add_probe(cc, &wrappers[w]) : 0;
		if (rc)
			return rc;
	}
	if (!cc->nr)
		return 0;
	int rc = lp_evdyn_place(cc->specs, cc->nr, false);
	if (rc)
		lp_log(LP_WARN, "cannot place the probes of libc's system call wrappers (tracefs "
		       "uprobe_events: %s): the system calls' strings are read from the processes "
		       "instead", rc == -EINVAL ? "a path with a space" : strerror(-rc));
	/* the probes tracefs refused are left out */
	size_t kept = 0;
	for (size_t i = 0; i < cc->nr; i++) {
		if (cc->specs[i].dyn_event)
			cc->specs[kept++] = cc->specs[i];
		else
			lp_event_spec_free(&cc->specs[i]);
	}
	cc->nr = kept;
	if (!kept)
		return 0;
	if (!(cc->argv = malloc(LP_CAPTURE_STR_MAX)))
		return -ENOMEM;
	struct lp_sampling own = *s;
	own.callchain = false;
	own.dwarf_stack = 0;
	own.switch_events = false;
	own.all_cgroups = false;
	rc = lp_evlist_init(&cc->el, cc->specs, cc->nr, &own);
	cc->el.no_tracking = true;
	cc->on = !rc;
	return rc;
}

int lp_capcall_open_task(struct lp_capcall *cc, pid_t tid)
{
	return cc->on ? lp_evlist_open_task(&cc->el, tid) : 0;
}

int lp_capcall_redirect(struct lp_capcall *cc, const struct lp_evlist *main)
{
	if (!cc->on)
		return 0;
	cc->fmts = calloc(cc->nr, sizeof *cc->fmts);
	if (!cc->fmts)
		return -ENOMEM;
	for (size_t e = 0; e < cc->nr; e++)
		lp_format_from_attr(&cc->fmts[e], &cc->el.attrs[e]);
	for (size_t i = 0; i < cc->el.nr_fds; i++) {
		size_t c = (i / cc->el.nr_events) % cc->el.nr_cpus;
		if (cc->el.fds[i] >= 0 &&
		    ioctl(cc->el.fds[i], PERF_EVENT_IOC_SET_OUTPUT, main->fds[c * main->nr_events]))
			return -errno;
	}
	return 0;
}

void lp_capcall_enable(struct lp_capcall *cc, int on)
{
	if (cc->on)
		lp_evlist_enable(&cc->el, on);
}

/* The array of strings probe sp copied into sample s, NUL-separated
 * into buf (LP_CAPTURE_STR_MAX bytes), as item it: whole (up to its NULL)
 * or not at all (false). */
static bool take_argv(const struct lp_event_spec *sp, const struct lp_sample *s, char *buf,
		      struct lp_capture_item *it)
{
	const uint8_t *raw = s->raw;
	size_t at = 0;
	if ((size_t)sp->fetch_addr[sp->fetch_argv - 1] + 8 > s->raw_size)
		return false;
	memcpy(&it->addr, raw + sp->fetch_addr[sp->fetch_argv - 1], 8);
	for (unsigned i = 0;; i++) {
		uint64_t ptr;
		uint32_t dl;
		if (i == LP_FETCH_ARGV || (size_t)sp->argv_ptr_off[i] + 8 > s->raw_size ||
		    (size_t)sp->argv_off[i] + 4 > s->raw_size)
			return false;   /* more than it copies: the stack or /proc */
		memcpy(&ptr, raw + sp->argv_ptr_off[i], 8);
		if (!ptr)
			break;
		memcpy(&dl, raw + sp->argv_off[i], 4);
		size_t off = dl & 0xffff, len = dl >> 16;
		if (!len || off > s->raw_size || len > s->raw_size - off)
			return false;   /* not copied (a fault, or past its room) */
		len = strnlen((const char *)raw + off, len);
		if (at + len + 1 > LP_CAPTURE_STR_MAX)
			return false;
		memcpy(buf + at, raw + off, len);
		buf[at + len] = '\0';
		at += len + 1;
	}
	*it = (struct lp_capture_item){ it->addr, buf, (uint32_t)(at ? at - 1 : 0), LP_CAPTURE_ARGV, 0 };
	return true;
}

size_t lp_capcall_take(struct lp_capcall *cc, const struct perf_event_header *h,
		       const struct lp_format *fmt, void *out, size_t room, bool *mine)
{
	struct lp_capture_item items[7];
	struct lp_record r;
	uint64_t id;
	size_t n = 0;
	int e;
	*mine = false;
	if (!cc->on || lp_record_peek_id(h, h->size, fmt, &id) || (e = lp_evlist_event_of(&cc->el, id)) < 0)
		return 0;
	*mine = true;
	if (lp_record_parse(h, h->size, &cc->fmts[e], &r) || !r.u.sample.raw)
		return 0;
	const struct lp_sample *s = &r.u.sample;
	const struct lp_event_spec *sp = &cc->specs[e];
	for (unsigned i = 0; i < 6; i++) {
		uint64_t addr;
		uint32_t dl;
		if (!(sp->fetch & (1u << i)) || (size_t)sp->fetch_off[i] + 4 > s->raw_size ||
		    (size_t)sp->fetch_addr[i] + 8 > s->raw_size)
			continue;
		memcpy(&dl, (const uint8_t *)s->raw + sp->fetch_off[i], 4);
		memcpy(&addr, (const uint8_t *)s->raw + sp->fetch_addr[i], 8);
		size_t off = dl & 0xffff, len = dl >> 16;
		if (!len || off > s->raw_size || len > s->raw_size - off) {
			/* the kernel could not read it (a bad pointer): said,
			 * so that the system call's sample takes no older
			 * call's string */
			items[n++] = (struct lp_capture_item){ addr, NULL, 0, LP_CAPTURE_CALL, EFAULT };
			continue;
		}
		const char *str = (const char *)s->raw + off;
		items[n++] = (struct lp_capture_item){ addr, str, (uint32_t)strnlen(str, len),
						       LP_CAPTURE_CALL, 0 };
	}
	if (sp->fetch_argv && take_argv(sp, s, cc->argv, &items[n]))
		n++;
	return n ? lp_capture_call(s, items, n, out, room) : 0;
}

void lp_capcall_close(struct lp_capcall *cc)
{
	lp_evlist_close(&cc->el);
	lp_evdyn_remove(cc->specs, cc->nr);
	for (size_t i = 0; i < cc->nr; i++)
		lp_event_spec_free(&cc->specs[i]);
	free(cc->argv);
	free(cc->specs);
	free(cc->fmts);
	memset(cc, 0, sizeof *cc);
}
