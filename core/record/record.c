/*
 * record.c - bounds-checked decoding of perf records (see record.h).
 *
 * A record is a perf_event_header {type, misc, size} followed by a body whose
 * layout depends on the type and, for samples and the sample_id trailer, on
 * the attr that produced the event (struct lp_format).  The body is walked
 * with a cursor: a [pos, end) window that only moves forward.  Its take_*
 * helpers either consume exactly the bytes asked for or fail with -EPROTO
 * without moving, so a decoder is a chain of takes that stops at the first
 * failure.
 *
 * Invariants:
 *  - nothing outside [rec, rec + header.size) is ever read, and
 *    header.size <= len is checked before anything else;
 *  - every count or size taken from the record is compared with the bytes
 *    left (by division) before it is multiplied, so no arithmetic wraps;
 *  - scalars are read with memcpy, so the decoder itself needs no alignment.
 *    The typed pointers it hands out (read, ips, branches, regs) sit at
 *    8-byte offsets from rec because the kernel pads every variable-size
 *    field to 8 bytes and the decoder rejects records where it did not
 *    (RAW, STACK_USER, AUX); they are aligned whenever rec is;
 *  - nothing is allocated; out borrows from rec.  On failure out keeps only
 *    type, misc, size and data (when the 8 header bytes were there);
 *  - every field of out is written: a sample's fields one by one
 *    (sample_init), other records' by clearing the union first.  A sample
 *    is not cleared with memset: GCC expands a memset of that size to rep
 *    stos, slower than the stores below (docs/performance.md, "Measured
 *    choices in the code").
 *
 * With attr.sample_id_all, every non-sample record of a kernel type (below
 * PERF_RECORD_USER_TYPE_START, 64) ends with a sample_id trailer whose size
 * follows from sample_type alone.  The decoder cuts the trailer off first
 * and decodes the body in the window before it, so a body field or string
 * that would reach into the trailer is -EPROTO.
 */
#include <errno.h>
#include <string.h>

#include "luaprof/record.h"
#include "util/bits.h"

/* perf's own record types (perf.data only) start here; no trailer. */
#define USER_TYPE_START 64
/* PERF_SAMPLE_BRANCH_COUNTERS (Linux 6.8): an enum in the uapi header, so it
 * cannot be detected with #ifdef; the bit is ABI. */
#define BRANCH_COUNTERS (1ULL << 19)
#define SID_BITS (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | \
		  PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

struct cursor {
	const unsigned char *pos;
	const unsigned char *end;
};

static size_t left(const struct cursor *c)
{
	return (size_t)(c->end - c->pos);
}

static uint32_t popcount(uint64_t x)
{
	return lp_popcount(x);
}

/* Consumes n bytes and points *p at them. */
static int take(struct cursor *c, uint64_t n, const void **p)
{
	if (n > left(c))
		return -EPROTO;
	*p = c->pos;
	c->pos += n;
	return 0;
}

/* Consumes nr elements of elem bytes; nr comes from the record. */
static int take_array(struct cursor *c, uint64_t nr, size_t elem, const void **p)
{
	if (nr > left(c) / elem)
		return -EPROTO;
	return take(c, nr * elem, p);
}

static int take_u64s(struct cursor *c, uint64_t nr, const uint64_t **out)
{
	const void *p;

	if (take_array(c, nr, sizeof(uint64_t), &p))
		return -EPROTO;
	*out = p;
	return 0;
}

/* Consumes n bytes into v. */
static int take_copy(struct cursor *c, void *v, size_t n)
{
	const void *p;

	if (take(c, n, &p))
		return -EPROTO;
	memcpy(v, p, n);
	return 0;
}

static int take_u64(struct cursor *c, uint64_t *v)
{
	return take_copy(c, v, sizeof *v);
}

static int take_u32(struct cursor *c, uint32_t *v)
{
	return take_copy(c, v, sizeof *v);
}

static int take_u16(struct cursor *c, uint16_t *v)
{
	return take_copy(c, v, sizeof *v);
}

/* A NUL-terminated string that must end inside the window; it and its
 * padding take the rest of the window. */
static int take_string(struct cursor *c, const char **s)
{
	if (!memchr(c->pos, 0, left(c)))
		return -EPROTO;
	*s = (const char *)c->pos;
	c->pos = c->end;
	return 0;
}

