/*
 * capture.c - capture records: the strings a sample pointed at, read from
 * the live process by the drain thread as it takes the sample from its
 * ring, and the strings of a sample's own stack copy (see capture.h).
 *
 * A capture record is, after its perf_event_header:
 *
 *   u64 time; u32 pid, tid;          the sample's (a call record: the call's)
 *   u32 nr; u32 flags;               items that follow, at most LP_CAPTURE_MAX;
 *                                    flags 1: a call record
 *   nr x { u64 addr; u32 len; u16 kind; i16 err; u8 data[len], padded to 8 }
 *
 * Every size is checked against the record's own before it is used.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <asm/perf_regs.h>

#include "luaprof/capture.h"
#include "luaprof/proc.h"

#define HEAD 32                 /* header, time, pid, tid, nr, reserved */
#define ITEM 16                 /* an item's fixed part */

static size_t pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* Appends an item at out + *off (room bytes in all) with up to max bytes
 * of data that fill() writes; the item is left out when not even its
 * fixed part fits. */
struct item_w {
	uint8_t *out;
	size_t off, room;
	uint32_t nr;
};

static uint8_t *item_begin(struct item_w *w, size_t *max)
{
	if (w->off + ITEM + 8 > w->room || w->nr >= LP_CAPTURE_MAX)
		return NULL;
	size_t left = (w->room - w->off - ITEM) & ~(size_t)7;
	if (*max > left)
		*max = left;
	return w->out + w->off + ITEM;
}

static void item_end(struct item_w *w, uint64_t addr, uint16_t kind, int err, size_t len)
{
	uint8_t *p = w->out + w->off;
	uint32_t l = (uint32_t)len;
	int16_t e = (int16_t)(err < 0 ? -err : err);
	memcpy(p, &addr, 8);
	memcpy(p + 8, &l, 4);
	memcpy(p + 12, &kind, 2);
	memcpy(p + 14, &e, 2);
	memset(p + ITEM + len, 0, pad8(len) - len);
	w->off += ITEM + pad8(len);
	w->nr++;
}

/* The string at addr in process pid. */
static void add_str(struct item_w *w, pid_t pid, uint64_t addr)
{
	size_t max = LP_CAPTURE_STR_MAX + 1, len = 0;
	char *buf = (char *)item_begin(w, &max);
	if (!buf)
		return;
	int rc = max ? lp_proc_read_str(pid, addr, buf, max, &len) : -ENOSPC;
	item_end(w, addr, LP_CAPTURE_STR, rc, rc ? 0 : len);
}

/* An item whose data is known (len bytes at str), or that could not be
 * read (err, no data). */
static void add_known(struct item_w *w, uint64_t addr, uint16_t kind, const char *str, size_t len,
		      int err)
{
	size_t max = err ? 0 : len;
	char *buf = (char *)item_begin(w, &max);
	if (!buf)
		return;
	if (max)
		memcpy(buf, str, max);
	item_end(w, addr, kind, err, max);
}

