/*
 * test_record.c - unit tests of the perf record decoder (core/record/record.c).
 *
 * Records are built byte by byte with a small builder, then copied into an
 * exactly-sized malloc buffer before decoding so that AddressSanitizer sees
 * any read past the record.
 */
#include <errno.h>
#include <stdbool.h>

#include "luaprof/record.h"
#include "test.h"

/* ---- record builder ---------------------------------------------------- */

struct builder {
	_Alignas(8) unsigned char b[2048];
	size_t n;
};

static void put(struct builder *bd, const void *p, size_t n)
{
	if (bd->n + n > sizeof bd->b)
		abort();
	memcpy(bd->b + bd->n, p, n);
	bd->n += n;
}

static void put_u64(struct builder *bd, uint64_t v) { put(bd, &v, sizeof v); }
static void put_u32(struct builder *bd, uint32_t v) { put(bd, &v, sizeof v); }
static void put_u16(struct builder *bd, uint16_t v) { put(bd, &v, sizeof v); }
static void put_u8(struct builder *bd, uint8_t v) { put(bd, &v, sizeof v); }

static void put_zeros(struct builder *bd, size_t n)
{
	while (n--)
		put_u8(bd, 0);
}

/* A string with its NUL, zero-padded to 8 bytes as the kernel does. */
static void put_str(struct builder *bd, const char *s)
{
	put(bd, s, strlen(s) + 1);
	put_zeros(bd, (8 - bd->n % 8) % 8);
}

static void begin(struct builder *bd, uint32_t type, uint16_t misc)
{
	bd->n = 0;
	put_u32(bd, type);
	put_u16(bd, misc);
	put_u16(bd, 0);
}

static void set_size(unsigned char *rec, uint16_t size)
{
	memcpy(rec + 6, &size, sizeof size);
}

static void finish(struct builder *bd)
{
	set_size(bd->b, (uint16_t)bd->n);
}

/* The full trailer for SID_ALL: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER. */
#define SID_ALL (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | \
		 PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

static void put_sid_all(struct builder *bd)
{
	put_u32(bd, 41);
	put_u32(bd, 42);
	put_u64(bd, 5000);
	put_u64(bd, 0x77);
	put_u64(bd, 0x88);
	put_u32(bd, 6);
	put_u32(bd, 0);
	put_u64(bd, 0x77);
}

/* ---- decoding helpers -------------------------------------------------- */

struct parsed {
	unsigned char *buf;   /* exactly-sized copy the record borrows from */
	struct lp_record r;
	int rc;
};

static unsigned char *dup_exact(const void *p, size_t n)
{
	unsigned char *b = malloc(n ? n : 1);

	if (!b)
		abort();
	memcpy(b, p, n);
	return b;
}

static struct parsed parse_bd(const struct builder *bd, const struct lp_format *f)
{
	struct parsed p;

	p.buf = dup_exact(bd->b, bd->n);
	p.rc = lp_record_parse(p.buf, bd->n, f, &p.r);
	return p;
}

static int parse_rc(const struct builder *bd, const struct lp_format *f)
{
	struct parsed p = parse_bd(bd, f);

	free(p.buf);
	return p.rc;
}

/* True when [p, p+n) lies inside [buf, buf+len); NULL only with n == 0. */
static bool within(const void *p, uint64_t n, const unsigned char *buf, size_t len)
{
	uintptr_t a = (uintptr_t)p, lo = (uintptr_t)buf;

	if (!p)
		return n == 0;
	return a >= lo && a - lo <= len && n <= len - (a - lo);
}

static bool str_within(const char *s, const unsigned char *buf, size_t len)
{
	uintptr_t a = (uintptr_t)s, lo = (uintptr_t)buf;

	if (!s || a < lo || a - lo >= len)
		return false;
	return memchr(s, 0, len - (a - lo)) != NULL;
}

/* Every borrowed pointer of a decoded record lies inside its buffer. */
static bool record_within(const struct lp_record *r, const unsigned char *buf, size_t len)
{
	const struct lp_sample *s = &r->u.sample;

	if (r->size > len || r->data != (const void *)buf)
		return false;
	switch (r->type) {
	case PERF_RECORD_SAMPLE:
		return within(s->read, s->nr_read * 8, buf, len) &&
		       within(s->ips, s->nr_ips * 8, buf, len) &&
		       within(s->raw, s->raw_size, buf, len) &&
		       within(s->branches, s->nr_branches * 24, buf, len) &&
		       within(s->user_regs, (uint64_t)s->nr_user_regs * 8, buf, len) &&
		       within(s->user_stack, s->user_stack_size, buf, len) &&
		       within(s->intr_regs, (uint64_t)s->nr_intr_regs * 8, buf, len) &&
		       within(s->aux, s->aux_size, buf, len) &&
		       s->user_stack_dyn_size <= s->user_stack_size;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return str_within(r->u.mmap.filename, buf, r->size);
	case PERF_RECORD_COMM:
		return str_within(r->u.comm.comm, buf, r->size);
	case PERF_RECORD_KSYMBOL:
		return str_within(r->u.ksymbol.name, buf, r->size);
	default:
		return true;
	}
}

/* ---- a sample with every common field ---------------------------------- */

#define FULL_ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
		 PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | \
		 PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | \
		 PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | \
		 PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER | \
		 PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC)
#define USER_MASK ((1ULL << 0) | (1ULL << 1) | (1ULL << 2) | (1ULL << 10))

static struct lp_format full_format(void)
{
	struct lp_format f = {
		.sample_type = FULL_ST,
		.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			       PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID,
		.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX,
		.sample_regs_user = USER_MASK,
		.sample_id_all = true,
	};
	return f;
}

