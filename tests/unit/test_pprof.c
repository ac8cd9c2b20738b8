/* test_pprof.c - the pprof encoder, read back with a small protobuf
 * reader: string 0 is "", sample types, identical stacks merged with their
 * values summed, mappings with hex build-ids, locations with their lines
 * (an inline chain), functions, labels; gzip inflates to the same bytes. */
#include <errno.h>

#include <zlib.h>

#include "luaprof/pprof.h"
#include "test.h"

struct pb { const uint8_t *p, *end; };

static uint64_t varint(struct pb *b)
{
	uint64_t v = 0;
	for (int s = 0; b->p < b->end && s < 64; s += 7) {
		uint8_t c = *b->p++;
		v |= (uint64_t)(c & 0x7f) << s;
		if (!(c & 0x80))
			break;
	}
	return v;
}

/* The next field: its number, and its value or sub-message. */
static int field(struct pb *b, uint64_t *v, struct pb *sub)
{
	if (b->p >= b->end)
		return 0;
	uint64_t tag = varint(b);
	if ((tag & 7) == 2) {
		uint64_t n = varint(b);
		*sub = (struct pb){ b->p, b->p + n };
		b->p += n;
	} else {
		*v = varint(b);
	}
	return (int)(tag >> 3);
}

static int count_fields(struct lp_buf *out, int num)
{
	struct pb b = { (const uint8_t *)out->p, (const uint8_t *)out->p + out->len }, sub;
	uint64_t v;
	int f, n = 0;
	while ((f = field(&b, &v, &sub)))
		n += f == num;
	return n;
}

/* The idx-th string of the table. */
static char *string_at(struct lp_buf *out, uint64_t idx, char *s, size_t size)
{
	struct pb b = { (const uint8_t *)out->p, (const uint8_t *)out->p + out->len }, sub;
	uint64_t v, i = 0;
	int f;
	while ((f = field(&b, &v, &sub)))
		if (f == 6 && i++ == idx) {
			snprintf(s, size, "%.*s", (int)(sub.end - sub.p), sub.p);
			return s;
		}
	return NULL;
}

static struct lp_pprof *sample_profile(void)
{
	struct lp_pprof *p = lp_pprof_new();
	TEST_EQ(lp_pprof_sample_type(p, "samples", "count"), 0);
	TEST_EQ(lp_pprof_sample_type(p, "cpu", "nanoseconds"), 0);
	bool added;
	uint64_t m = lp_pprof_mapping(p, 0x1000, 0x5000, 0, "/bin/prog", &added);
	TEST_TRUE(added);
	TEST_EQ(lp_pprof_mapping(p, 0x1000, 0x5000, 0, "/bin/prog", &added), m);
	TEST_TRUE(!added);
	uint8_t id[4] = { 0xde, 0xad, 0xbe, 0xef };
	TEST_EQ(lp_pprof_build_id(p, m, id, 4), 0);
	struct lp_pprof_line inl[2] = { { "inner", NULL, "a.c", 10 }, { "outer", NULL, "a.c", 20 } };
	uint64_t leaf = lp_pprof_location(p, m, 0x1100, inl, 2);
	struct lp_pprof_line mainl = { "main", NULL, NULL, 0 };
	uint64_t root = lp_pprof_location(p, m, 0x1200, &mainl, 1);
	TEST_EQ(lp_pprof_location(p, m, 0x1100, inl, 2), leaf);
	uint64_t stack[2] = { leaf, root };
	int64_t v1[2] = { 1, 250 }, v2[2] = { 2, 500 };
	struct lp_pprof_label lab = { "comm", "prog", 0 };
	TEST_EQ(lp_pprof_add(p, stack, 2, v1, &lab, 1), 0);
	TEST_EQ(lp_pprof_add(p, stack, 2, v2, &lab, 1), 0);       /* merged */
	TEST_EQ(lp_pprof_add(p, stack, 1, v1, NULL, 0), 0);        /* another stack */
	TEST_EQ(lp_pprof_sample_type(p, "late", "count"), -EBUSY);
	return p;
}

