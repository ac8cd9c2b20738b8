/*
 * test_trace.c - tracepoint formats, field decoding, TRACING_DATA, tracefs
 * and the system call table.
 *
 * Formats are given here as text (the kernel's own, copied from tracefs),
 * so parsing and decoding are checked on any machine; the parts that read
 * tracefs say "skip:" and pass when it is not mounted.
 */
#include <errno.h>
#include <sys/syscall.h>

#include "luaprof/perfdata.h"
#include "luaprof/trace.h"
#include "test.h"

static const char sched_switch[] =
	"name: sched_switch\n"
	"ID: 372\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"prev_comm=%s prev_pid=%d\", REC->prev_comm, REC->prev_pid\n";

/* Dynamic and array fields, as the kernel writes them (sys_enter's args,
 * sched_process_exec's filename, an __rel_loc string of 5.16's eprobes, a
 * u64[] of dma tracepoints, an old kernel's line without signed:). */
static const char mixed[] =
	"name: mixed\n"
	"ID: 9001\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long args[6];\toffset:16;\tsize:48;\tsigned:0;\n"
	"\tfield:__rel_loc char[] name;\toffset:64;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc u64[] addrs;\toffset:68;\tsize:4;\tsigned:0;\n"
	"\tfield:s8 small;\toffset:72;\tsize:1;\tsigned:1;\n"
	"\tfield:u8 mac[6];\toffset:73;\tsize:6;\tsigned:0;\n"
	"\tfield:const char * ptr;\toffset:80;\tsize:8;\tsigned:0;\n"
	"\tfield:short old;\toffset:88;\tsize:2;\n"
	"\tfield:struct foo blob;\toffset:90;\tsize:6;\tsigned:0;\n"
	"\n"
	"print fmt: \"%s\", __get_str(filename)\n";

static struct lp_tp_format *parse(const char *text, const char *system)
{
	struct lp_tp_format *f = NULL;
	TEST_EQ(lp_tp_format_parse(text, strlen(text), system, &f), 0);
	return f;
}

static void parses_sched_switch(void)
{
	struct lp_tp_format *f = parse(sched_switch, "sched");
	if (!f)
		return;
	TEST_STREQ(f->system, "sched");
	TEST_STREQ(f->name, "sched_switch");
	TEST_EQ(f->id, 372);
	TEST_EQ(f->nr_fields, 11);
	const struct lp_tp_field *x = lp_tp_field_find(f, "prev_comm");
	TEST_TRUE(x && x->kind == LP_TP_STRING && x->offset == 8 && x->size == 16);
	TEST_STREQ(x ? x->type : NULL, "char[16]");
	x = lp_tp_field_find(f, "prev_state");
	TEST_TRUE(x && x->kind == LP_TP_INT && x->is_signed && x->size == 8 && !x->common);
	TEST_STREQ(x ? x->type : NULL, "long");
	x = lp_tp_field_find(f, "common_pid");
	TEST_TRUE(x && x->common && x->is_signed);
	TEST_STREQ(f->fields[0].type, "unsigned short");
	TEST_TRUE(lp_tp_field_find(f, "nope") == NULL);
	lp_tp_format_free(f);
}

static void parses_dynamic_and_arrays(void)
{
	struct lp_tp_format *f = parse(mixed, "test");
	if (!f)
		return;
	const struct lp_tp_field *x = lp_tp_field_find(f, "filename");
	TEST_TRUE(x && x->dyn && !x->rel && x->kind == LP_TP_STRING);
	TEST_STREQ(x ? x->type : NULL, "__data_loc char[]");
	x = lp_tp_field_find(f, "args");
	TEST_TRUE(x && x->kind == LP_TP_ARRAY && x->elem_size == 8 && x->count == 6);
	x = lp_tp_field_find(f, "name");
	TEST_TRUE(x && x->dyn && x->rel && x->kind == LP_TP_STRING);
	x = lp_tp_field_find(f, "addrs");
	TEST_TRUE(x && x->dyn && x->kind == LP_TP_ARRAY && x->elem_size == 8);
	x = lp_tp_field_find(f, "mac");
	TEST_TRUE(x && x->kind == LP_TP_ARRAY && x->elem_size == 1 && x->count == 6);
	x = lp_tp_field_find(f, "ptr");
	TEST_TRUE(x && x->kind == LP_TP_INT && x->size == 8);
	x = lp_tp_field_find(f, "old");                 /* no signed: guessed from short */
	TEST_TRUE(x && x->is_signed);
	x = lp_tp_field_find(f, "blob");
	TEST_TRUE(x && x->kind == LP_TP_BYTES);
	lp_tp_format_free(f);
}

