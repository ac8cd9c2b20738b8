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
 * (never handed to the script).  The drain thread keeps the latest call's
 * strings per thread (lp_capcall_take) and puts them into the capture
 * record of the thread's next sample whose pointer is the same
 * (lp_capcall_find): the wrapper passes its argument to the system call
 * unchanged.  A call that bypasses the wrappers (a static program, another
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
#include "luaprof/probe.h"
#include "luaprof/sym.h"

#define LIBC "libc.so.6"
#define LD "ld-linux-x86-64.so.2"

/* The wrappers: the system calls (sys_enter_NAME) whose strings a
 * function passes, in arguments (bit i: argument i + 1). */
static const struct wrapper {
	const char *calls;      /* space-separated, each between spaces */
	const char *object, *func;
	uint8_t args;
} wrappers[] = {
	{ " openat open ", LIBC, "open64", 1 },
	{ " openat ", LIBC, "openat64", 2 },
	{ " openat open ", LIBC, "__open64_nocancel", 1 },
	{ " openat open ", LD, "__open64_nocancel", 1 },
	{ " openat open creat ", LIBC, "creat64", 1 },
	{ " newfstatat newstat ", LIBC, "stat64", 1 },
	{ " newfstatat newlstat ", LIBC, "lstat64", 1 },
	{ " newfstatat ", LIBC, "fstatat64", 2 },
	{ " statx ", LIBC, "statx", 2 },
	{ " statfs ", LIBC, "statfs", 1 },
	{ " access faccessat faccessat2 ", LIBC, "access", 1 },
	{ " faccessat faccessat2 ", LIBC, "faccessat", 2 },
	{ " execve ", LIBC, "execve", 1 },
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

/* The per-thread strings of the latest call (see the top). */
#define SLOTS 256
#define PER_CALL 2

struct lp_capcall_call {
	uint32_t tid;
	uint64_t time;
	uint32_t n;
	struct { uint64_t addr; uint32_t len; char str[LP_CAPTURE_STR_MAX]; } s[PER_CALL];
};

/* Whether a run keeps the strings of tracepoint e, a system call's entry
 * that wrapper w makes. */
static bool makes(const struct wrapper *w, const struct lp_event_spec *e)
{
	const char *p = "syscalls:sys_enter_";
	char name[80];
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
	lp_evdyn_place(cc->specs, cc->nr);
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
	struct lp_sampling own = *s;
	own.callchain = false;
	own.dwarf_stack = 0;
	own.switch_events = false;
	int rc = lp_evlist_init(&cc->el, cc->specs, cc->nr, &own);
	cc->el.no_tracking = true;
	cc->on = !rc;
	return rc;
}

int lp_capcall_open_task(struct lp_capcall *cc, pid_t tid, char *err, size_t errsz)
{
	return cc->on ? lp_evlist_open_task(&cc->el, tid, err, errsz) : 0;
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

bool lp_capcall_take(struct lp_capcall *cc, const struct perf_event_header *h,
		     const struct lp_format *fmt)
{
	struct lp_record r;
	uint64_t id;
	int e;
	if (!cc->on || lp_record_peek_id(h, h->size, fmt, &id) || (e = lp_evlist_event_of(&cc->el, id)) < 0)
		return false;
	if (lp_record_parse(h, h->size, &cc->fmts[e], &r) || !r.u.sample.raw)
		return true;
	const struct lp_sample *s = &r.u.sample;
	const struct lp_event_spec *sp = &cc->specs[e];
	struct lp_capcall_call **slot = &cc->calls[s->tid % SLOTS];
	if (!*slot && !(*slot = malloc(sizeof **slot)))
		return true;
	struct lp_capcall_call *c = *slot;
	c->tid = s->tid;
	c->time = s->time;
	c->n = 0;
	for (unsigned i = 0; i < 6 && c->n < PER_CALL; i++) {
		uint64_t addr;
		uint32_t dl;
		if (!(sp->fetch & (1u << i)) || (size_t)sp->fetch_off[i] + 4 > s->raw_size ||
		    (size_t)sp->fetch_addr[i] + 8 > s->raw_size)
			continue;
		memcpy(&dl, (const uint8_t *)s->raw + sp->fetch_off[i], 4);
		memcpy(&addr, (const uint8_t *)s->raw + sp->fetch_addr[i], 8);
		size_t off = dl & 0xffff, len = dl >> 16;
		if (!len || off > s->raw_size || len > s->raw_size - off)
			continue;       /* the kernel could not read it */
		const char *str = (const char *)s->raw + off;
		len = strnlen(str, len);
		if (len >= LP_CAPTURE_STR_MAX)
			len = LP_CAPTURE_STR_MAX - 1;
		c->s[c->n].addr = addr;
		c->s[c->n].len = (uint32_t)len;
		memcpy(c->s[c->n].str, str, len);
		c->n++;
	}
	return true;
}

bool lp_capcall_find(struct lp_capcall *cc, uint32_t tid, uint64_t time, uint64_t addr,
		     const char **str, size_t *len)
{
	struct lp_capcall_call *c = cc->on ? cc->calls[tid % SLOTS] : NULL;
	if (!c || c->tid != tid || c->time > time)
		return false;
	for (uint32_t i = 0; i < c->n; i++)
		if (c->s[i].addr == addr) {
			*str = c->s[i].str;
			*len = c->s[i].len;
			return true;
		}
	return false;
}

void lp_capcall_close(struct lp_capcall *cc)
{
	lp_evlist_close(&cc->el);
	lp_evdyn_remove(cc->specs, cc->nr);
	for (size_t i = 0; i < cc->nr; i++)
		lp_event_spec_free(&cc->specs[i]);
	for (size_t i = 0; i < SLOTS; i++)
		free(cc->calls[i]);
	free(cc->specs);
	free(cc->fmts);
	memset(cc, 0, sizeof *cc);
}