/* /proc/PID/cmdline, its trailing NUL left out. */
static void add_cmdline(struct item_w *w, pid_t pid)
{
	char path[64];
	size_t max = LP_CAPTURE_CMDLINE_MAX, len = 0;
	char *buf = (char *)item_begin(w, &max);
	if (!buf)
		return;
	snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = fd < 0 ? errno : 0;
	while (fd >= 0 && len < max) {
		ssize_t n = read(fd, buf + len, max - len);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	if (fd >= 0)
		close(fd);
	if (!err && !len)
		err = ESRCH;            /* a zombie's is empty */
	while (len && buf[len - 1] == '\0')
		len--;
	item_end(w, 0, LP_CAPTURE_CMDLINE, err, err ? 0 : len);
}

/* The record's head, once its items are written. */
static size_t finish(struct item_w *w, const struct lp_sample *s, uint32_t flags)
{
	struct perf_event_header h = { LP_RECORD_CAPTURE, 0, (uint16_t)w->off };
	uint8_t *p = w->out;
	memcpy(p, &h, sizeof h);
	memcpy(p + 8, &s->time, 8);
	memcpy(p + 16, &s->pid, 4);
	memcpy(p + 20, &s->tid, 4);
	memcpy(p + 24, &w->nr, 4);
	memcpy(p + 28, &flags, 4);
	return w->off;
}

size_t lp_capture_call(const struct lp_sample *s, const struct lp_capture_item *items, size_t nr,
		       void *out, size_t room)
{
	struct item_w w = { out, HEAD, room > LP_CAPTURE_ROOM ? LP_CAPTURE_ROOM : room, 0 };
	if (w.room < HEAD + ITEM + 8)
		return 0;
	for (size_t i = 0; i < nr; i++)
		add_known(&w, items[i].addr, items[i].kind, items[i].data, items[i].len, items[i].err);
	return w.nr ? finish(&w, s, 1) : 0;
}

size_t lp_capture_build(const struct lp_capture_plan *plan, const struct lp_sample *s, void *out,
			size_t room)
{
	struct item_w w = { out, HEAD, room > LP_CAPTURE_ROOM ? LP_CAPTURE_ROOM : room, 0 };
	if (w.room < HEAD + ITEM + 8 || (!plan->nr_ptrs && !plan->cmdline))
		return 0;
	for (size_t i = 0; i < plan->nr_ptrs && i < LP_CAPTURE_MAX; i++) {
		uint64_t ptr;
		if (!s->raw || (size_t)plan->ptr_off[i] + 8 > s->raw_size)
			continue;
		memcpy(&ptr, (const uint8_t *)s->raw + plan->ptr_off[i], 8);
		if (ptr)
			add_str(&w, (pid_t)s->pid, ptr);
	}
	if (plan->cmdline)
		add_cmdline(&w, (pid_t)s->pid);
	return w.nr ? finish(&w, s, 0) : 0;
}

int lp_capture_decode(const void *rec, size_t len, struct lp_capture *out)
{
	const uint8_t *p = rec;
	struct perf_event_header h;
	uint32_t nr, flags;
	if (len < HEAD)
		return -EPROTO;
	memcpy(&h, p, sizeof h);
	if (h.type != LP_RECORD_CAPTURE || h.size < HEAD || h.size > len)
		return -EPROTO;
	memcpy(&out->time, p + 8, 8);
	memcpy(&out->pid, p + 16, 4);
	memcpy(&out->tid, p + 20, 4);
	memcpy(&nr, p + 24, 4);
	memcpy(&flags, p + 28, 4);
	if (nr > LP_CAPTURE_MAX)
		return -EPROTO;
	out->call = flags & 1;
	size_t off = HEAD;
	out->nr = 0;
	for (uint32_t i = 0; i < nr; i++) {
		struct lp_capture_item *it = &out->items[i];
		if (h.size - off < ITEM)
			return -EPROTO;
		memcpy(&it->addr, p + off, 8);
		memcpy(&it->len, p + off + 8, 4);
		memcpy(&it->kind, p + off + 12, 2);
		memcpy(&it->err, p + off + 14, 2);
		off += ITEM;
		if (it->len > h.size - off || pad8(it->len) > h.size - off)
			return -EPROTO;
		it->data = (const char *)p + off;
		off += pad8(it->len);
		out->nr++;
	}
	return 0;
}

int lp_sample_stack_str(const struct lp_sample *s, uint64_t addr, size_t max, const char **str,
			size_t *len)
{
	uint64_t sp;
	if (!s->user_stack || lp_sample_reg(s, PERF_REG_X86_SP, &sp) || addr < sp ||
	    s->user_stack_dyn_size > s->user_stack_size || addr - sp >= s->user_stack_dyn_size)
		return -ENOENT;
	const char *at = (const char *)s->user_stack + (addr - sp);
	size_t room = s->user_stack_dyn_size - (addr - sp);
	const char *nul = memchr(at, '\0', room < max ? room : max);
	if (!nul && room < max)
		return -ERANGE;
	*str = at;
	*len = nul ? (size_t)(nul - at) : max;
	return 0;
}

bool lp_capture_exec_event(const char *event)
{
	return !strcmp(event, "sched:sched_process_exec") ||
	       !strcmp(event, "syscalls:sys_exit_execve") || !strcmp(event, "syscalls:sys_exit_execveat");
}