static void put(uint8_t *raw, size_t off, const void *v, size_t n)
{
	memcpy(raw + off, v, n);
}

static void decodes_fields(void)
{
	struct lp_tp_format *f = parse(sched_switch, "sched");
	if (!f)
		return;
	uint8_t raw[68] = { 0 };
	int32_t pid = 4242;
	int64_t state = -1;             /* a signed 64-bit field stays signed */
	put(raw, 8, "sleeper\0garbage!", 16);
	put(raw, 24, &pid, 4);
	put(raw, 32, &state, 8);
	put(raw, 40, "0123456789abcdef", 16);      /* no NUL: the whole array */
	const char *s;
	size_t len;
	uint64_t v;
	TEST_EQ(lp_tp_read_string(lp_tp_field_find(f, "prev_comm"), raw, sizeof raw, &s, &len), 0);
	TEST_TRUE(len == 7 && !memcmp(s, "sleeper", 7));
	TEST_EQ(lp_tp_read_string(lp_tp_field_find(f, "next_comm"), raw, sizeof raw, &s, &len), 0);
	TEST_EQ(len, 16);
	TEST_EQ(lp_tp_read_int(lp_tp_field_find(f, "prev_pid"), raw, sizeof raw, &v), 0);
	TEST_EQ((int64_t)v, 4242);
	TEST_EQ(lp_tp_read_int(lp_tp_field_find(f, "prev_state"), raw, sizeof raw, &v), 0);
	TEST_EQ((int64_t)v, -1);
	/* a field past the end of the data is refused, not read */
	TEST_EQ(lp_tp_read_int(lp_tp_field_find(f, "next_prio"), raw, 62, &v), -ERANGE);
	lp_tp_format_free(f);
}

static void decodes_dynamic(void)
{
	struct lp_tp_format *f = parse(mixed, "test");
	if (!f)
		return;
	uint8_t raw[160] = { 0 };
	uint32_t loc = 96 | (uint32_t)(sizeof "/bin/true") << 16;
	uint32_t rel = (120 - 68) | 4u << 16;   /* counts from the field's end (68) */
	uint32_t arr = 128 | 16u << 16;
	uint64_t args[6] = { 1, 2, 3, (uint64_t)-5, 5, 6 }, a2[2] = { 7, 8 };
	int8_t small = -3;
	put(raw, 8, &loc, 4);
	put(raw, 16, args, sizeof args);
	put(raw, 64, &rel, 4);
	put(raw, 68, &arr, 4);
	put(raw, 72, &small, 1);
	put(raw, 96, "/bin/true", sizeof "/bin/true");
	put(raw, 120, "abc", 4);
	put(raw, 128, a2, sizeof a2);
	const char *s;
	const uint8_t *p;
	size_t len;
	uint64_t v;
	TEST_EQ(lp_tp_read_string(lp_tp_field_find(f, "filename"), raw, sizeof raw, &s, &len), 0);
	TEST_TRUE(len == 9 && !memcmp(s, "/bin/true", 9));
	TEST_EQ(lp_tp_read_string(lp_tp_field_find(f, "name"), raw, sizeof raw, &s, &len), 0);
	TEST_TRUE(len == 3 && !memcmp(s, "abc", 3));
	const struct lp_tp_field *x = lp_tp_field_find(f, "args");
	TEST_EQ(lp_tp_read_bytes(x, raw, sizeof raw, &p, &len), 0);
	TEST_EQ(len, 48);
	TEST_EQ_U64(lp_tp_elem(x, p, 3), (uint64_t)-5);
	x = lp_tp_field_find(f, "addrs");
	TEST_EQ(lp_tp_read_bytes(x, raw, sizeof raw, &p, &len), 0);
	TEST_TRUE(len == 16 && lp_tp_elem(x, p, 1) == 8);
	TEST_EQ(lp_tp_read_int(lp_tp_field_find(f, "small"), raw, sizeof raw, &v), 0);
	TEST_EQ((int64_t)v, -3);
	/* a __data_loc pointing outside the data is refused */
	loc = 150 | 20u << 16;
	put(raw, 8, &loc, 4);
	TEST_EQ(lp_tp_read_string(lp_tp_field_find(f, "filename"), raw, sizeof raw, &s, &len),
		-ERANGE);
	lp_tp_format_free(f);
}