static void build_full_sample(struct builder *bd)
{
	begin(bd, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	put_u64(bd, 0x1d);                              /* IDENTIFIER */
	put_u64(bd, 0x401000);                          /* IP */
	put_u32(bd, 100);                               /* TID */
	put_u32(bd, 101);
	put_u64(bd, 123456789);                         /* TIME */
	put_u64(bd, 0xdead0000);                        /* ADDR */
	put_u64(bd, 0x1d);                              /* ID */
	put_u64(bd, 0x5e);                              /* STREAM_ID */
	put_u32(bd, 3);                                 /* CPU, res */
	put_u32(bd, 0);
	put_u64(bd, 4000);                              /* PERIOD */
	put_u64(bd, 77);                                /* READ: value */
	put_u64(bd, 1000);                              /*  enabled */
	put_u64(bd, 900);                               /*  running */
	put_u64(bd, 0x1d);                              /*  id */
	put_u64(bd, 3);                                 /* CALLCHAIN nr */
	put_u64(bd, PERF_CONTEXT_USER);
	put_u64(bd, 0x401000);
	put_u64(bd, 0x402000);
	put_u32(bd, 12);                                /* RAW: 4 + 12 = 16 */
	put(bd, "raw-payload!", 12);
	put_u64(bd, 2);                                 /* BRANCH_STACK nr */
	put_u64(bd, 7);                                 /*  hw_idx */
	put_u64(bd, 0x1000); put_u64(bd, 0x2000); put_u64(bd, 1);
	put_u64(bd, 0x3000); put_u64(bd, 0x4000); put_u64(bd, 2);
	put_u64(bd, PERF_SAMPLE_REGS_ABI_64);           /* REGS_USER */
	put_u64(bd, 0xa0); put_u64(bd, 0xa1); put_u64(bd, 0xa2); put_u64(bd, 0xaa);
	put_u64(bd, 16);                                /* STACK_USER size */
	put(bd, "0123456789abcdef", 16);
	put_u64(bd, 12);                                /*  dyn_size */
	put_u64(bd, 250);                               /* WEIGHT */
	put_u64(bd, 0xabc);                             /* DATA_SRC */
	finish(bd);
}

static void test_format_from_attr(void)
{
	struct perf_event_attr a;
	struct lp_format f;

	memset(&a, 0, sizeof a);
	a.sample_type = FULL_ST;
	a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
	a.branch_sample_type = PERF_SAMPLE_BRANCH_HW_INDEX;
	a.sample_regs_user = 0xff;
	a.sample_regs_intr = 0xf0f;
	a.sample_id_all = 1;
	lp_format_from_attr(&f, &a);
	TEST_EQ_U64(f.sample_type, FULL_ST);
	TEST_EQ_U64(f.read_format, PERF_FORMAT_GROUP | PERF_FORMAT_ID);
	TEST_EQ_U64(f.branch_sample_type, PERF_SAMPLE_BRANCH_HW_INDEX);
	TEST_EQ_U64(f.sample_regs_user, 0xff);
	TEST_EQ_U64(f.sample_regs_intr, 0xf0f);
	TEST_TRUE(f.sample_id_all);
	a.sample_id_all = 0;
	lp_format_from_attr(&f, &a);
	TEST_TRUE(!f.sample_id_all);
}

static void test_sample_all_common(void)
{
	struct builder bd;
	struct lp_format f = full_format();
	struct parsed p;
	const struct lp_sample *s;

	build_full_sample(&bd);
	p = parse_bd(&bd, &f);
	s = &p.r.u.sample;
	TEST_EQ(p.rc, 0);
	TEST_EQ(p.r.type, PERF_RECORD_SAMPLE);
	TEST_EQ(p.r.misc, PERF_RECORD_MISC_USER);
	TEST_EQ(p.r.size, bd.n);
	TEST_TRUE(p.r.data == (const void *)p.buf);
	TEST_EQ_U64(s->id, 0x1d);
	TEST_EQ_U64(s->ip, 0x401000);
	TEST_EQ(s->pid, 100);
	TEST_EQ(s->tid, 101);
	TEST_EQ_U64(s->time, 123456789);
	TEST_EQ_U64(s->addr, 0xdead0000);
	TEST_EQ_U64(s->stream_id, 0x5e);
	TEST_EQ(s->cpu, 3);
	TEST_EQ_U64(s->period, 4000);
	TEST_EQ_U64(s->nr_read, 4);
	TEST_TRUE(s->read == (const uint64_t *)(p.buf + 80));
	TEST_EQ_U64(s->read[0], 77);
	TEST_EQ_U64(s->read[1], 1000);
	TEST_EQ_U64(s->read[2], 900);
	TEST_EQ_U64(s->read[3], 0x1d);
	TEST_EQ_U64(s->nr_ips, 3);
	TEST_EQ_U64(s->ips[0], PERF_CONTEXT_USER);
	TEST_EQ_U64(s->ips[1], 0x401000);
	TEST_EQ_U64(s->ips[2], 0x402000);
	TEST_EQ(s->raw_size, 12);
	TEST_TRUE(s->raw && !memcmp(s->raw, "raw-payload!", 12));
	TEST_EQ_U64(s->nr_branches, 2);
	TEST_EQ_U64(s->branch_hw_idx, 7);
	TEST_EQ_U64(s->branches[0].from, 0x1000);
	TEST_EQ_U64(s->branches[0].to, 0x2000);
	TEST_EQ(s->branches[0].mispred, 1);
	TEST_EQ_U64(s->branches[1].from, 0x3000);
	TEST_EQ_U64(s->branches[1].to, 0x4000);
	TEST_EQ(s->branches[1].predicted, 1);
	TEST_EQ_U64(s->user_abi, PERF_SAMPLE_REGS_ABI_64);
	TEST_EQ(s->nr_user_regs, 4);
	TEST_EQ_U64(s->user_regs[0], 0xa0);
	TEST_EQ_U64(s->user_regs[3], 0xaa);
	TEST_EQ_U64(s->user_stack_size, 16);
	TEST_TRUE(s->user_stack && !memcmp(s->user_stack, "0123456789abcdef", 16));
	TEST_EQ_U64(s->user_stack_dyn_size, 12);
	TEST_EQ_U64(s->weight, 250);
	TEST_EQ_U64(s->data_src, 0xabc);
	TEST_EQ_U64(s->transaction, 0);
	TEST_TRUE(s->intr_regs == NULL && s->aux == NULL);
	/* A sample is its own sample_id. */
	TEST_TRUE(p.r.has_sid);
	TEST_EQ(p.r.sid.pid, 100);
	TEST_EQ(p.r.sid.tid, 101);
	TEST_EQ_U64(p.r.sid.time, 123456789);
	TEST_EQ_U64(p.r.sid.id, 0x1d);
	TEST_EQ_U64(p.r.sid.stream_id, 0x5e);
	TEST_EQ(p.r.sid.cpu, 3);
	TEST_EQ_U64(lp_record_time(&p.r), 123456789);
	TEST_TRUE(record_within(&p.r, p.buf, bd.n));
	free(p.buf);
}

/* Fields after DATA_SRC, in kernel order: ..., CGROUP, page sizes, AUX. */
static void test_sample_tail_fields(void)
{
	struct builder bd;
	struct lp_format f = {
		.sample_type = PERF_SAMPLE_TIME | PERF_SAMPLE_WEIGHT_STRUCT |
			       PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_REGS_INTR |
			       PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP |
			       PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE |
			       PERF_SAMPLE_AUX,
		.sample_regs_intr = 0x3,
	};
	struct parsed p;
	const struct lp_sample *s;

	begin(&bd, PERF_RECORD_SAMPLE, 0);
	put_u64(&bd, 999);                      /* TIME */
	put_u64(&bd, 0x0003000200000001ULL);    /* WEIGHT_STRUCT */
	put_u64(&bd, 0x7);                      /* TRANSACTION */
	put_u64(&bd, PERF_SAMPLE_REGS_ABI_64);  /* REGS_INTR */
	put_u64(&bd, 0xb0);
	put_u64(&bd, 0xb1);
	put_u64(&bd, 0x1234000);                /* PHYS_ADDR */
	put_u64(&bd, 0xc6);                     /* CGROUP */
	put_u64(&bd, 4096);                     /* DATA_PAGE_SIZE */
	put_u64(&bd, 2 << 20);                  /* CODE_PAGE_SIZE */
	put_u64(&bd, 16);                       /* AUX */
	put(&bd, "auxauxauxauxauxa", 16);
	finish(&bd);
	p = parse_bd(&bd, &f);
	s = &p.r.u.sample;
	TEST_EQ(p.rc, 0);
	TEST_EQ_U64(s->time, 999);
	TEST_EQ_U64(s->weight, 0x0003000200000001ULL);
	TEST_EQ_U64(s->transaction, 7);
	TEST_EQ_U64(s->intr_abi, PERF_SAMPLE_REGS_ABI_64);
	TEST_EQ(s->nr_intr_regs, 2);
	TEST_EQ_U64(s->intr_regs[0], 0xb0);
	TEST_EQ_U64(s->intr_regs[1], 0xb1);
	TEST_EQ_U64(s->phys_addr, 0x1234000);
	TEST_EQ_U64(s->cgroup, 0xc6);
	TEST_EQ_U64(s->data_page_size, 4096);
	TEST_EQ_U64(s->code_page_size, 2 << 20);
	TEST_EQ_U64(s->aux_size, 16);
	TEST_TRUE(s->aux && !memcmp(s->aux, "auxauxauxauxauxa", 16));
	TEST_EQ_U64(lp_record_time(&p.r), 999);
	free(p.buf);
}

/* Without PERIOD in sample_type a sample stands for the attr's fixed
 * period (lp_format.period), as perf reads it; with it, the record's. */
static void test_period_from_format(void)
{
	struct builder bd;
	struct lp_format f = { .sample_type = PERF_SAMPLE_IP, .period = 512 };
	struct parsed p;

	begin(&bd, PERF_RECORD_SAMPLE, 0);
	put_u64(&bd, 0x1234);
	finish(&bd);
	p = parse_bd(&bd, &f);
	TEST_EQ(p.rc, 0);
	TEST_EQ_U64(p.r.u.sample.ip, 0x1234);
	TEST_EQ_U64(p.r.u.sample.period, 512);
	free(p.buf);

	f.sample_type |= PERF_SAMPLE_PERIOD;
	begin(&bd, PERF_RECORD_SAMPLE, 0);
	put_u64(&bd, 0x1234);
	put_u64(&bd, 7);
	finish(&bd);
	p = parse_bd(&bd, &f);
	TEST_EQ(p.rc, 0);
	TEST_EQ_U64(p.r.u.sample.period, 7);
	free(p.buf);
}

static void test_read_group(void)
{
	struct builder bd;
	struct lp_format f = {
		.sample_type = PERF_SAMPLE_READ | PERF_SAMPLE_PERIOD,
		.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
			       PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID |
			       PERF_FORMAT_LOST,
	};
	struct parsed p;
	const struct lp_sample *s;
	static const uint64_t words[] = { 2, 500, 400, 11, 0x101, 0, 22, 0x102, 3 };

	begin(&bd, PERF_RECORD_SAMPLE, 0);
	put_u64(&bd, 1000);                     /* PERIOD */
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		put_u64(&bd, words[i]);
	finish(&bd);
	p = parse_bd(&bd, &f);
	s = &p.r.u.sample;
	TEST_EQ(p.rc, 0);
	TEST_EQ_U64(s->period, 1000);
	TEST_EQ_U64(s->nr_read, 9);
	for (size_t i = 0; i < 9 && s->read; i++)
		TEST_EQ_U64(s->read[i], words[i]);
	free(p.buf);

	/* nr = 0: just the nr word and the two times. */
	begin(&bd, PERF_RECORD_SAMPLE, 0);
	put_u64(&bd, 1000);
	put_u64(&bd, 0);
	put_u64(&bd, 5);
	put_u64(&bd, 4);
	finish(&bd);
	p = parse_bd(&bd, &f);
	TEST_EQ(p.rc, 0);
	TEST_EQ_U64(p.r.u.sample.nr_read, 3);
	free(p.buf);
}

static void test_read_no_group(void)
{
	struct builder bd;
	struct lp_format f = {
		.sample_type = PERF_SAMPLE_READ | PERF_SAMPLE_WEIGHT,
		.read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST,
	};
	struct parsed p;

	begin(&bd, PERF_RECORD_SAMPLE, 0);
	put_u64(&bd, 55);                       /* value */
	put_u64(&bd, 0x31);                     /* id */
	put_u64(&bd, 2);                        /* lost */
	put_u64(&bd, 8);                        /* WEIGHT */
	finish(&bd);
	p = parse_bd(&bd, &f);
	TEST_EQ(p.rc, 0);
	TEST_EQ_U64(p.r.u.sample.nr_read, 3);
	TEST_EQ_U64(p.r.u.sample.read[0], 55);
	TEST_EQ_U64(p.r.u.sample.read[1], 0x31);
	TEST_EQ_U64(p.r.u.sample.read[2], 2);
	TEST_EQ_U64(p.r.u.sample.weight, 8);
	free(p.buf);
}

/* abi 0 means no registers; stack size 0 means no data and no dyn_size. */
static void test_sample_empty_regs_stack(void)
{
	struct builder bd;
	struct lp_format f = {
		.sample_type = PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |
			       PERF_SAMPLE_WEIGHT | PERF_SAMPLE_REGS_INTR |
			       PERF_SAMPLE_PHYS_ADDR,
		.sample_regs_user = 0xffff,
		.sample_regs_intr = 0xff,
	};
	struct parsed p;
	const struct lp_sample *s;

	begin(&bd, PERF_RECORD_SAMPLE, 0);
	put_u64(&bd, PERF_SAMPLE_REGS_ABI_NONE);
	put_u64(&bd, 0);                        /* STACK_USER size */
	put_u64(&bd, 31);                       /* WEIGHT */
	put_u64(&bd, PERF_SAMPLE_REGS_ABI_NONE);
	put_u64(&bd, 0x5000);                   /* PHYS_ADDR */
	finish(&bd);
	p = parse_bd(&bd, &f);
	s = &p.r.u.sample;
	TEST_EQ(p.rc, 0);
	TEST_EQ(s->nr_user_regs, 0);
	TEST_TRUE(s->user_regs == NULL);
	TEST_EQ_U64(s->user_stack_size, 0);
	TEST_TRUE(s->user_stack == NULL);
	TEST_EQ_U64(s->user_stack_dyn_size, 0);
	TEST_EQ_U64(s->weight, 31);
	TEST_EQ(s->nr_intr_regs, 0);
	TEST_EQ_U64(s->phys_addr, 0x5000);
	free(p.buf);
}

/* A sample writes every field of the record, so nothing of the record it
 * is decoded over is left: decoded over 0xa5 bytes, a sample of only IP
 * has everything else zero (the period is the format's). */
static void test_sample_overwrites_all(void)
{
	struct builder bd;
	struct lp_format f = { .sample_type = PERF_SAMPLE_IP, .period = 7 };
	struct lp_record r;
	const struct lp_sample *s = &r.u.sample;
	unsigned char *buf;

	begin(&bd, PERF_RECORD_SAMPLE, 0);
	put_u64(&bd, 0x1234);
	finish(&bd);
	buf = dup_exact(bd.b, bd.n);
	memset(&r, 0xa5, sizeof r);
	TEST_EQ(lp_record_parse(buf, bd.n, &f, &r), 0);
	TEST_EQ_U64(s->ip, 0x1234);
	TEST_EQ_U64(s->period, 7);
	TEST_EQ_U64(s->id | s->time | s->addr | s->stream_id | s->pid | s->tid | s->cpu, 0);
	TEST_TRUE(!s->read && !s->ips && !s->raw && !s->branches && !s->user_regs &&
		  !s->user_stack && !s->intr_regs && !s->aux);
	TEST_EQ_U64(s->nr_read | s->nr_ips | s->raw_size | s->nr_branches | s->branch_hw_idx |
		    s->user_abi | s->nr_user_regs | s->user_regs_mask | s->user_stack_size |
		    s->user_stack_dyn_size, 0);
	TEST_EQ_U64(s->weight | s->data_src | s->transaction | s->intr_abi | s->nr_intr_regs |
		    s->phys_addr | s->cgroup | s->data_page_size | s->code_page_size |
		    s->aux_size, 0);
	TEST_TRUE(r.has_sid);
	TEST_EQ_U64(r.sid.time | r.sid.stream_id | r.sid.cpu | r.sid.pid, 0);
	free(buf);
}

/* PERF_SAMPLE_BRANCH_COUNTERS (bit 19) appends nr u64 after the entries;
 * without HW_INDEX there is no hw_idx word. */
static void test_branch_counters(void)
{
	struct builder bd;
	struct lp_format f = {
		.sample_type = PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_WEIGHT,
		.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | (1ULL << 19),
	};
	struct parsed p;

	begin(&bd, PERF_RECORD_SAMPLE, 0);
	put_u64(&bd, 1);
	put_u64(&bd, 0x10); put_u64(&bd, 0x20); put_u64(&bd, 0);
	put_u64(&bd, 0xc0);                     /* counters[0] */
	put_u64(&bd, 9);                        /* WEIGHT */
	finish(&bd);
	p = parse_bd(&bd, &f);
	TEST_EQ(p.rc, 0);
	TEST_EQ_U64(p.r.u.sample.nr_branches, 1);
	TEST_EQ_U64(p.r.u.sample.branch_hw_idx, 0);
	TEST_EQ_U64(p.r.u.sample.branches[0].from, 0x10);
	TEST_EQ_U64(p.r.u.sample.weight, 9);
	free(p.buf);
}

/* ---- non-sample records ------------------------------------------------ */

static const struct lp_format no_sid = { .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID };

static void test_mmap(void)
{
	struct builder bd;
	struct parsed p;
	const struct lp_mmap *m;

	begin(&bd, PERF_RECORD_MMAP, PERF_RECORD_MISC_USER);
	put_u32(&bd, 10);
	put_u32(&bd, 11);
	put_u64(&bd, 0x400000);
	put_u64(&bd, 0x1000);
	put_u64(&bd, 0x2000);
	put_str(&bd, "/usr/bin/true");
	finish(&bd);
	p = parse_bd(&bd, &no_sid);
	m = &p.r.u.mmap;
	TEST_EQ(p.rc, 0);
	TEST_EQ(p.r.type, PERF_RECORD_MMAP);
	TEST_EQ(m->pid, 10);
	TEST_EQ(m->tid, 11);
	TEST_EQ_U64(m->start, 0x400000);
	TEST_EQ_U64(m->len, 0x1000);
	TEST_EQ_U64(m->pgoff, 0x2000);
	TEST_STREQ(m->filename, "/usr/bin/true");
	TEST_EQ(m->maj + m->min + m->prot + m->flags + m->build_id_size, 0);
	TEST_TRUE(!p.r.has_sid);
	TEST_EQ_U64(lp_record_time(&p.r), 0);
	free(p.buf);
}

static void put_mmap2_head(struct builder *bd, uint16_t misc)
{
	begin(bd, PERF_RECORD_MMAP2, misc);
	put_u32(bd, 20);
	put_u32(bd, 21);
	put_u64(bd, 0x7f0000);
	put_u64(bd, 0x3000);
	put_u64(bd, 0x1000);
}

static void test_mmap2_inode(void)
{
	struct builder bd;
	struct parsed p;
	const struct lp_mmap *m;

	put_mmap2_head(&bd, PERF_RECORD_MISC_USER);
	put_u32(&bd, 8);                        /* maj */
	put_u32(&bd, 1);                        /* min */
	put_u64(&bd, 123456);                   /* ino */
	put_u64(&bd, 9);                        /* ino_generation */
	put_u32(&bd, 5);                        /* prot */
	put_u32(&bd, 2);                        /* flags */
	put_str(&bd, "/lib/libc.so.6");
	finish(&bd);
	p = parse_bd(&bd, &no_sid);
	m = &p.r.u.mmap;
	TEST_EQ(p.rc, 0);
	TEST_EQ(m->pid, 20);
	TEST_EQ(m->tid, 21);
	TEST_EQ_U64(m->start, 0x7f0000);
	TEST_EQ_U64(m->len, 0x3000);
	TEST_EQ_U64(m->pgoff, 0x1000);
	TEST_EQ(m->maj, 8);
	TEST_EQ(m->min, 1);
	TEST_EQ_U64(m->ino, 123456);
	TEST_EQ_U64(m->ino_generation, 9);
	TEST_EQ(m->prot, 5);
	TEST_EQ(m->flags, 2);
	TEST_EQ(m->build_id_size, 0);
	TEST_STREQ(m->filename, "/lib/libc.so.6");
	free(p.buf);
}

static void put_build_id(struct builder *bd, uint8_t size)
{
	put_u8(bd, size);
	put_u8(bd, 0);
	put_u16(bd, 0);
	for (uint8_t i = 0; i < 20; i++)
		put_u8(bd, (uint8_t)(i < size ? 0xb0 + i : 0));
}

static void test_mmap2_build_id(void)
{
	struct builder bd;
	struct parsed p;
	const struct lp_mmap *m;

	put_mmap2_head(&bd, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID);
	put_build_id(&bd, 20);
	put_u32(&bd, 5);
	put_u32(&bd, 2);
	put_str(&bd, "/bin/x");
	finish(&bd);
	p = parse_bd(&bd, &no_sid);
	m = &p.r.u.mmap;
	TEST_EQ(p.rc, 0);
	TEST_EQ(m->build_id_size, 20);
	TEST_EQ(m->build_id[0], 0xb0);
	TEST_EQ(m->build_id[19], 0xb0 + 19);
	TEST_EQ(m->maj + m->min, 0);
	TEST_EQ_U64(m->ino, 0);
	TEST_EQ(m->prot, 5);
	TEST_EQ(m->flags, 2);
	TEST_STREQ(m->filename, "/bin/x");
	free(p.buf);

	/* A short (md5-sized) id: the rest of build_id stays zero. */
	put_mmap2_head(&bd, PERF_RECORD_MISC_MMAP_BUILD_ID);
	put_build_id(&bd, 16);
	put_u32(&bd, 5);
	put_u32(&bd, 2);
	put_str(&bd, "/bin/y");
	finish(&bd);
	p = parse_bd(&bd, &no_sid);
	TEST_EQ(p.rc, 0);
	TEST_EQ(p.r.u.mmap.build_id_size, 16);
	TEST_EQ(p.r.u.mmap.build_id[15], 0xb0 + 15);
	TEST_EQ(p.r.u.mmap.build_id[16], 0);
	free(p.buf);

	/* More than 20 bytes cannot be. */
	put_mmap2_head(&bd, PERF_RECORD_MISC_MMAP_BUILD_ID);
	put_build_id(&bd, 21);
	put_u32(&bd, 5);
	put_u32(&bd, 2);
	put_str(&bd, "/bin/z");
	finish(&bd);
	TEST_EQ(parse_rc(&bd, &no_sid), -EPROTO);
}

static void test_comm(void)
{
	struct builder bd;
	struct parsed p;

	begin(&bd, PERF_RECORD_COMM, 0);
	put_u32(&bd, 30);
	put_u32(&bd, 31);
	put_str(&bd, "worker");
	finish(&bd);
	p = parse_bd(&bd, &no_sid);
	TEST_EQ(p.rc, 0);
	TEST_EQ(p.r.u.comm.pid, 30);
	TEST_EQ(p.r.u.comm.tid, 31);
	TEST_STREQ(p.r.u.comm.comm, "worker");
	TEST_TRUE(!p.r.u.comm.exec);
	free(p.buf);

	begin(&bd, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
	put_u32(&bd, 30);
	put_u32(&bd, 30);
	put_str(&bd, "1234567");            /* exactly 8 bytes with its NUL */
	finish(&bd);
	p = parse_bd(&bd, &no_sid);
	TEST_EQ(p.rc, 0);
	TEST_TRUE(p.r.u.comm.exec);
	TEST_STREQ(p.r.u.comm.comm, "1234567");
	TEST_EQ(p.r.size, 24);
	free(p.buf);
}

static void put_task(struct builder *bd, uint32_t type)
{
	begin(bd, type, 0);
	put_u32(bd, 50);
	put_u32(bd, 1);
	put_u32(bd, 51);
	put_u32(bd, 2);
	put_u64(bd, 777);
}

static void test_fork_exit(void)
{
	static const uint32_t types[] = { PERF_RECORD_FORK, PERF_RECORD_EXIT };

	for (size_t i = 0; i < 2; i++) {
		struct builder bd;
		struct parsed p;

		put_task(&bd, types[i]);
		finish(&bd);
		p = parse_bd(&bd, &no_sid);
		TEST_EQ(p.rc, 0);
		TEST_EQ(p.r.type, types[i]);
		TEST_EQ(p.r.u.task.pid, 50);
		TEST_EQ(p.r.u.task.ppid, 1);
		TEST_EQ(p.r.u.task.tid, 51);
		TEST_EQ(p.r.u.task.ptid, 2);
		TEST_EQ_U64(p.r.u.task.time, 777);
		free(p.buf);
	}
}

static void test_lost_throttle(void)
{
	struct builder bd;
	struct parsed p;

	begin(&bd, PERF_RECORD_LOST, 0);
	put_u64(&bd, 0x44);
	put_u64(&bd, 17);
	finish(&bd);
	p = parse_bd(&bd, &no_sid);
	TEST_EQ(p.rc, 0);
	TEST_EQ_U64(p.r.u.lost.id, 0x44);
	TEST_EQ_U64(p.r.u.lost.lost, 17);
	free(p.buf);

	for (uint32_t t = PERF_RECORD_THROTTLE; t <= PERF_RECORD_UNTHROTTLE; t++) {
		begin(&bd, t, 0);
		put_u64(&bd, 8888);
		put_u64(&bd, 0x45);
		put_u64(&bd, 0x46);
		finish(&bd);
		p = parse_bd(&bd, &no_sid);
		TEST_EQ(p.rc, 0);
		TEST_EQ(p.r.type, t);
		TEST_EQ_U64(p.r.u.throttle.time, 8888);
		TEST_EQ_U64(p.r.u.throttle.id, 0x45);
		TEST_EQ_U64(p.r.u.throttle.stream_id, 0x46);
		free(p.buf);
	}

	begin(&bd, PERF_RECORD_LOST_SAMPLES, 0);
	put_u64(&bd, 1234);
	finish(&bd);
	p = parse_bd(&bd, &no_sid);
	TEST_EQ(p.rc, 0);
	TEST_EQ_U64(p.r.u.lost_samples, 1234);
	free(p.buf);
}

/* ---- sample_id trailer ------------------------------------------------- */

static const struct lp_format sid_all = {
	.sample_type = PERF_SAMPLE_IP | SID_ALL, .sample_id_all = true,
};

static void check_sid_all(const struct lp_record *r)
{
	TEST_TRUE(r->has_sid);
	TEST_EQ(r->sid.pid, 41);
	TEST_EQ(r->sid.tid, 42);
	TEST_EQ_U64(r->sid.time, 5000);
	TEST_EQ_U64(r->sid.id, 0x77);
	TEST_EQ_U64(r->sid.stream_id, 0x88);
	TEST_EQ(r->sid.cpu, 6);
	TEST_EQ_U64(lp_record_time(r), 5000);
}

/* SWITCH is only the trailer; SWITCH_CPU_WIDE starts with the other
 * task's pid and tid.  misc says out or in, and a preempted task's out. */
static void test_switch(void)
{
	struct builder bd;
	struct parsed p;

	begin(&bd, PERF_RECORD_SWITCH, PERF_RECORD_MISC_SWITCH_OUT | PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
	put_sid_all(&bd);
	finish(&bd);
	p = parse_bd(&bd, &sid_all);
	TEST_EQ(p.rc, 0);
	TEST_TRUE(p.r.u.sw.out && p.r.u.sw.preempt && !p.r.u.sw.cpu_wide);
	TEST_EQ(p.r.u.sw.pid, 0);
	check_sid_all(&p.r);
	free(p.buf);

	begin(&bd, PERF_RECORD_SWITCH_CPU_WIDE, 0);
	put_u32(&bd, 300);
	put_u32(&bd, 301);
	put_sid_all(&bd);
	finish(&bd);
	p = parse_bd(&bd, &sid_all);
	TEST_EQ(p.rc, 0);
	TEST_TRUE(!p.r.u.sw.out && !p.r.u.sw.preempt && p.r.u.sw.cpu_wide);
	TEST_EQ(p.r.u.sw.pid, 300);
	TEST_EQ(p.r.u.sw.tid, 301);
	check_sid_all(&p.r);
	free(p.buf);

	/* the preempt bit means nothing on a switch in */
	begin(&bd, PERF_RECORD_SWITCH_CPU_WIDE, PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
	put_u32(&bd, 300);
	put_u32(&bd, 301);
	finish(&bd);
	p = parse_bd(&bd, &no_sid);
	TEST_EQ(p.rc, 0);
	TEST_TRUE(!p.r.u.sw.out && !p.r.u.sw.preempt);
	free(p.buf);

	/* a CPU-wide switch cut inside the other task's ids */
	begin(&bd, PERF_RECORD_SWITCH_CPU_WIDE, PERF_RECORD_MISC_SWITCH_OUT);
	put_u32(&bd, 300);
	finish(&bd);
	TEST_EQ(parse_rc(&bd, &no_sid), -EPROTO);
}

static void test_trailer(void)
{
	struct builder bd;
	struct parsed p;

	put_mmap2_head(&bd, 0);
	put_zeros(&bd, 24);
	put_u32(&bd, 5);
	put_u32(&bd, 2);
	put_str(&bd, "/bin/trailer");
	put_sid_all(&bd);
	finish(&bd);
	p = parse_bd(&bd, &sid_all);
	TEST_EQ(p.rc, 0);
	TEST_STREQ(p.r.u.mmap.filename, "/bin/trailer");
	TEST_EQ(p.r.u.mmap.prot, 5);
	check_sid_all(&p.r);
	free(p.buf);

	/* A fixed-size body followed by the trailer. */
	put_task(&bd, PERF_RECORD_EXIT);
	put_sid_all(&bd);
	finish(&bd);
	p = parse_bd(&bd, &sid_all);
	TEST_EQ(p.rc, 0);
	TEST_EQ(p.r.u.task.tid, 51);
	TEST_EQ_U64(p.r.u.task.time, 777);
	check_sid_all(&p.r);
	free(p.buf);

	/* Only TID and TIME in sample_type: a 16-byte trailer. */
	struct lp_format f = {
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN,
		.sample_id_all = true,
	};
	begin(&bd, PERF_RECORD_LOST_SAMPLES, 0);
	put_u64(&bd, 3);
	put_u32(&bd, 7);
	put_u32(&bd, 8);
	put_u64(&bd, 6000);
	finish(&bd);
	p = parse_bd(&bd, &f);
	TEST_EQ(p.rc, 0);
	TEST_EQ_U64(p.r.u.lost_samples, 3);
	TEST_TRUE(p.r.has_sid);
	TEST_EQ(p.r.sid.pid, 7);
	TEST_EQ(p.r.sid.tid, 8);
	TEST_EQ_U64(p.r.sid.time, 6000);
	TEST_EQ_U64(lp_record_time(&p.r), 6000);
	free(p.buf);
}

/* The comm's NUL must come before the trailer, not inside it. */
static void test_trailer_string_must_end_before(void)
{
	struct builder bd;

	begin(&bd, PERF_RECORD_COMM, 0);
	put_u32(&bd, 1);
	put_u32(&bd, 1);
	put(&bd, "abcdefgh", 8);            /* no NUL */
	put_sid_all(&bd);                    /* has zero bytes */
	finish(&bd);
	TEST_EQ(parse_rc(&bd, &sid_all), -EPROTO);
	/* Without sample_id_all the same bytes are a valid comm. */
	TEST_EQ(parse_rc(&bd, &no_sid), 0);
}

static void test_reject_trailer_too_big(void)
{
	struct builder bd;

	/* Trailer (48 bytes) larger than the whole body (16). */
	begin(&bd, PERF_RECORD_LOST, 0);
	put_u64(&bd, 1);
	put_u64(&bd, 2);
	finish(&bd);
	TEST_EQ(parse_rc(&bd, &sid_all), -EPROTO);

	/* Trailer fits, but the fixed body would overlap it. */
	begin(&bd, PERF_RECORD_LOST, 0);
	put_u64(&bd, 1);
	put_sid_all(&bd);
	finish(&bd);
	TEST_EQ(parse_rc(&bd, &sid_all), -EPROTO);
}

static void test_unknown_types(void)
{
	struct builder bd;
	struct parsed p;

	/* perf user type (HEADER_ATTR etc. are >= 64): never a trailer. */
	begin(&bd, 68, 0);
	put_sid_all(&bd);
	finish(&bd);
	p = parse_bd(&bd, &sid_all);
	TEST_EQ(p.rc, 0);
	TEST_EQ(p.r.type, 68);
	TEST_EQ(p.r.size, bd.n);
	TEST_TRUE(p.r.data == (const void *)p.buf);
	TEST_TRUE(!p.r.has_sid);
	free(p.buf);

	/* ITRACE_START: a kernel type not decoded here, trailer still read. */
	begin(&bd, PERF_RECORD_ITRACE_START, 0x2000);
	put_u32(&bd, 7);
	put_u32(&bd, 8);
	put_sid_all(&bd);
	finish(&bd);
	p = parse_bd(&bd, &sid_all);
	TEST_EQ(p.rc, 0);
	TEST_EQ(p.r.misc, 0x2000);
	check_sid_all(&p.r);
	free(p.buf);

	/* An opaque kernel type too short for the trailer: no sid, no error. */
	begin(&bd, PERF_RECORD_ITRACE_START, 0);
	put_u64(&bd, 1);
	finish(&bd);
	p = parse_bd(&bd, &sid_all);
	TEST_EQ(p.rc, 0);
	TEST_TRUE(!p.r.has_sid);
	free(p.buf);

	/* An unknown type past PERF_RECORD_MAX, header only. */
	begin(&bd, 63, 0);
	finish(&bd);
	p = parse_bd(&bd, &no_sid);
	TEST_EQ(p.rc, 0);
	TEST_EQ(p.r.size, 8);
	free(p.buf);
}

static void test_peek_time(void)
{
	struct builder bd;
	struct lp_format f = full_format();
	unsigned char *b;
	uint64_t t = 0;

	build_full_sample(&bd);
	b = dup_exact(bd.b, bd.n);
	TEST_EQ(lp_record_peek_time(b, bd.n, &f, &t), 0);
	TEST_EQ_U64(t, 123456789);
	free(b);

	put_task(&bd, PERF_RECORD_FORK);
	put_sid_all(&bd);
	finish(&bd);
	b = dup_exact(bd.b, bd.n);
	TEST_EQ(lp_record_peek_time(b, bd.n, &sid_all, &t), 0);
	TEST_EQ_U64(t, 5000);
	TEST_EQ(lp_record_peek_time(b, 4, &sid_all, &t), -EPROTO);
	f = sid_all;
	f.sample_id_all = false;
	TEST_EQ(lp_record_peek_time(b, bd.n, &f, &t), -ENOENT);
	free(b);
}

static void test_peek_id(void)
{
	struct builder bd;
	struct lp_format f = full_format();
	unsigned char *b;
	uint64_t id = 0;

	build_full_sample(&bd);
	b = dup_exact(bd.b, bd.n);
	TEST_EQ(lp_record_peek_id(b, bd.n, &f, &id), 0);
	TEST_EQ_U64(id, 0x1d);
	TEST_EQ(lp_record_peek_id(b, bd.n, &no_sid, &id), -ENOENT);
	free(b);

	/* Non-sample: the last u64 (IDENTIFIER ends the trailer). */
	put_task(&bd, PERF_RECORD_FORK);
	put_sid_all(&bd);
	finish(&bd);
	b = dup_exact(bd.b, bd.n);
	id = 0;
	TEST_EQ(lp_record_peek_id(b, bd.n, &sid_all, &id), 0);
	TEST_EQ_U64(id, 0x77);
	f = sid_all;
	f.sample_id_all = false;
	TEST_EQ(lp_record_peek_id(b, bd.n, &f, &id), -ENOENT);
	free(b);

	/* A user type has no trailer. */
	begin(&bd, 70, 0);
	put_u64(&bd, 5);
	finish(&bd);
	b = dup_exact(bd.b, bd.n);
	TEST_EQ(lp_record_peek_id(b, bd.n, &sid_all, &id), -ENOENT);
	free(b);

	/* Too short: a bare sample header, a trailer that does not fit,
	 * header size past len, len below a header. */
	begin(&bd, PERF_RECORD_SAMPLE, 0);
	finish(&bd);
	b = dup_exact(bd.b, bd.n);
	TEST_EQ(lp_record_peek_id(b, bd.n, &sid_all, &id), -EPROTO);
	free(b);
	begin(&bd, PERF_RECORD_MMAP, 0);
	put_u64(&bd, 1);
	finish(&bd);
	b = dup_exact(bd.b, bd.n);
	TEST_EQ(lp_record_peek_id(b, bd.n, &sid_all, &id), -EPROTO);
	TEST_EQ(lp_record_peek_id(b, bd.n - 1, &sid_all, &id), -EPROTO);
	TEST_EQ(lp_record_peek_id(b, 4, &sid_all, &id), -EPROTO);
	free(b);
}

static void test_record_time(void)
{
	struct lp_record r;

	memset(&r, 0, sizeof r);
	r.type = PERF_RECORD_SAMPLE;
	r.u.sample.time = 12;
	TEST_EQ_U64(lp_record_time(&r), 12);
	memset(&r, 0, sizeof r);
	r.type = PERF_RECORD_MMAP;
	TEST_EQ_U64(lp_record_time(&r), 0);
	r.has_sid = true;
	r.sid.time = 34;
	TEST_EQ_U64(lp_record_time(&r), 34);
}

/* ---- rejection --------------------------------------------------------- */

static void test_reject_header(void)
{
	struct builder bd;
	struct lp_record r;
	unsigned char *b;

	TEST_EQ(lp_record_parse(NULL, 0, &no_sid, &r), -EPROTO);
	begin(&bd, PERF_RECORD_LOST, 0);
	put_u64(&bd, 1);
	put_u64(&bd, 2);
	finish(&bd);
	b = dup_exact(bd.b, bd.n);
	TEST_EQ(lp_record_parse(b, 7, &no_sid, &r), -EPROTO);
	TEST_EQ(lp_record_parse(b, bd.n - 1, &no_sid, &r), -EPROTO);   /* size > len */
	TEST_EQ(r.size, bd.n);                                          /* header kept */
	set_size(b, 4);
	TEST_EQ(lp_record_parse(b, bd.n, &no_sid, &r), -EPROTO);       /* size < 8 */
	set_size(b, 0);
	TEST_EQ(lp_record_parse(b, bd.n, &no_sid, &r), -EPROTO);
	/* A body shorter than the fixed fields. */
	set_size(b, 16);
	TEST_EQ(lp_record_parse(b, bd.n, &no_sid, &r), -EPROTO);
	TEST_EQ_U64(r.u.lost.id, 0);                                     /* cleared */
	/* len larger than size is fine: the record ends at size. */
	set_size(b, 24);
	TEST_EQ(lp_record_parse(b, bd.n, &no_sid, &r), 0);
	free(b);
}

static const struct lp_format chain_fmt = {
	.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN,
};

static void test_reject_callchain(void)
{
	static const uint64_t bad_nr[] = {
		3,                       /* runs past the end by one entry */
		1ULL << 61,              /* nr * 8 wraps to 0 */
		(1ULL << 61) + 1,        /* nr * 8 wraps to 8 */
		UINT64_MAX,
	};
	struct builder bd;

	for (size_t i = 0; i < sizeof bad_nr / sizeof bad_nr[0]; i++) {
		begin(&bd, PERF_RECORD_SAMPLE, 0);
		put_u64(&bd, 0x400000);
		put_u64(&bd, bad_nr[i]);
		put_u64(&bd, 1);
		put_u64(&bd, 2);
		finish(&bd);
		TEST_EQ(parse_rc(&bd, &chain_fmt), -EPROTO);
	}
	/* Control: nr = 2 fits exactly. */
	begin(&bd, PERF_RECORD_SAMPLE, 0);
	put_u64(&bd, 0x400000);
	put_u64(&bd, 2);
	put_u64(&bd, 1);
	put_u64(&bd, 2);
	finish(&bd);
	TEST_EQ(parse_rc(&bd, &chain_fmt), 0);
}

static void test_reject_raw(void)
{
	struct lp_format f = { .sample_type = PERF_SAMPLE_RAW };
	struct builder bd;

	begin(&bd, PERF_RECORD_SAMPLE, 0);
	put_u32(&bd, 20);                   /* 4 + 20 = 24, but only 12 follow */
	put_zeros(&bd, 12);
	finish(&bd);
	TEST_EQ(parse_rc(&bd, &f), -EPROTO);

	begin(&bd, PERF_RECORD_SAMPLE, 0);
	put_u32(&bd, 0xfffffffc);           /* huge, aligned */
	put_zeros(&bd, 12);
	finish(&bd);
	TEST_EQ(parse_rc(&bd, &f), -EPROTO);

	begin(&bd, PERF_RECORD_SAMPLE, 0);
	put_u32(&bd, 10);                   /* 4 + 10 is not a multiple of 8 */
	put_zeros(&bd, 12);
	finish(&bd);
	TEST_EQ(parse_rc(&bd, &f), -EPROTO);

	begin(&bd, PERF_RECORD_SAMPLE, 0);
	put_u32(&bd, 4);                    /* 4 + 4: fine, record may be longer */
	put_zeros(&bd, 12);
	finish(&bd);
	TEST_EQ(parse_rc(&bd, &f), 0);
}

static void test_reject_no_nul(void)
{
	struct builder bd;

	begin(&bd, PERF_RECORD_MMAP, 0);
	put_u32(&bd, 1);
	put_u32(&bd, 1);
	put_u64(&bd, 0);
	put_u64(&bd, 0);
	put_u64(&bd, 0);
	put(&bd, "/no/nul!", 8);
	finish(&bd);
	TEST_EQ(parse_rc(&bd, &no_sid), -EPROTO);

	put_mmap2_head(&bd, 0);
	put_zeros(&bd, 24);
	put_u32(&bd, 0);
	put_u32(&bd, 0);
	put(&bd, "/no/nul!", 8);
	finish(&bd);
	TEST_EQ(parse_rc(&bd, &no_sid), -EPROTO);

	/* No room at all for the string. */
	put_mmap2_head(&bd, 0);
	put_zeros(&bd, 24);
	put_u32(&bd, 0);
	put_u32(&bd, 0);
	finish(&bd);
	TEST_EQ(parse_rc(&bd, &no_sid), -EPROTO);

	begin(&bd, PERF_RECORD_COMM, 0);
	put_u32(&bd, 1);
	put_u32(&bd, 1);
	put(&bd, "abcdefgh", 8);
	finish(&bd);
	TEST_EQ(parse_rc(&bd, &no_sid), -EPROTO);
}

static void test_reject_regs(void)
{
	struct lp_format f = {
		.sample_type = PERF_SAMPLE_REGS_USER,
		.sample_regs_user = UINT64_MAX,      /* 64 registers */
	};
	struct builder bd;

	begin(&bd, PERF_RECORD_SAMPLE, 0);
	put_u64(&bd, PERF_SAMPLE_REGS_ABI_64);
	for (int i = 0; i < 63; i++)
		put_u64(&bd, (uint64_t)i);
	finish(&bd);
	TEST_EQ(parse_rc(&bd, &f), -EPROTO);
	put_u64(&bd, 63);
	finish(&bd);
	TEST_EQ(parse_rc(&bd, &f), 0);

	f.sample_type = PERF_SAMPLE_REGS_INTR;
	f.sample_regs_intr = 0x7;
	begin(&bd, PERF_RECORD_SAMPLE, 0);
	put_u64(&bd, PERF_SAMPLE_REGS_ABI_32);
	put_u64(&bd, 1);
	put_u64(&bd, 2);
	finish(&bd);
	TEST_EQ(parse_rc(&bd, &f), -EPROTO);
}

static void test_reject_stack(void)
{
	struct lp_format f = { .sample_type = PERF_SAMPLE_STACK_USER };
	struct builder bd;

	begin(&bd, PERF_RECORD_SAMPLE, 0);
	put_u64(&bd, 64);                   /* size past the end */
	put_zeros(&bd, 32);
	finish(&bd);
	TEST_EQ(parse_rc(&bd, &f), -EPROTO);

	begin(&bd, PERF_RECORD_SAMPLE, 0);
	put_u64(&bd, UINT64_MAX - 7);       /* size that would wrap a pointer */
	put_zeros(&bd, 32);
	finish(&bd);
	TEST_EQ(parse_rc(&bd, &f), -EPROTO);

	begin(&bd, PERF_RECORD_SAMPLE, 0);
	put_u64(&bd, 32);                   /* data fits, dyn_size missing */
	put_zeros(&bd, 32);
	finish(&bd);
	TEST_EQ(parse_rc(&bd, &f), -EPROTO);

	put_u64(&bd, 33);                   /* dyn_size > size */
	finish(&bd);
	TEST_EQ(parse_rc(&bd, &f), -EPROTO);

	bd.n -= 8;
	put_u64(&bd, 32);
	finish(&bd);
	TEST_EQ(parse_rc(&bd, &f), 0);
}

static void test_reject_branch_and_read_counts(void)
{
	struct lp_format f = {
		.sample_type = PERF_SAMPLE_BRANCH_STACK,
		.branch_sample_type = PERF_SAMPLE_BRANCH_ANY,
	};
	struct builder bd;

	begin(&bd, PERF_RECORD_SAMPLE, 0);
	put_u64(&bd, UINT64_MAX / 24 + 1);  /* nr * 24 wraps */
	put_zeros(&bd, 48);
	finish(&bd);
	TEST_EQ(parse_rc(&bd, &f), -EPROTO);
	begin(&bd, PERF_RECORD_SAMPLE, 0);
	put_u64(&bd, 3);                    /* 72 bytes wanted, 48 there */
	put_zeros(&bd, 48);
	finish(&bd);
	TEST_EQ(parse_rc(&bd, &f), -EPROTO);

	f.sample_type = PERF_SAMPLE_READ;
	f.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_LOST;
	begin(&bd, PERF_RECORD_SAMPLE, 0);
	put_u64(&bd, 0x5555555555555556ULL); /* nr * 3 wraps to 2 */
	put_zeros(&bd, 16);
	finish(&bd);
	TEST_EQ(parse_rc(&bd, &f), -EPROTO);
	begin(&bd, PERF_RECORD_SAMPLE, 0);
	put_u64(&bd, 2);                    /* 1 + 6 words wanted, 3 there */
	put_zeros(&bd, 16);
	finish(&bd);
	TEST_EQ(parse_rc(&bd, &f), -EPROTO);
}

/* ---- truncation and mutation ------------------------------------------- */

/* Decodes the first n bytes of rec as a record of n bytes (header.size
 * patched) and of the original size (size > len), from exact copies. */
static void check_truncated(const unsigned char *rec, size_t n, const struct lp_format *f,
			    bool must_fail)
{
	struct lp_record r;
	unsigned char *b = dup_exact(rec, n);
	int rc;

	rc = lp_record_parse(b, n, f, &r);
	TEST_EQ(rc, -EPROTO);
	if (n >= 8) {
		set_size(b, (uint16_t)n);
		rc = lp_record_parse(b, n, f, &r);
		if (must_fail && rc != -EPROTO)
			TEST_FAIL_("length %zu decoded: rc %d", n, rc);
		if (rc == 0 && !record_within(&r, b, n))
			TEST_FAIL_("length %zu: pointer outside the record", n);
		if (rc != 0 && rc != -EPROTO)
			TEST_FAIL_("length %zu: rc %d", n, rc);
	}
	free(b);
}

static void test_truncate_sample(void)
{
	struct builder bd;
	struct lp_format f = full_format();

	build_full_sample(&bd);
	for (size_t n = 0; n < bd.n; n++)
		check_truncated(bd.b, n, &f, true);
}

static void test_truncate_trailer_records(void)
{
	struct builder bd;

	put_mmap2_head(&bd, PERF_RECORD_MISC_MMAP_BUILD_ID);
	put_build_id(&bd, 20);
	put_u32(&bd, 5);
	put_u32(&bd, 2);
	put_str(&bd, "/a/rather/long/file/name.so");
	put_sid_all(&bd);
	finish(&bd);
	for (size_t n = 0; n < bd.n; n++)
		check_truncated(bd.b, n, &sid_all, false);

	begin(&bd, PERF_RECORD_COMM, 0);
	put_u32(&bd, 1);
	put_u32(&bd, 2);
	put_str(&bd, "some-comm");
	put_sid_all(&bd);
	finish(&bd);
	for (size_t n = 0; n < bd.n; n++)
		check_truncated(bd.b, n, &sid_all, false);
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Random byte corruption of valid records: every decode either fails with
 * -EPROTO or stays inside the record. */
static void test_mutations(void)
{
	struct builder recs[2];
	const struct lp_format fmts[2] = { full_format(), sid_all };
	uint64_t seed = 0x9e3779b97f4a7c15ULL;

	build_full_sample(&recs[0]);
	put_mmap2_head(&recs[1], 0);
	put_zeros(&recs[1], 24);
	put_u32(&recs[1], 5);
	put_u32(&recs[1], 2);
	put_str(&recs[1], "/bin/mutant");
	put_sid_all(&recs[1]);
	finish(&recs[1]);
	for (int i = 0; i < 20000; i++) {
		const struct builder *bd = &recs[i & 1];
		unsigned char *b = dup_exact(bd->b, bd->n);
		struct lp_record r;
		int rc;

		for (int k = 0; k < 1 + (int)(xorshift(&seed) % 4); k++)
			b[xorshift(&seed) % bd->n] = (unsigned char)xorshift(&seed);
		rc = lp_record_parse(b, bd->n, &fmts[i & 1], &r);
		if (rc != 0 && rc != -EPROTO)
			TEST_FAIL_("mutation %d: rc %d", i, rc);
		if (rc == 0 && !record_within(&r, b, bd->n))
			TEST_FAIL_("mutation %d: pointer outside the record", i);
		free(b);
	}
}

/* ---- encoding (lp_record_encode) --------------------------------------- */

/* Encodes r and checks the bytes equal the builder's record exactly. */
static void expect_encoded(const struct lp_record *r, const struct lp_format *f,
			   const struct builder *want)
{
	_Alignas(8) unsigned char buf[2048];
	int n = lp_record_encode(r, f, buf, sizeof buf);

	TEST_EQ(n, want->n);
	if (n == (int)want->n && memcmp(buf, want->b, want->n))
		TEST_FAIL_("%s", "the encoded bytes differ from the kernel layout");
}

static void put_comm(struct builder *bd, uint32_t pid, uint32_t tid, const char *comm)
{
	begin(bd, PERF_RECORD_COMM, 0);
	put_u32(bd, pid);
	put_u32(bd, tid);
	put_str(bd, comm);
}

static const struct lp_sample_id sid_41 = {
	.pid = 41, .tid = 42, .time = 5000, .id = 0x77, .stream_id = 0x88, .cpu = 6,
};

static void test_encode_comm_and_tasks(void)
{
	struct builder bd;
	struct lp_record r = { .type = PERF_RECORD_COMM, .has_sid = true, .sid = sid_41 };

	r.u.comm = (struct lp_comm){ .pid = 30, .tid = 31, .comm = "worker" };
	put_comm(&bd, 30, 31, "worker");
	put_sid_all(&bd);
	finish(&bd);
	expect_encoded(&r, &sid_all, &bd);
	r.u.comm.comm = "12345678";         /* 8 characters: 8 more bytes of NULs */
	put_comm(&bd, 30, 31, "12345678");
	finish(&bd);
	expect_encoded(&r, &no_sid, &bd);

	static const uint32_t types[] = { PERF_RECORD_FORK, PERF_RECORD_EXIT };
	for (size_t i = 0; i < 2; i++) {
		r = (struct lp_record){ .type = types[i], .has_sid = true, .sid = sid_41 };
		r.u.task = (struct lp_task){ .pid = 50, .ppid = 1, .tid = 51, .ptid = 2, .time = 777 };
		put_task(&bd, types[i]);
		put_sid_all(&bd);
		finish(&bd);
		expect_encoded(&r, &sid_all, &bd);
	}
}

/* A LOST record made at the end of a run (the losses no kernel LOST
 * record reported): id and count, then the trailer; it decodes back. */
static void test_encode_lost(void)
{
	struct builder bd;
	struct lp_record r = { .type = PERF_RECORD_LOST, .has_sid = true, .sid = sid_41 };
	struct lp_record back;

	r.u.lost = (struct lp_lost){ .id = 0x77, .lost = 1234 };
	begin(&bd, PERF_RECORD_LOST, 0);
	put_u64(&bd, 0x77);
	put_u64(&bd, 1234);
	put_sid_all(&bd);
	finish(&bd);
	expect_encoded(&r, &sid_all, &bd);
	TEST_EQ(lp_record_parse(bd.b, bd.n, &sid_all, &back), 0);
	TEST_EQ(back.type, PERF_RECORD_LOST);
	TEST_EQ(back.u.lost.lost, 1234);
	TEST_EQ(back.sid.time, 5000);
}

static void test_encode_mmaps(void)
{
	struct builder bd;
	struct lp_record r = { .type = PERF_RECORD_MMAP2, .misc = PERF_RECORD_MISC_USER };

	r.u.mmap = (struct lp_mmap){ .pid = 20, .tid = 21, .start = 0x7f0000, .len = 0x3000,
				     .pgoff = 0x1000, .maj = 8, .min = 1, .ino = 123456,
				     .ino_generation = 9, .prot = 5, .flags = 2,
				     .filename = "/lib/libc.so.6" };
	put_mmap2_head(&bd, PERF_RECORD_MISC_USER);
	put_u32(&bd, 8);
	put_u32(&bd, 1);
	put_u64(&bd, 123456);
	put_u64(&bd, 9);
	put_u32(&bd, 5);
	put_u32(&bd, 2);
	put_str(&bd, "/lib/libc.so.6");
	put_zeros(&bd, 48);                 /* no sid: a trailer of zeros */
	finish(&bd);
	expect_encoded(&r, &sid_all, &bd);

	r.misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
	r.u.mmap.build_id_size = 20;
	for (uint8_t i = 0; i < 20; i++)
		r.u.mmap.build_id[i] = (uint8_t)(0xb0 + i);
	r.u.mmap.filename = "/bin/x";
	put_mmap2_head(&bd, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID);
	put_build_id(&bd, 20);
	put_u32(&bd, 5);
	put_u32(&bd, 2);
	put_str(&bd, "/bin/x");
	finish(&bd);
	expect_encoded(&r, &no_sid, &bd);

	r = (struct lp_record){ .type = PERF_RECORD_MMAP, .misc = PERF_RECORD_MISC_KERNEL };
	r.u.mmap = (struct lp_mmap){ .pid = UINT32_MAX, .start = 0xffffffff81000000,
				     .len = 0x1000000, .pgoff = 0xffffffff81000000,
				     .filename = "[kernel.kallsyms]_text" };
	begin(&bd, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL);
	put_u32(&bd, UINT32_MAX);
	put_u32(&bd, 0);
	put_u64(&bd, 0xffffffff81000000);
	put_u64(&bd, 0x1000000);
	put_u64(&bd, 0xffffffff81000000);
	put_str(&bd, "[kernel.kallsyms]_text");
	finish(&bd);
	expect_encoded(&r, &no_sid, &bd);
}

/* What is encoded decodes back to the same fields; short buffers and types
 * it does not make are refused. */
static void test_encode_round_trip_and_refusals(void)
{
	_Alignas(8) unsigned char buf[256];
	struct lp_record r = { .type = PERF_RECORD_MMAP2, .has_sid = true, .sid = sid_41 }, back;

	r.u.mmap = (struct lp_mmap){ .pid = 7, .tid = 7, .start = 0x1000, .len = 0x2000,
				     .pgoff = 0x10, .maj = 254, .ino = 99, .prot = 5, .flags = 2,
				     .filename = "//anon" };
	int n = lp_record_encode(&r, &sid_all, buf, sizeof buf);
	TEST_TRUE(n > 0 && n % 8 == 0);
	TEST_EQ(lp_record_parse(buf, (size_t)n, &sid_all, &back), 0);
	TEST_EQ(back.size, n);
	TEST_EQ_U64(back.u.mmap.len, 0x2000);
	TEST_EQ(back.u.mmap.maj, 254);
	TEST_EQ_U64(back.u.mmap.ino, 99);
	TEST_STREQ(back.u.mmap.filename, "//anon");
	check_sid_all(&back);
	TEST_EQ(lp_record_encode(&r, &sid_all, buf, (size_t)n - 1), -ENOSPC);
	TEST_EQ(lp_record_encode(&r, &sid_all, buf, 4), -ENOSPC);
	r.type = PERF_RECORD_SAMPLE;
	TEST_EQ(lp_record_encode(&r, &sid_all, buf, sizeof buf), -EINVAL);

	static char big[70000];
	unsigned char *huge = malloc(1 << 17);
	memset(big, 'a', sizeof big - 1);
	r = (struct lp_record){ .type = PERF_RECORD_COMM };
	r.u.comm = (struct lp_comm){ .pid = 1, .tid = 1, .comm = big };
	TEST_EQ(lp_record_encode(&r, &no_sid, huge, 1 << 17), -EINVAL);
	free(huge);
}

static void put_ksymbol(struct builder *bd, uint16_t type, uint16_t flags, const char *name)
{
	begin(bd, PERF_RECORD_KSYMBOL, 0);
	put_u64(bd, 0xffffffffc0025c2cull);
	put_u32(bd, 203);
	put_u16(bd, type);
	put_u16(bd, flags);
	put_str(bd, name);
}

/* KSYMBOL as the kernel writes it (a BPF program of perf record's
 * recording, its trailer after the name), as encoded, moved, and cut. */
static void test_ksymbol(void)
{
	struct builder bd;
	struct parsed p;
	static const char name[] = "bpf_prog_dc34e3a3c38e9c25_sched_wakeup";

	put_ksymbol(&bd, PERF_RECORD_KSYMBOL_TYPE_BPF, 0, name);
	put_sid_all(&bd);
	finish(&bd);
	p = parse_bd(&bd, &sid_all);
	TEST_EQ(p.rc, 0);
	TEST_EQ_U64(p.r.u.ksymbol.addr, 0xffffffffc0025c2cull);
	TEST_EQ(p.r.u.ksymbol.len, 203);
	TEST_EQ(p.r.u.ksymbol.type, PERF_RECORD_KSYMBOL_TYPE_BPF);
	TEST_EQ(p.r.u.ksymbol.flags, 0);
	TEST_STREQ(p.r.u.ksymbol.name, name);
	check_sid_all(&p.r);

	struct lp_record r = { .type = PERF_RECORD_KSYMBOL, .has_sid = true, .sid = sid_41 };
	r.u.ksymbol = p.r.u.ksymbol;
	expect_encoded(&r, &sid_all, &bd);

	unsigned char *copy = dup_exact(bd.b, bd.n);
	lp_record_rebase(&p.r, copy);
	TEST_TRUE(str_within(p.r.u.ksymbol.name, copy, bd.n));
	TEST_STREQ(p.r.u.ksymbol.name, name);
	free(copy);
	free(p.buf);

	put_ksymbol(&bd, PERF_RECORD_KSYMBOL_TYPE_OOL, PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER,
		    "ftrace_trampoline");
	finish(&bd);
	p = parse_bd(&bd, &no_sid);
	TEST_EQ(p.rc, 0);
	TEST_EQ(p.r.u.ksymbol.type, PERF_RECORD_KSYMBOL_TYPE_OOL);
	TEST_EQ(p.r.u.ksymbol.flags, PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER);
	free(p.buf);

	begin(&bd, PERF_RECORD_KSYMBOL, 0);     /* the name has no NUL */
	put_u64(&bd, 1);
	put_u32(&bd, 1);
	put_u32(&bd, 1);
	put(&bd, "bpf_prog", 8);
	finish(&bd);
	TEST_EQ(parse_rc(&bd, &no_sid), -EPROTO);
	begin(&bd, PERF_RECORD_KSYMBOL, 0);     /* cut before the type */
	put_u64(&bd, 1);
	finish(&bd);
	TEST_EQ(parse_rc(&bd, &no_sid), -EPROTO);
}

TEST_MAIN("record",
	TEST_CASE(test_format_from_attr),
	TEST_CASE(test_sample_all_common),
	TEST_CASE(test_sample_tail_fields),
	TEST_CASE(test_period_from_format),
	TEST_CASE(test_read_group),
	TEST_CASE(test_read_no_group),
	TEST_CASE(test_sample_empty_regs_stack),
	TEST_CASE(test_sample_overwrites_all),
	TEST_CASE(test_branch_counters),
	TEST_CASE(test_mmap),
	TEST_CASE(test_mmap2_inode),
	TEST_CASE(test_mmap2_build_id),
	TEST_CASE(test_comm),
	TEST_CASE(test_ksymbol),
	TEST_CASE(test_fork_exit),
	TEST_CASE(test_lost_throttle),
	TEST_CASE(test_switch),
	TEST_CASE(test_trailer),
	TEST_CASE(test_trailer_string_must_end_before),
	TEST_CASE(test_reject_trailer_too_big),
	TEST_CASE(test_unknown_types),
	TEST_CASE(test_peek_id),
	TEST_CASE(test_record_time),
	TEST_CASE(test_peek_time),
	TEST_CASE(test_reject_header),
	TEST_CASE(test_reject_callchain),
	TEST_CASE(test_reject_raw),
	TEST_CASE(test_reject_no_nul),
	TEST_CASE(test_reject_regs),
	TEST_CASE(test_reject_stack),
	TEST_CASE(test_reject_branch_and_read_counts),
	TEST_CASE(test_truncate_sample),
	TEST_CASE(test_truncate_trailer_records),
	TEST_CASE(test_mutations),
	TEST_CASE(test_encode_comm_and_tasks),
	TEST_CASE(test_encode_lost),
	TEST_CASE(test_encode_mmaps),
	TEST_CASE(test_encode_round_trip_and_refusals),
)
