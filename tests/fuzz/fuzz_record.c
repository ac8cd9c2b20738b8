/*
 * fuzz_record.c - the ring-buffer record decoder (lp_record_parse) on any
 * bytes.  The first 40 bytes choose the layout (sample_type, read_format,
 * branch_sample_type, the two register masks; the low bit of the first byte
 * sets sample_id_all); the rest is one record.  Whatever it decodes, every
 * pointer it hands back must lie inside the input: this target reads them
 * all, so ASan catches one that does not.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "luaprof/record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t word(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

static volatile uint64_t sink;

static void touch(const void *p, size_t n)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++)
		sink += b[i];
}

static void touch_sample(const struct lp_sample *s)
{
	if (s->read)
		touch(s->read, s->nr_read * 8);
	if (s->ips)
		touch(s->ips, s->nr_ips * 8);
	if (s->raw)
		touch(s->raw, s->raw_size);
	if (s->branches)
		touch(s->branches, s->nr_branches * sizeof *s->branches);
	if (s->user_regs)
		touch(s->user_regs, s->nr_user_regs * 8);
	if (s->user_stack)
		touch(s->user_stack, s->user_stack_size);
	if (s->intr_regs)
		touch(s->intr_regs, s->nr_intr_regs * 8);
	if (s->aux)
		touch(s->aux, s->aux_size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 40 + 8)
		return 0;
	struct lp_format fmt = {
		.sample_type = word(data) >> 1,
		.read_format = word(data + 8),
		.branch_sample_type = word(data + 16),
		.sample_regs_user = word(data + 24),
		.sample_regs_intr = word(data + 32),
		.sample_id_all = data[0] & 1,
	};
	size -= 40;
	/* The decoder needs len >= header.size.  The record is copied into a
	 * block of exactly header.size bytes (malloc aligns it to 8, as the
	 * kernel's records are), so ASan sees any read past its end. */
	uint16_t hsize;
	memcpy(&hsize, data + 40 + 6, sizeof hsize);
	if (hsize < 8 || hsize > size)
		return 0;
	void *buf = malloc(hsize);
	if (!buf)
		return 0;
	memcpy(buf, data + 40, hsize);
	struct lp_record rec;
	if (lp_record_parse(buf, hsize, &fmt, &rec) == 0) {
		touch(rec.data, rec.size);
		switch (rec.type) {
		case PERF_RECORD_SAMPLE:
			touch_sample(&rec.u.sample);
			break;
		case PERF_RECORD_MMAP:
		case PERF_RECORD_MMAP2:
			touch(rec.u.mmap.filename, strlen(rec.u.mmap.filename));
			break;
		case PERF_RECORD_COMM:
			touch(rec.u.comm.comm, strlen(rec.u.comm.comm));
			break;
		case PERF_RECORD_CGROUP:
			touch(rec.u.cgroup.path, strlen(rec.u.cgroup.path));
			break;
		case PERF_RECORD_KSYMBOL:
			touch(rec.u.ksymbol.name, strlen(rec.u.ksymbol.name));
			break;
		}
	}
	free(buf);
	return 0;
}