/* A u64 present only when bit is in the sample_type st. */
static int opt_u64(struct cursor *c, uint64_t st, uint64_t bit, uint64_t *v)
{
	return (st & bit) ? take_u64(c, v) : 0;
}

/* Two u32 (pid/tid, cpu/res) present only when bit is in st. */
static int opt_u32x2(struct cursor *c, uint64_t st, uint64_t bit, uint32_t *a, uint32_t *b)
{
	if (!(st & bit))
		return 0;
	return take_u32(c, a) || take_u32(c, b) ? -EPROTO : 0;
}

/* ---- PERF_RECORD_SAMPLE ------------------------------------------------ */

/* Every field of s zero, but the period: the event's fixed one (fmt->period),
 * which a sample without PERIOD stands for, as perf assumes.  A field added
 * to struct lp_sample must be added here (the size check is a reminder). */
static void sample_init(struct lp_sample *s, uint64_t period)
{
	_Static_assert(sizeof(struct lp_sample) == 296, "zero the new field in sample_init");
	s->id = s->ip = s->time = s->addr = s->stream_id = 0;
	s->pid = s->tid = s->cpu = 0;
	s->period = period;
	s->read = NULL;
	s->nr_read = s->read_format = 0;
	s->ips = NULL;
	s->nr_ips = 0;
	s->raw = NULL;
	s->raw_size = 0;
	s->branches = NULL;
	s->nr_branches = s->branch_hw_idx = 0;
	s->user_abi = s->user_regs_mask = 0;
	s->user_regs = NULL;
	s->nr_user_regs = 0;
	s->user_stack = NULL;
	s->user_stack_size = s->user_stack_dyn_size = 0;
	s->weight = s->data_src = s->transaction = 0;
	s->intr_abi = 0;
	s->intr_regs = NULL;
	s->nr_intr_regs = 0;
	s->phys_addr = s->cgroup = s->data_page_size = s->code_page_size = 0;
	s->aux = NULL;
	s->aux_size = 0;
}

/* The fixed fields from IDENTIFIER to PERIOD. */
static int sample_head(struct cursor *c, uint64_t st, struct lp_sample *s)
{
	uint32_t res;

	if (opt_u64(c, st, PERF_SAMPLE_IDENTIFIER, &s->id) ||
	    opt_u64(c, st, PERF_SAMPLE_IP, &s->ip) ||
	    opt_u32x2(c, st, PERF_SAMPLE_TID, &s->pid, &s->tid) ||
	    opt_u64(c, st, PERF_SAMPLE_TIME, &s->time) ||
	    opt_u64(c, st, PERF_SAMPLE_ADDR, &s->addr) ||
	    opt_u64(c, st, PERF_SAMPLE_ID, &s->id) ||
	    opt_u64(c, st, PERF_SAMPLE_STREAM_ID, &s->stream_id) ||
	    opt_u32x2(c, st, PERF_SAMPLE_CPU, &s->cpu, &res) ||
	    opt_u64(c, st, PERF_SAMPLE_PERIOD, &s->period))
		return -EPROTO;
	return 0;
}

/* struct read_format: without GROUP value, [enabled], [running], [id],
 * [lost]; with GROUP nr, [enabled], [running], nr x {value, [id], [lost]}.
 * Kept raw as nr_read u64 words. */
static int sample_read(struct cursor *c, uint64_t rf, struct lp_sample *s)
{
	const uint64_t group = (rf & PERF_FORMAT_GROUP) ? 1 : 0;
	const uint64_t fixed = group + popcount(rf & (PERF_FORMAT_TOTAL_TIME_ENABLED |
						      PERF_FORMAT_TOTAL_TIME_RUNNING));
	const uint64_t per = 1 + popcount(rf & (PERF_FORMAT_ID | PERF_FORMAT_LOST));
	const uint64_t avail = left(c) / sizeof(uint64_t);
	uint64_t nr = 1;

	if (group) {
		struct cursor peek = *c;

		if (take_u64(&peek, &nr))
			return -EPROTO;
	}
	if (fixed > avail || nr > (avail - fixed) / per)
		return -EPROTO;
	s->nr_read = fixed + nr * per;
	s->read_format = rf;
	return take_u64s(c, s->nr_read, &s->read);
}