static void encodes(void)
{
	struct lp_pprof *p = sample_profile();
	struct lp_buf out = { 0 };
	TEST_EQ(lp_pprof_write(p, &out, 0), 0);
	TEST_EQ(count_fields(&out, 1), 2);      /* sample types */
	TEST_EQ(count_fields(&out, 2), 2);      /* samples */
	TEST_EQ(count_fields(&out, 3), 1);      /* mappings */
	TEST_EQ(count_fields(&out, 4), 2);      /* locations */
	TEST_EQ(count_fields(&out, 5), 3);      /* functions: inner, outer, main */
	char s[64];
	TEST_STREQ(string_at(&out, 0, s, sizeof s), "");
	/* the first sample: locations 1 2, values 3 750, label comm=prog */
	struct pb b = { (const uint8_t *)out.p, (const uint8_t *)out.p + out.len }, sub, sub2;
	uint64_t v;
	int f;
	while ((f = field(&b, &v, &sub)) && f != 2)
		;
	TEST_EQ(f, 2);
	uint64_t locs[4] = { 0 }, vals[4] = { 0 }, nl = 0, nv = 0, key = 0, str = 0;
	while ((f = field(&sub, &v, &sub2))) {
		if (f == 1)
			while (sub2.p < sub2.end && nl < 4)
				locs[nl++] = varint(&sub2);
		if (f == 2)
			while (sub2.p < sub2.end && nv < 4)
				vals[nv++] = varint(&sub2);
		if (f == 3) {
			struct pb l = sub2, x;
			uint64_t lv;
			int lf;
			while ((lf = field(&l, &lv, &x)))
				lf == 1 ? (key = lv) : lf == 2 ? (str = lv) : 0;
		}
	}
	TEST_EQ(nl, 2); TEST_EQ(locs[0], 1); TEST_EQ(locs[1], 2);
	TEST_EQ(nv, 2); TEST_EQ(vals[0], 3); TEST_EQ(vals[1], 750);
	TEST_STREQ(string_at(&out, key, s, sizeof s), "comm");
	TEST_STREQ(string_at(&out, str, s, sizeof s), "prog");
	TEST_TRUE(memmem(out.p, out.len, "deadbeef", 8) != NULL);
	TEST_TRUE(memmem(out.p, out.len, "/bin/prog", 9) != NULL);
	lp_buf_free(&out);
	lp_pprof_free(p);
}

static void gzips(void)
{
	struct lp_pprof *p = sample_profile();
	struct lp_buf raw = { 0 }, gz = { 0 };
	TEST_EQ(lp_pprof_write(p, &raw, 0), 0);
	TEST_EQ(lp_pprof_write(p, &gz, 1), 0);
	TEST_TRUE(gz.len > 18 && (uint8_t)gz.p[0] == 0x1f && (uint8_t)gz.p[1] == 0x8b);
	uint8_t back[8192];
	z_stream z = { 0 };
	TEST_EQ(inflateInit2(&z, MAX_WBITS + 16), Z_OK);
	z.next_in = (Bytef *)gz.p;
	z.avail_in = (uInt)gz.len;
	z.next_out = back;
	z.avail_out = sizeof back;
	TEST_EQ(inflate(&z, Z_FINISH), Z_STREAM_END);
	TEST_EQ(z.total_out, raw.len);
	TEST_TRUE(!memcmp(back, raw.p, raw.len));
	inflateEnd(&z);
	lp_buf_free(&raw);
	lp_buf_free(&gz);
	lp_pprof_free(p);
}

/* The first mapping of the file is the program's (pprof names the profile
 * after it), whatever order the mappings came in: ld.so's and libc's first
 * here, as when the first samples fall in the dynamic linker.  Each keeps
 * its id. */
static void main_mapping_first(void)
{
	struct lp_pprof *p = lp_pprof_new();
	bool added;
	TEST_EQ(lp_pprof_sample_type(p, "samples", "count"), 0);
	TEST_EQ(lp_pprof_mapping(p, 0x7000, 0x8000, 0, "/lib64/ld-linux-x86-64.so.2", &added), 1);
	TEST_EQ(lp_pprof_mapping(p, 0x9000, 0xa000, 0, "[vdso]", &added), 2);
	TEST_EQ(lp_pprof_mapping(p, 0x1000, 0x2000, 0, "/usr/bin/prog", &added), 3);
	TEST_EQ(lp_pprof_mapping(p, 0x3000, 0x4000, 0, "/lib/libc.so.6", &added), 4);
	lp_pprof_period_value(p, 1001001);
	struct lp_buf out = { 0 };
	TEST_EQ(lp_pprof_write(p, &out, 0), 0);
	struct pb b = { (const uint8_t *)out.p, (const uint8_t *)out.p + out.len }, sub, sub2;
	uint64_t v, ids[4] = { 0 }, files[4] = { 0 }, period = 0;
	int f, n = 0;
	while ((f = field(&b, &v, &sub))) {
		if (f == 12)
			period = v;
		if (f != 3 || n == 4)
			continue;
		while ((f = field(&sub, &v, &sub2)))
			f == 1 ? (ids[n] = v) : f == 5 ? (files[n] = v) : 0;
		n++;
	}
	char s[64];
	TEST_EQ(n, 4);
	TEST_EQ(ids[0], 3);
	TEST_STREQ(string_at(&out, files[0], s, sizeof s), "/usr/bin/prog");
	TEST_EQ(ids[1], 1); TEST_EQ(ids[2], 2); TEST_EQ(ids[3], 4);
	TEST_EQ(period, 1001001);
	lp_buf_free(&out);
	lp_pprof_free(p);
}

TEST_MAIN("pprof", TEST_CASE(encodes), TEST_CASE(gzips), TEST_CASE(main_mapping_first))
