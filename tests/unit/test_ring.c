/* test_ring.c - the ring cursor over synthetic memory laid out as the
 * kernel's: records in order, a record wrapping the end, consume, and
 * corrupt headers. */
#include <errno.h>
#include <stdint.h>

#include "luaprof/ring.h"
#include "test.h"

#define DATA_OFF 4096
#define DATA_SIZE 256

static _Alignas(4096) uint8_t mem[DATA_OFF + DATA_SIZE];

static struct perf_event_mmap_page *page(void) { return (void *)mem; }

/* Writes a record of size bytes (type, then filler = seq) at ring position pos. */
static void put(uint64_t pos, uint16_t size, uint32_t type, uint8_t fill)
{
	uint8_t rec[512];
	struct perf_event_header h = { .type = type, .misc = 0, .size = size };
	memcpy(rec, &h, sizeof h);
	memset(rec + sizeof h, fill, size - sizeof h);
	for (uint16_t i = 0; i < size; i++)
		mem[DATA_OFF + ((pos + i) % DATA_SIZE)] = rec[i];
}

static void reset(uint64_t tail)
{
	memset(mem, 0, sizeof mem);
	page()->data_tail = tail;
	page()->data_head = tail;
}

static void in_order(void)
{
	reset(0);
	put(0, 16, 9, 1);
	put(16, 24, 3, 2);
	page()->data_head = 40;
	struct lp_ring *r = lp_ring_over(mem, DATA_OFF, DATA_SIZE);
	int err = 0;
	TEST_EQ(lp_ring_begin(r), 40);
	const struct perf_event_header *h = lp_ring_next(r, &err);
	TEST_TRUE(h && h->type == 9 && h->size == 16);
	h = lp_ring_next(r, &err);
	TEST_TRUE(h && h->type == 3 && h->size == 24);
	TEST_TRUE(lp_ring_next(r, &err) == NULL);
	TEST_EQ(err, 0);
	TEST_EQ(page()->data_tail, 0);          /* nothing released yet */
	lp_ring_consume(r);
	TEST_EQ(page()->data_tail, 40);
	lp_ring_free(r);
}

static void wraps(void)
{
	reset(232);                             /* 24 bytes before the end */
	put(232, 64, 9, 0xab);                  /* 24 bytes at the end, 40 at the start */
	page()->data_head = 232 + 64;
	struct lp_ring *r = lp_ring_over(mem, DATA_OFF, DATA_SIZE);
	int err = 0;
	lp_ring_begin(r);
	const struct perf_event_header *h = lp_ring_next(r, &err);
	TEST_TRUE(h != NULL);
	TEST_EQ(h->size, 64);
	const uint8_t *b = (const void *)h;
	int all = 1;
	for (int i = 8; i < 64; i++)
		all &= b[i] == 0xab;
	TEST_TRUE(all);
	TEST_TRUE((uintptr_t)h % 8 == 0);
	lp_ring_consume(r);
	TEST_EQ(page()->data_tail, 296);
	lp_ring_free(r);
}

static void corrupt_size(void)
{
	reset(0);
	put(0, 16, 9, 1);
	put(16, 8, 9, 0);
	((struct perf_event_header *)(mem + DATA_OFF + 16))->size = 4;   /* < header */
	page()->data_head = 40;
	struct lp_ring *r = lp_ring_over(mem, DATA_OFF, DATA_SIZE);
	int err = 0;
	lp_ring_begin(r);
	TEST_TRUE(lp_ring_next(r, &err) != NULL);
	TEST_TRUE(lp_ring_next(r, &err) == NULL);
	TEST_EQ(err, -EPROTO);
	lp_ring_consume(r);
	TEST_EQ(page()->data_tail, 40);         /* skipped to the head */
	lp_ring_free(r);
}

static void past_head(void)
{
	reset(0);
	put(0, 64, 9, 1);
	page()->data_head = 32;                 /* record claims more than was written */
	struct lp_ring *r = lp_ring_over(mem, DATA_OFF, DATA_SIZE);
	int err = 0;
	lp_ring_begin(r);
	TEST_TRUE(lp_ring_next(r, &err) == NULL);
	TEST_EQ(err, -EPROTO);
	lp_ring_free(r);
}

static void bad_size_refused(void)
{
	TEST_TRUE(lp_ring_over(mem, DATA_OFF, 100) == NULL);    /* not a power of two */
}

TEST_MAIN("ring", TEST_CASE(in_order), TEST_CASE(wraps), TEST_CASE(corrupt_size),
	  TEST_CASE(past_head), TEST_CASE(bad_size_refused))