static int sample_callchain(struct cursor *c, struct lp_sample *s)
{
	if (take_u64(c, &s->nr_ips))
		return -EPROTO;
	return take_u64s(c, s->nr_ips, &s->ips);
}

/* u32 size then data; the kernel pads data so that 4 + size is a multiple
 * of 8, which keeps the fields after it aligned. */
static int sample_raw(struct cursor *c, struct lp_sample *s)
{
	if (take_u32(c, &s->raw_size))
		return -EPROTO;
	if ((sizeof(uint32_t) + s->raw_size) % sizeof(uint64_t))
		return -EPROTO;
	return take(c, s->raw_size, &s->raw);
}

/* nr, [hw_idx], nr entries, [nr counters]. */
static int sample_branches(struct cursor *c, uint64_t bst, struct lp_sample *s)
{
	const void *p;
	const uint64_t *counters;

	if (take_u64(c, &s->nr_branches))
		return -EPROTO;
	if ((bst & PERF_SAMPLE_BRANCH_HW_INDEX) && take_u64(c, &s->branch_hw_idx))
		return -EPROTO;
	if (take_array(c, s->nr_branches, sizeof(struct perf_branch_entry), &p))
		return -EPROTO;
	s->branches = p;
	if ((bst & BRANCH_COUNTERS) && take_u64s(c, s->nr_branches, &counters))
		return -EPROTO;
	return 0;
}

/* REGS_USER and REGS_INTR: abi, then one u64 per mask bit unless abi is 0
 * (PERF_SAMPLE_REGS_ABI_NONE). */
static int sample_regs(struct cursor *c, uint64_t mask, uint64_t *abi,
		       const uint64_t **regs, uint32_t *nr)
{
	if (take_u64(c, abi))
		return -EPROTO;
	if (*abi == PERF_SAMPLE_REGS_ABI_NONE)
		return 0;
	*nr = popcount(mask);
	return take_u64s(c, *nr, regs);
}

/* size, then (when size != 0) data[size] and dyn_size <= size. */
static int sample_stack(struct cursor *c, struct lp_sample *s)
{
	if (take_u64(c, &s->user_stack_size))
		return -EPROTO;
	if (s->user_stack_size == 0)
		return 0;
	if (s->user_stack_size % sizeof(uint64_t) ||
	    take(c, s->user_stack_size, &s->user_stack) ||
	    take_u64(c, &s->user_stack_dyn_size) ||
	    s->user_stack_dyn_size > s->user_stack_size)
		return -EPROTO;
	return 0;
}

static int sample_aux(struct cursor *c, struct lp_sample *s)
{
	if (take_u64(c, &s->aux_size) || s->aux_size % sizeof(uint64_t))
		return -EPROTO;
	return take(c, s->aux_size, &s->aux);
}

/* Everything after STACK_USER, in the order the kernel writes it (which is
 * perf_output_sample()'s, not the uapi comment's: CGROUP and the page sizes
 * come before AUX). */
static int sample_tail(struct cursor *c, const struct lp_format *f, struct lp_sample *s)
{
	const uint64_t st = f->sample_type;

	if (opt_u64(c, st, PERF_SAMPLE_WEIGHT_TYPE, &s->weight) ||
	    opt_u64(c, st, PERF_SAMPLE_DATA_SRC, &s->data_src) ||
	    opt_u64(c, st, PERF_SAMPLE_TRANSACTION, &s->transaction))
		return -EPROTO;
	if ((st & PERF_SAMPLE_REGS_INTR) &&
	    sample_regs(c, f->sample_regs_intr, &s->intr_abi, &s->intr_regs, &s->nr_intr_regs))
		return -EPROTO;
	if (opt_u64(c, st, PERF_SAMPLE_PHYS_ADDR, &s->phys_addr) ||
	    opt_u64(c, st, PERF_SAMPLE_CGROUP, &s->cgroup) ||
	    opt_u64(c, st, PERF_SAMPLE_DATA_PAGE_SIZE, &s->data_page_size) ||
	    opt_u64(c, st, PERF_SAMPLE_CODE_PAGE_SIZE, &s->code_page_size))
		return -EPROTO;
	if ((st & PERF_SAMPLE_AUX) && sample_aux(c, s))
		return -EPROTO;
	return 0;
}