static void rejects_bad_formats(void)
{
	static const char *const bad[] = {
		"ID: 1\nformat:\n",                                       /* no name */
		"name: x\nformat:\n",                                     /* no ID */
		"name: x\nID: 1\n\tfield:int;\toffset:0;\tsize:4;\n",     /* no field name */
		"name: x\nID: 1\n\tfield:int a;\toffset:99999999;\tsize:4;\n",
		"name: x\nID: 1\n\tfield:int a;\tsize:4;\n",              /* no offset */
		"name: x\nID: 1\n\tfield:int a[4;\toffset:0;\tsize:4;\n",
		"name: x\nID: 12z\n",
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		struct lp_tp_format *f = NULL;
		int rc = lp_tp_format_parse(bad[i], strlen(bad[i]), "s", &f);
		if (rc != -EPROTO)
			fprintf(stderr, "  accepted bad format %zu\n", i);
		TEST_EQ(rc, -EPROTO);
		TEST_TRUE(f == NULL);
	}
}

static void sets_find_by_id(void)
{
	struct lp_tp_set *set = lp_tp_set_new();
	struct lp_tp_format *a = parse(sched_switch, "sched"), *b = parse(mixed, "test");
	struct lp_tp_format *dup = parse(sched_switch, "other");
	TEST_TRUE(set && a && b && dup);
	TEST_EQ(lp_tp_set_add(set, a), 0);
	TEST_EQ(lp_tp_set_add(set, b), 0);
	TEST_EQ(lp_tp_set_add(set, dup), 0);    /* same id: the first stays */
	TEST_EQ(lp_tp_set_count(set), 2);
	TEST_STREQ(lp_tp_set_find(set, 372)->system, "sched");
	TEST_STREQ(lp_tp_set_find(set, 9001)->name, "mixed");
	TEST_TRUE(lp_tp_set_find(set, 5) == NULL);
	lp_tp_set_free(set);
}

/* ---- TRACING_DATA: a block made here by hand, and one built from tracefs --- */

struct blob {
	uint8_t b[8192];
	size_t n;
};

