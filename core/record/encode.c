/*
 * encode.c - writing records the way the kernel lays them out (see
 * lp_record_encode in record.h): the inverse of lp_record_parse for the
 * records a profiler makes up itself, as perf record does for what existed
 * before a run (COMM, FORK, MMAP2 from /proc, KSYMBOL for the BPF programs
 * loaded) and for the kernel text map, and for the losses no LOST record
 * reported (a LOST made at the end).
 *
 * Invariants: strings are NUL-terminated and padded with NULs to 8 bytes;
 * the body ends 8-aligned, so the sample_id trailer (TID, TIME, ID,
 * STREAM_ID, CPU, IDENTIFIER, each present per sample_type) starts aligned;
 * nothing is written past size.
 */
#include <errno.h>
#include <string.h>

#include "luaprof/record.h"

#define MAX_RECORD 0xfff8u      /* header.size is a u16; records stay 8-aligned */

struct out {
	unsigned char *buf;
	size_t size, len;
	int err;                /* -ENOSPC once something did not fit */
};

static void put(struct out *o, const void *p, size_t n)
{
	if (o->err || n > o->size - o->len) {
		o->err = -ENOSPC;
		return;
	}
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

static void put_u32(struct out *o, uint32_t v)
{
	put(o, &v, sizeof v);
}

static void put_u64(struct out *o, uint64_t v)
{
	put(o, &v, sizeof v);
}

/* s with its NUL, then NULs up to the next multiple of 8. */
static void put_string(struct out *o, const char *s)
{
	static const char zeros[8];
	size_t n = strlen(s ? s : "") + 1;

	put(o, s ? s : "", n - 1);
	put(o, zeros, 8 - (n - 1) % 8);
}

static void put_mmap2_ident(struct out *o, uint16_t misc, const struct lp_mmap *m)
{
	unsigned char b[24] = { 0 };

	if (!(misc & PERF_RECORD_MISC_MMAP_BUILD_ID)) {
		put_u32(o, m->maj);
		put_u32(o, m->min);
		put_u64(o, m->ino);
		put_u64(o, m->ino_generation);
		return;
	}
	b[0] = m->build_id_size > sizeof m->build_id ? sizeof m->build_id : m->build_id_size;
	memcpy(b + 4, m->build_id, b[0]);
	put(o, b, sizeof b);
}

static void put_mmap(struct out *o, uint32_t type, uint16_t misc, const struct lp_mmap *m)
{
	put_u32(o, m->pid);
	put_u32(o, m->tid);
	put_u64(o, m->start);
	put_u64(o, m->len);
	put_u64(o, m->pgoff);
	if (type == PERF_RECORD_MMAP2) {
		put_mmap2_ident(o, misc, m);
		put_u32(o, m->prot);
		put_u32(o, m->flags);
	}
	put_string(o, m->filename);
}

static void put_task(struct out *o, const struct lp_task *t)
{
	put_u32(o, t->pid);
	put_u32(o, t->ppid);
	put_u32(o, t->tid);
	put_u32(o, t->ptid);
	put_u64(o, t->time);
}

static void put_ksymbol(struct out *o, const struct lp_ksymbol *k)
{
	put_u64(o, k->addr);
	put_u32(o, k->len);
	put(o, &k->type, sizeof k->type);
	put(o, &k->flags, sizeof k->flags);
	put_string(o, k->name);
}

static void put_sid(struct out *o, uint64_t st, const struct lp_sample_id *sid)
{
	if (st & PERF_SAMPLE_TID) {
		put_u32(o, sid->pid);
		put_u32(o, sid->tid);
	}
	if (st & PERF_SAMPLE_TIME)
		put_u64(o, sid->time);
	if (st & PERF_SAMPLE_ID)
		put_u64(o, sid->id);
	if (st & PERF_SAMPLE_STREAM_ID)
		put_u64(o, sid->stream_id);
	if (st & PERF_SAMPLE_CPU) {
		put_u32(o, sid->cpu);
		put_u32(o, 0);
	}
	if (st & PERF_SAMPLE_IDENTIFIER)
		put_u64(o, sid->id);
}

int lp_record_encode(const struct lp_record *r, const struct lp_format *fmt,
		     void *buf, size_t size)
{
	static const struct lp_sample_id none;
	struct out o = { buf, size < MAX_RECORD ? size : MAX_RECORD, 0, 0 };
	struct perf_event_header h = { r->type, r->misc, 0 };

	put(&o, &h, sizeof h);
	switch (r->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		put_mmap(&o, r->type, r->misc, &r->u.mmap);
		break;
	case PERF_RECORD_COMM:
		put_u32(&o, r->u.comm.pid);
		put_u32(&o, r->u.comm.tid);
		put_string(&o, r->u.comm.comm);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		put_task(&o, &r->u.task);
		break;
	case PERF_RECORD_LOST:
		put_u64(&o, r->u.lost.id);
		put_u64(&o, r->u.lost.lost);
		break;
	case PERF_RECORD_KSYMBOL:
		put_ksymbol(&o, &r->u.ksymbol);
		break;
	default:
		return -EINVAL;
	}
	if (fmt->sample_id_all)
		put_sid(&o, fmt->sample_type, r->has_sid ? &r->sid : &none);
	if (o.err)
		return size < MAX_RECORD ? o.err : -EINVAL;
	h.size = (uint16_t)o.len;
	memcpy(buf, &h, sizeof h);
	return (int)o.len;
}