static int parse_sample(struct cursor *c, const struct lp_format *f, struct lp_sample *s)
{
	const uint64_t st = f->sample_type;

	sample_init(s, f->period);
	if (sample_head(c, st, s))
		return -EPROTO;
	if ((st & PERF_SAMPLE_READ) && sample_read(c, f->read_format, s))
		return -EPROTO;
	if ((st & PERF_SAMPLE_CALLCHAIN) && sample_callchain(c, s))
		return -EPROTO;
	if ((st & PERF_SAMPLE_RAW) && sample_raw(c, s))
		return -EPROTO;
	if ((st & PERF_SAMPLE_BRANCH_STACK) && sample_branches(c, f->branch_sample_type, s))
		return -EPROTO;
	if ((st & PERF_SAMPLE_REGS_USER) &&
	    sample_regs(c, f->sample_regs_user, &s->user_abi, &s->user_regs, &s->nr_user_regs))
		return -EPROTO;
	s->user_regs_mask = f->sample_regs_user;
	if ((st & PERF_SAMPLE_STACK_USER) && sample_stack(c, s))
		return -EPROTO;
	return sample_tail(c, f, s);
}

/* A sample is its own sample_id. */
static void sample_sid(const struct lp_sample *s, struct lp_record *r)
{
	uint32_t pid = s->pid, tid = s->tid;
	uint64_t time = s->time;

	/* Each field loaded alone, as wide as the store that has just written
	 * it: GCC would copy pid, tid and time with one 16-byte load, which
	 * the store buffer cannot serve from three narrower stores, so it
	 * waited for them to retire: a third of this decoder's time. */
	__asm__("" : "+r"(pid), "+r"(tid), "+r"(time));
	r->has_sid = true;
	r->sid.pid = pid;
	r->sid.tid = tid;
	r->sid.time = time;
	r->sid.id = s->id;
	r->sid.stream_id = s->stream_id;
	r->sid.cpu = s->cpu;
}

/* ---- the other kernel records ------------------------------------------ */

typedef int (*body_fn)(struct cursor *c, struct lp_record *r);

/* pid, tid, addr, len, pgoff: common to MMAP and MMAP2. */
static int mmap_head(struct cursor *c, struct lp_mmap *m)
{
	if (take_u32(c, &m->pid) || take_u32(c, &m->tid) || take_u64(c, &m->start) ||
	    take_u64(c, &m->len) || take_u64(c, &m->pgoff))
		return -EPROTO;
	return 0;
}

static int parse_mmap(struct cursor *c, struct lp_record *r)
{
	struct lp_mmap *m = &r->u.mmap;

	return mmap_head(c, m) || take_string(c, &m->filename) ? -EPROTO : 0;
}

/* MMAP2's 24-byte union, device/inode flavour. */
static int mmap2_inode(struct cursor *c, struct lp_mmap *m)
{
	if (take_u32(c, &m->maj) || take_u32(c, &m->min) || take_u64(c, &m->ino) ||
	    take_u64(c, &m->ino_generation))
		return -EPROTO;
	return 0;
}

/* MMAP2's 24-byte union, build-id flavour: u8 size, u8, u16, u8 id[20]. */
static int mmap2_build_id(struct cursor *c, struct lp_mmap *m)
{
	const void *p;
	const unsigned char *b;

	if (take(c, 4 + sizeof m->build_id, &p))
		return -EPROTO;
	b = p;
	if (b[0] > sizeof m->build_id)
		return -EPROTO;
	m->build_id_size = b[0];
	memcpy(m->build_id, b + 4, m->build_id_size);
	return 0;
}

static int parse_mmap2(struct cursor *c, struct lp_record *r)
{
	struct lp_mmap *m = &r->u.mmap;
	int (*ident)(struct cursor *, struct lp_mmap *) =
		(r->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) ? mmap2_build_id : mmap2_inode;

	if (mmap_head(c, m) || ident(c, m) || take_u32(c, &m->prot) ||
	    take_u32(c, &m->flags) || take_string(c, &m->filename))
		return -EPROTO;
	return 0;
}

