/* test_drain.c - the thread that drains the rings (core/live/drain.c),
 * against a model: two rings over memory written here as the kernel
 * writes them, records of varied sizes carrying a sequence number.  Every
 * record written comes out of its ring's stage exactly once, in order;
 * the bytes held are what was drained and not released; past the bound
 * the thread stops (the writer then finds the ring full, as the kernel
 * would) and resumes once records are released. */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "live/drain.h"
#include "luaprof/ring.h"
#include "test.h"

#define NR 2
#define DATA_OFF 4096
#define DATA_SIZE 4096

static _Alignas(4096) uint8_t mem[NR][DATA_OFF + DATA_SIZE];

struct model {
	struct lp_ring *rings[NR];
	int fds[NR], pipes[NR][2];
	uint64_t written[NR], seen[NR];         /* sequence numbers */
	uint64_t samples;
};

static struct perf_event_mmap_page *page(int r) { return (void *)mem[r]; }

static void setup(struct model *m)
{
	memset(m, 0, sizeof *m);
	memset(mem, 0, sizeof mem);
	for (int r = 0; r < NR; r++) {
		m->rings[r] = lp_ring_over(mem[r], DATA_OFF, DATA_SIZE);
		TEST_TRUE(m->rings[r] && !pipe(m->pipes[r]));
		m->fds[r] = m->pipes[r][0];     /* never readable: passes come from kicks */
	}
}

static void teardown(struct model *m)
{
	for (int r = 0; r < NR; r++) {
		lp_ring_free(m->rings[r]);
		close(m->pipes[r][0]);
		close(m->pipes[r][1]);
	}
}

/* Writes the next record into ring r as the kernel would: false when
 * there is no room (the kernel would drop it). */
static bool put(struct model *m, int r)
{
	uint64_t seq = m->written[r];
	uint16_t size = (uint16_t)(16 + 8 * (seq % 7));
	uint64_t head = page(r)->data_head;
	uint64_t tail = __atomic_load_n(&page(r)->data_tail, __ATOMIC_ACQUIRE);
	if (head + size - tail > DATA_SIZE)
		return false;
	uint8_t rec[128] = { 0 };
	struct perf_event_header h = { .type = seq % 3 ? PERF_RECORD_SAMPLE : PERF_RECORD_COMM,
				       .size = size };
	memcpy(rec, &h, sizeof h);
	memcpy(rec + sizeof h, &seq, 8);
	for (uint16_t i = 0; i < size; i++)
		mem[r][DATA_OFF + ((head + i) % DATA_SIZE)] = rec[i];
	__atomic_store_n(&page(r)->data_head, head + size, __ATOMIC_RELEASE);
	m->written[r]++;
	m->samples += h.type == PERF_RECORD_SAMPLE;
	return true;
}

/* Takes every stage and checks it against the model; releases the bytes
 * when release is set.  Returns the bytes taken. */
static size_t take(struct model *m, struct lp_drain *d, struct lp_stage *spare, bool release)
{
	size_t bytes = 0;
	uint64_t pass;
	for (int r = 0; r < NR; r++) {
		TEST_EQ(lp_drain_take(d, (size_t)r, spare, &pass), 0);
		for (size_t off = 0; off < spare->len;) {
			const struct perf_event_header *h = (const void *)(spare->buf + off);
			uint64_t seq;
			memcpy(&seq, spare->buf + off + sizeof *h, 8);
			TEST_EQ_U64(seq, m->seen[r]);
			TEST_EQ(h->size, 16 + 8 * (seq % 7));
			m->seen[r]++;
			off += h->size;
			bytes += h->size;
		}
		spare->len = 0;
	}
	if (release && bytes)
		lp_drain_release(d, bytes);
	return bytes;
}

static void wait_data(struct lp_drain *d)
{
	struct pollfd p = { .fd = d->data, .events = POLLIN };
	poll(&p, 1, 1000);
	lp_drain_ack(d);
}

static void model(void)
{
	struct model m;
	struct lp_drain d;
	struct lp_stage spare = { 0 };
	setup(&m);
	TEST_EQ(lp_drain_init(&d, m.rings, m.fds, NR, 1 << 20), 0);
	TEST_EQ(lp_drain_start(&d), 0);
	for (int i = 0; i < 20000; i++) {
		int r = (i * 7 + i / 5) % NR;
		while (!put(&m, r)) {           /* full: a pass, then room */
			lp_drain_kick(&d);
			wait_data(&d);
			take(&m, &d, &spare, true);
		}
		if (i % 1000 == 999)
			take(&m, &d, &spare, true);
	}
	lp_drain_stop(&d);                      /* the last pass */
	take(&m, &d, &spare, true);
	for (int r = 0; r < NR; r++)
		TEST_EQ_U64(m.seen[r], m.written[r]);
	uint64_t samples, bad;
	lp_drain_counts(&d, &samples, &bad);
	TEST_EQ_U64(samples, m.samples);
	TEST_EQ_U64(bad, 0);
	TEST_EQ(__atomic_load_n(&d.held, __ATOMIC_RELAXED), 0);
	TEST_EQ_U64(__atomic_load_n(&d.full_times, __ATOMIC_RELAXED), 0);
	lp_drain_stop(&d);                      /* idempotent */
	lp_drain_free(&d);
	free(spare.buf);
	teardown(&m);
}

static void bound(void)
{
	struct model m;
	struct lp_drain d;
	struct lp_stage spare = { 0 };
	setup(&m);
	TEST_EQ(lp_drain_init(&d, m.rings, m.fds, NR, 1000), 0);
	TEST_EQ(lp_drain_start(&d), 0);
	/* nothing released: the thread passes (every 50 ms: no kicks) until
	 * the bound, then stops, and the rings fill */
	uint64_t dropped = 0;
	for (int round = 0; round < 12; round++) {
		for (int r = 0; r < NR; r++)
			while (put(&m, r))
				;
		dropped++;
		usleep(60000);
	}
	for (int r = 0; r < NR; r++)
		dropped += !put(&m, r);
	TEST_TRUE(dropped > 12);                /* still full at the end */
	TEST_TRUE(lp_drain_full(&d));
	TEST_EQ_U64(__atomic_load_n(&d.full_times, __ATOMIC_RELAXED), 1);
	size_t held = __atomic_load_n(&d.held, __ATOMIC_RELAXED);
	/* a pass started under the bound takes at most the rings */
	TEST_TRUE(held >= 1000 && held < 1000 + DATA_SIZE * NR);
	size_t taken = take(&m, &d, &spare, false);
	TEST_EQ(taken, held);
	/* released: the thread drains again, everything written comes out */
	lp_drain_release(&d, taken);
	lp_drain_stop(&d);
	take(&m, &d, &spare, true);
	for (int r = 0; r < NR; r++)
		TEST_EQ_U64(m.seen[r], m.written[r]);
	TEST_EQ(__atomic_load_n(&d.held, __ATOMIC_RELAXED), 0);
	lp_drain_free(&d);
	free(spare.buf);
	teardown(&m);
}

static void free_unstarted(void)
{
	struct lp_drain d;
	memset(&d, 0, sizeof d);
	lp_drain_free(&d);                      /* a zeroed struct */
	struct model m;
	setup(&m);
	TEST_EQ(lp_drain_init(&d, m.rings, m.fds, NR, 0), 0);
	lp_drain_stop(&d);                      /* never started */
	lp_drain_free(&d);
	teardown(&m);
}

TEST_MAIN("drain", TEST_CASE(model), TEST_CASE(bound), TEST_CASE(free_unstarted))