static void add(struct blob *b, const void *p, size_t n)
{
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

static void add_u32(struct blob *b, uint32_t v) { add(b, &v, 4); }
static void add_u64(struct blob *b, uint64_t v) { add(b, &v, 8); }

/* perf's layout, version 0.6, with the two formats above in two systems. */
static void hand_made(struct blob *b)
{
	b->n = 0;
	add(b, "\027\010\104tracing0.6", 14);
	add(b, "\0\010", 2);                    /* little-endian, 8-byte long */
	add_u32(b, 4096);
	add(b, "header_page", 12);
	add_u64(b, 5);
	add(b, "hpage", 5);
	add(b, "header_event", 13);
	add_u64(b, 0);
	add_u32(b, 0);                          /* ftrace formats */
	add_u32(b, 2);
	add(b, "sched", 6);
	add_u32(b, 1);
	add_u64(b, strlen(sched_switch));
	add(b, sched_switch, strlen(sched_switch));
	add(b, "test", 5);
	add_u32(b, 2);
	add_u64(b, strlen(mixed));
	add(b, mixed, strlen(mixed));
	add_u64(b, 9);
	add(b, "not a fmt", 9);                 /* left out, as perf does */
	add_u32(b, 0);                          /* kallsyms */
	add_u32(b, 3);
	add(b, "p\nq", 3);                      /* printk_formats */
	add_u64(b, 0);                          /* saved_cmdlines */
}

static void tracing_data_parses(void)
{
	struct blob b;
	hand_made(&b);
	struct lp_tp_set *set = lp_tp_set_new();
	TEST_EQ(lp_tdata_parse(b.b, b.n, set), 0);
	TEST_EQ(lp_tp_set_count(set), 2);
	const struct lp_tp_format *f = lp_tp_set_find(set, 372);
	TEST_TRUE(f && !strcmp(f->system, "sched") && f->nr_fields == 11);
	f = lp_tp_set_find(set, 9001);
	TEST_TRUE(f && !strcmp(f->system, "test"));
	lp_tp_set_free(set);
}

/* Every cut of the block is refused or parses what lies before it; no byte
 * outside it is read (check-asan runs this under ASan). */
static void tracing_data_cut_anywhere(void)
{
	struct blob b;
	hand_made(&b);
	for (size_t n = 0; n < b.n; n++) {
		uint8_t *copy = malloc(n ? n : 1);
		memcpy(copy, b.b, n);
		struct lp_tp_set *set = lp_tp_set_new();
		int rc = lp_tdata_parse(copy, n, set);
		if (rc != -EPROTO)
			fprintf(stderr, "  a block cut at %zu bytes gave %d\n", n, rc);
		TEST_EQ(rc, -EPROTO);
		lp_tp_set_free(set);
		free(copy);
	}
	b.b[14] = 1;                            /* big-endian: refused */
	struct lp_tp_set *set = lp_tp_set_new();
	TEST_EQ(lp_tdata_parse(b.b, b.n, set), -EPROTO);
	lp_tp_set_free(set);
}

/* A recording's tracepoint decodes with the format the recording stores,
 * not with this machine's (which has no "fake:answer" at all): written
 * through the perf.data writer with its own TRACING_DATA, read back. */
static void recording_brings_its_formats(void)
{
	static const char fake[] =
		"name: answer\nID: 424242\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:int answer;\toffset:8;\tsize:4;\tsigned:1;\n"
		"\tfield:char tag[8];\toffset:12;\tsize:8;\tsigned:0;\n";
	struct blob b = { .n = 0 };
	add(&b, "\027\010\104tracing0.6\0\0\010", 16);
	add_u32(&b, 4096);
	add(&b, "header_page", 12);
	add_u64(&b, 0);
	add(&b, "header_event", 13);
	add_u64(&b, 0);
	add_u32(&b, 0);
	add_u32(&b, 1);
	add(&b, "fake", 5);
	add_u32(&b, 1);
	add_u64(&b, strlen(fake));
	add(&b, fake, strlen(fake));
	add_u32(&b, 0);
	add_u32(&b, 0);
	add_u64(&b, 0);
	char path[64] = "/tmp/lp-trace-XXXXXX";
	int fd = mkstemp(path);
	TEST_TRUE(fd >= 0);
	close(fd);
	struct perf_event_attr a = { .size = sizeof a, .type = PERF_TYPE_TRACEPOINT,
				     .config = 424242, .sample_period = 1, .sample_id_all = 1,
				     .sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME |
						    PERF_SAMPLE_RAW };
	uint64_t id = 7;
	/* a sample: header, id, time, u32 size, 20 bytes of raw data (4 + 20
	 * is 8-aligned, as the kernel pads it) */
	struct { struct perf_event_header h; uint64_t id, time; uint32_t size; uint8_t raw[20]; }
		__attribute__((packed)) rec = { { PERF_RECORD_SAMPLE, 0, sizeof rec }, 7, 1000, 20, { 0 } };
	int32_t answer = -42;
	memcpy(rec.raw + 8, &answer, 4);
	memcpy(rec.raw + 12, "lp\0xxxxx", 8);
	struct lp_pd_writer *w = lp_pd_writer_open(path);
	TEST_TRUE(w != NULL);
	TEST_EQ(lp_pd_writer_add_event(w, &a, "fake:answer", &id, 1), 0);
	TEST_EQ(lp_pd_writer_set_tracing_data(w, b.b, b.n), 0);
	TEST_EQ(lp_pd_writer_write(w, &rec), 0);
	TEST_EQ(lp_pd_writer_close(w), 0);
	struct lp_perfdata *pd = lp_perfdata_open(path);
	TEST_TRUE(pd != NULL);
	if (pd && lp_perfdata_event(pd, 0)->format) {
		const struct lp_pd_event *ev = lp_perfdata_event(pd, 0);
		struct lp_record r;
		const struct lp_pd_event *rev;
		TEST_TRUE(ev->format && !strcmp(ev->format->system, "fake") &&
			  !strcmp(ev->format->name, "answer"));
		TEST_EQ(lp_perfdata_next(pd, &r, &rev), 1);
		TEST_TRUE(rev == ev && r.u.sample.raw_size == 20);
		uint64_t v = 0;
		const char *s = "";
		size_t len = 0;
		TEST_EQ(lp_tp_read_int(lp_tp_field_find(ev->format, "answer"), r.u.sample.raw,
				       r.u.sample.raw_size, &v), 0);
		TEST_EQ((int64_t)v, -42);
		TEST_EQ(lp_tp_read_string(lp_tp_field_find(ev->format, "tag"), r.u.sample.raw,
					  r.u.sample.raw_size, &s, &len), 0);
		TEST_TRUE(len == 2 && !memcmp(s, "lp", 2));
	}
	if (pd)
		lp_perfdata_close(pd);
	unlink(path);
	unlink(strcat(path, ".old"));
}

static bool have_tracefs(void)
{
	if (lp_tracefs_dir())
		return true;
	printf("  skip: tracefs is not mounted\n");
	return false;
}

static int count_cb(const char *system, const char *event, void *arg)
{
	(void)system;
	(void)event;
	(*(size_t *)arg)++;
	return 0;
}

static void tracefs_reads_events(void)
{
	if (!have_tracefs())
		return;
	uint64_t id = 0;
	struct lp_tp_format *f = NULL;
	TEST_EQ(lp_tracefs_id("sched", "sched_switch", &id), 0);
	TEST_EQ(lp_tracefs_format("sched", "sched_switch", &f), 0);
	TEST_TRUE(f && f->id == id && lp_tp_field_find(f, "prev_pid"));
	lp_tp_format_free(f);
	TEST_EQ(lp_tracefs_id("sched", "no_such_event", &id), -ENOENT);
	TEST_EQ(lp_tracefs_id("..", "sched_switch", &id), -ENOENT);
	size_t n = 0;
	TEST_EQ(lp_tracefs_each("sched", "sched_switch", count_cb, &n), 0);
	TEST_EQ(n, 1);
	/* one per sys_enter_* directory of the kernel */
	n = 0;
	TEST_EQ(lp_tracefs_each("syscalls", "sys_enter_*", count_cb, &n), 0);
	char cmd[256];
	snprintf(cmd, sizeof cmd, "test $(ls -d %s/events/syscalls/sys_enter_* | wc -l) = %zu",
		 lp_tracefs_dir(), n);
	TEST_TRUE(n > 0 && sh("%s", cmd) == 0);
}

/* Built from tracefs, read back: each named format once, with its id. */
static void tracing_data_round_trip(void)
{
	if (!have_tracefs())
		return;
	const char *names[] = { "sched:sched_switch", "syscalls:sys_enter_getppid",
				"sched:sched_switch", "sched:sched_process_exec" };
	void *data = NULL;
	size_t len = 0;
	TEST_EQ(lp_tdata_build(names, 4, &data, &len), 0);
	struct lp_tp_set *set = lp_tp_set_new();
	TEST_EQ(lp_tdata_parse(data, len, set), 0);
	TEST_EQ(lp_tp_set_count(set), 3);
	for (size_t i = 0; i < 4; i++) {
		char sys[64];
		const char *colon = strchr(names[i], ':');
		uint64_t id = 0;
		snprintf(sys, sizeof sys, "%.*s", (int)(colon - names[i]), names[i]);
		TEST_EQ(lp_tracefs_id(sys, colon + 1, &id), 0);
		const struct lp_tp_format *f = lp_tp_set_find(set, id);
		TEST_TRUE(f && !strcmp(f->name, colon + 1) && !strcmp(f->system, sys));
	}
	lp_tp_set_free(set);
	free(data);
	TEST_EQ(lp_tdata_build((const char *[]){ "sched:nope" }, 1, &data, &len), -ENOENT);
}

static void syscall_table(void)
{
	TEST_EQ(lp_syscall_nr("getppid"), SYS_getppid);
	TEST_EQ(lp_syscall_nr("read"), SYS_read);
	TEST_EQ(lp_syscall_nr("close"), SYS_close);
	TEST_EQ(lp_syscall_nr("no_such_call"), -1);
	TEST_STREQ(lp_syscall_name(SYS_getppid), "getppid");
	TEST_STREQ(lp_syscall_name(SYS_openat), "openat");
	TEST_TRUE(lp_syscall_name(-1) == NULL);
	TEST_TRUE(lp_syscall_name(100000) == NULL);
	/* every number below 300 that the headers define names itself */
	for (long nr = 0; nr < 300; nr++) {
		const char *name = lp_syscall_name(nr);
		TEST_TRUE(name && lp_syscall_nr(name) == nr);
	}
}

TEST_MAIN("trace", TEST_CASE(parses_sched_switch), TEST_CASE(parses_dynamic_and_arrays),
	  TEST_CASE(decodes_fields), TEST_CASE(decodes_dynamic), TEST_CASE(rejects_bad_formats),
	  TEST_CASE(sets_find_by_id), TEST_CASE(tracing_data_parses),
	  TEST_CASE(tracing_data_cut_anywhere), TEST_CASE(tracefs_reads_events),
	  TEST_CASE(tracing_data_round_trip), TEST_CASE(syscall_table),
	  TEST_CASE(recording_brings_its_formats))