static int parse_comm(struct cursor *c, struct lp_record *r)
{
	struct lp_comm *cm = &r->u.comm;

	cm->exec = (r->misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
	if (take_u32(c, &cm->pid) || take_u32(c, &cm->tid) || take_string(c, &cm->comm))
		return -EPROTO;
	return 0;
}

/* FORK and EXIT. */
static int parse_task(struct cursor *c, struct lp_record *r)
{
	struct lp_task *t = &r->u.task;

	if (take_u32(c, &t->pid) || take_u32(c, &t->ppid) || take_u32(c, &t->tid) ||
	    take_u32(c, &t->ptid) || take_u64(c, &t->time))
		return -EPROTO;
	return 0;
}

static int parse_lost(struct cursor *c, struct lp_record *r)
{
	return take_u64(c, &r->u.lost.id) || take_u64(c, &r->u.lost.lost) ? -EPROTO : 0;
}

/* THROTTLE and UNTHROTTLE. */
static int parse_throttle(struct cursor *c, struct lp_record *r)
{
	struct lp_throttle *t = &r->u.throttle;

	if (take_u64(c, &t->time) || take_u64(c, &t->id) || take_u64(c, &t->stream_id))
		return -EPROTO;
	return 0;
}

/* SWITCH (a task's own: no body) and SWITCH_CPU_WIDE (the other task's
 * pid and tid).  The direction and preemption are in misc. */
static int parse_switch(struct cursor *c, struct lp_record *r)
{
	struct lp_switch *sw = &r->u.sw;

	sw->out = r->misc & PERF_RECORD_MISC_SWITCH_OUT;
	sw->preempt = sw->out && (r->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
	sw->cpu_wide = r->type == PERF_RECORD_SWITCH_CPU_WIDE;
	if (sw->cpu_wide && (take_u32(c, &sw->pid) || take_u32(c, &sw->tid)))
		return -EPROTO;
	return 0;
}

static int parse_lost_samples(struct cursor *c, struct lp_record *r)
{
	return take_u64(c, &r->u.lost_samples);
}

static int parse_cgroup(struct cursor *c, struct lp_record *r)
{
	return take_u64(c, &r->u.cgroup.id) || take_string(c, &r->u.cgroup.path) ? -EPROTO : 0;
}

static int parse_ksymbol(struct cursor *c, struct lp_record *r)
{
	struct lp_ksymbol *k = &r->u.ksymbol;

	if (take_u64(c, &k->addr) || take_u32(c, &k->len) || take_u16(c, &k->type) ||
	    take_u16(c, &k->flags) || take_string(c, &k->name))
		return -EPROTO;
	return 0;
}

static const body_fn body_decoders[] = {
	[PERF_RECORD_MMAP] = parse_mmap,
	[PERF_RECORD_LOST] = parse_lost,
	[PERF_RECORD_COMM] = parse_comm,
	[PERF_RECORD_EXIT] = parse_task,
	[PERF_RECORD_THROTTLE] = parse_throttle,
	[PERF_RECORD_UNTHROTTLE] = parse_throttle,
	[PERF_RECORD_FORK] = parse_task,
	[PERF_RECORD_MMAP2] = parse_mmap2,
	[PERF_RECORD_LOST_SAMPLES] = parse_lost_samples,
	[PERF_RECORD_SWITCH] = parse_switch,
	[PERF_RECORD_SWITCH_CPU_WIDE] = parse_switch,
	[PERF_RECORD_CGROUP] = parse_cgroup,
	[PERF_RECORD_KSYMBOL] = parse_ksymbol,
};

/* The decoder of a non-sample type, NULL for types decoded as opaque. */
static body_fn body_decoder(uint32_t type)
{
	if (type >= sizeof body_decoders / sizeof body_decoders[0])
		return NULL;
	return body_decoders[type];
}

/* ---- sample_id trailer ------------------------------------------------- */

static bool has_trailer(uint32_t type, const struct lp_format *f)
{
	return f->sample_id_all && type < USER_TYPE_START && type != PERF_RECORD_SAMPLE;
}

static size_t trailer_size(uint64_t sample_type)
{
	return sizeof(uint64_t) * popcount(sample_type & SID_BITS);
}

static int parse_sid(struct cursor *c, uint64_t st, struct lp_sample_id *sid)
{
	uint32_t res;

	if (opt_u32x2(c, st, PERF_SAMPLE_TID, &sid->pid, &sid->tid) ||
	    opt_u64(c, st, PERF_SAMPLE_TIME, &sid->time) ||
	    opt_u64(c, st, PERF_SAMPLE_ID, &sid->id) ||
	    opt_u64(c, st, PERF_SAMPLE_STREAM_ID, &sid->stream_id) ||
	    opt_u32x2(c, st, PERF_SAMPLE_CPU, &sid->cpu, &res) ||
	    opt_u64(c, st, PERF_SAMPLE_IDENTIFIER, &sid->id))
		return -EPROTO;
	return 0;
}

/* Decodes the trailer at the end of body and shrinks body to end before it.
 * A trailer that does not fit is an error for the types decoded here and
 * merely absent for opaque ones. */
static int cut_trailer(struct cursor *body, const struct lp_format *f, struct lp_record *r)
{
	size_t n;
	struct cursor t;

	if (!has_trailer(r->type, f))
		return 0;
	n = trailer_size(f->sample_type);
	if (n == 0)
		return 0;
	if (n > left(body))
		return body_decoder(r->type) ? -EPROTO : 0;
	body->end -= n;
	t = (struct cursor){ body->end, body->end + n };
	r->has_sid = true;
	return parse_sid(&t, f->sample_type, &r->sid);
}

/* ---- entry points ------------------------------------------------------ */

/* Reads the header and checks 8 <= size <= len. */
static int parse_header(const void *rec, size_t len, struct perf_event_header *h)
{
	if (len < sizeof *h)
		return -EPROTO;
	memcpy(h, rec, sizeof *h);
	if (h->size < sizeof *h || h->size > len)
		return -EPROTO;
	return 0;
}

static int parse_body(struct cursor *c, const struct lp_format *f, struct lp_record *r)
{
	body_fn fn;

	if (r->type == PERF_RECORD_SAMPLE) {
		if (parse_sample(c, f, &r->u.sample))
			return -EPROTO;
		sample_sid(&r->u.sample, r);
		return 0;
	}
	fn = body_decoder(r->type);
	return fn ? fn(c, r) : 0;
}

void lp_format_from_attr(struct lp_format *fmt, const struct perf_event_attr *attr)
{
	fmt->sample_type = attr->sample_type;
	fmt->read_format = attr->read_format;
	fmt->branch_sample_type = attr->branch_sample_type;
	fmt->sample_regs_user = attr->sample_regs_user;
	fmt->sample_regs_intr = attr->sample_regs_intr;
	fmt->sample_id_all = attr->sample_id_all;
	fmt->period = attr->freq ? 0 : attr->sample_period;
}

int lp_record_parse(const void *rec, size_t len, const struct lp_format *fmt,
		    struct lp_record *out)
{
	struct perf_event_header h = { 0 };
	struct cursor body;
	int err;

	err = parse_header(rec, len, &h);
	out->type = h.type;
	out->misc = h.misc;
	out->size = h.size;
	out->data = len >= sizeof h ? rec : NULL;
	out->has_sid = false;
	memset(&out->sid, 0, sizeof out->sid);
	if (err || h.type != PERF_RECORD_SAMPLE)
		memset(&out->u, 0, sizeof out->u);
	if (err)
		return err;
	body.pos = (const unsigned char *)rec + sizeof h;
	body.end = (const unsigned char *)rec + h.size;
	err = cut_trailer(&body, fmt, out);
	if (!err)
		err = parse_body(&body, fmt, out);
	if (err) {
		out->has_sid = false;
		memset(&out->sid, 0, sizeof out->sid);
		memset(&out->u, 0, sizeof out->u);
	}
	return err;
}

int lp_record_peek_id(const void *rec, size_t len, const struct lp_format *fmt,
		      uint64_t *id)
{
	struct perf_event_header h;
	const unsigned char *p = rec;
	size_t off, need;

	if (parse_header(rec, len, &h))
		return -EPROTO;
	if (!(fmt->sample_type & PERF_SAMPLE_IDENTIFIER))
		return -ENOENT;
	if (h.type == PERF_RECORD_SAMPLE) {
		off = sizeof h;
		need = sizeof *id;
	} else if (has_trailer(h.type, fmt)) {
		off = (size_t)h.size - sizeof *id;
		need = trailer_size(fmt->sample_type);
	} else {
		return -ENOENT;
	}
	/* The sample's first field, or the whole trailer, must fit. */
	if ((size_t)h.size - sizeof h < need)
		return -EPROTO;
	memcpy(id, p + off, sizeof *id);
	return 0;
}

int lp_record_peek_time(const void *rec, size_t len, const struct lp_format *fmt,
			uint64_t *time)
{
	struct perf_event_header h;
	uint64_t st = fmt->sample_type;
	size_t off;

	if (parse_header(rec, len, &h))
		return -EPROTO;
	if (!(st & PERF_SAMPLE_TIME))
		return -ENOENT;
	if (h.type == PERF_RECORD_SAMPLE) {
		off = sizeof h + 8 * (!!(st & PERF_SAMPLE_IDENTIFIER) + !!(st & PERF_SAMPLE_IP) +
				      !!(st & PERF_SAMPLE_TID));
	} else if (has_trailer(h.type, fmt)) {
		if (trailer_size(st) > (size_t)h.size - sizeof h)
			return -EPROTO;
		off = (size_t)h.size - trailer_size(st) + 8 * !!(st & PERF_SAMPLE_TID);
	} else {
		return -ENOENT;
	}
	if (off + sizeof *time > h.size)
		return -EPROTO;
	memcpy(time, (const unsigned char *)rec + off, sizeof *time);
	return 0;
}

uint64_t lp_record_time(const struct lp_record *r)
{
	if (r->type == PERF_RECORD_SAMPLE)
		return r->u.sample.time;
	return r->has_sid ? r->sid.time : 0;
}

int lp_sample_reg(const struct lp_sample *s, unsigned reg, uint64_t *value)
{
	if (reg >= 64 || !s->user_regs || !s->user_abi || !(s->user_regs_mask & (1ull << reg)))
		return -ENOENT;
	uint32_t i = popcount(s->user_regs_mask & ((1ull << reg) - 1));
	if (i >= s->nr_user_regs)
		return -ENOENT;
	*value = s->user_regs[i];
	return 0;
}

uint64_t lp_sample_group_nr(const struct lp_sample *s)
{
	return s->read && s->nr_read && (s->read_format & PERF_FORMAT_GROUP) ? s->read[0] : 0;
}

int lp_sample_group_value(const struct lp_sample *s, uint64_t i, uint64_t *value, uint64_t *id)
{
	uint64_t rf = s->read_format;
	uint64_t fixed = 1 + popcount(rf & (PERF_FORMAT_TOTAL_TIME_ENABLED |
					    PERF_FORMAT_TOTAL_TIME_RUNNING));
	uint64_t per = 1 + popcount(rf & (PERF_FORMAT_ID | PERF_FORMAT_LOST));
	if (i >= lp_sample_group_nr(s) || fixed + (i + 1) * per > s->nr_read)
		return -ENOENT;
	const uint64_t *m = s->read + fixed + i * per;
	*value = m[0];
	*id = (rf & PERF_FORMAT_ID) ? m[1] : 0;
	return 0;
}

/* p moved from [from, from + size] to the same place after to; other
 * pointers (NULL, or outside the record) stay. */
static const void *moved(const void *p, const void *from, size_t size, const void *to)
{
	uintptr_t a = (uintptr_t)p, f = (uintptr_t)from;
	if (!p || a < f || a > f + size)
		return p;
	return (const unsigned char *)to + (a - f);
}

void lp_record_rebase(struct lp_record *r, const void *to)
{
	const void *from = r->data;
	size_t n = r->size;
	struct lp_sample *s = &r->u.sample;

	if (!from)
		return;
	switch (r->type) {
	case PERF_RECORD_SAMPLE:
		s->read = moved(s->read, from, n, to);
		s->ips = moved(s->ips, from, n, to);
		s->raw = moved(s->raw, from, n, to);
		s->branches = moved(s->branches, from, n, to);
		s->user_regs = moved(s->user_regs, from, n, to);
		s->user_stack = moved(s->user_stack, from, n, to);
		s->intr_regs = moved(s->intr_regs, from, n, to);
		s->aux = moved(s->aux, from, n, to);
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		r->u.mmap.filename = moved(r->u.mmap.filename, from, n, to);
		break;
	case PERF_RECORD_COMM:
		r->u.comm.comm = moved(r->u.comm.comm, from, n, to);
		break;
	case PERF_RECORD_CGROUP:
		r->u.cgroup.path = moved(r->u.cgroup.path, from, n, to);
		break;
	case PERF_RECORD_KSYMBOL:
		r->u.ksymbol.name = moved(r->u.ksymbol.name, from, n, to);
		break;
	default:
		break;
	}
	r->data = to;
}
