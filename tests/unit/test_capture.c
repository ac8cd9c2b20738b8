/* test_capture.c - the strings a sample pointed at (capture.h): capture
 * records built from this process's memory and decoded back, call records,
 * malformed records refused; a string in a sample's stack copy (whole, cut
 * by the copy's end, outside it); a string literal of this program read
 * from its file through the maps of a /proc scan, and a heap string not;
 * the named constants (open flags, signals, task states). */
#include <errno.h>
#include <asm/perf_regs.h>

#include "luaprof/capture.h"
#include "luaprof/proc.h"
#include "luaprof/trace.h"
#include "test.h"

static const char literal[] = "/nonexistent/test_capture/literal";

/* A sample of this process whose raw data holds ptr at offset 16. */
static struct lp_sample sample_with(uint8_t *raw, size_t size, uint64_t ptr)
{
	memset(raw, 0, size);
	memcpy(raw + 16, &ptr, 8);
	return (struct lp_sample){ .pid = (uint32_t)getpid(), .tid = (uint32_t)getpid(),
				   .time = 1234, .raw = raw, .raw_size = (uint32_t)size };
}

static void build_and_decode(void)
{
	uint8_t raw[32], out[LP_CAPTURE_ROOM] __attribute__((aligned(8)));
	char *heap = strdup("/heap/string");
	struct lp_sample s = sample_with(raw, sizeof raw, (uint64_t)(uintptr_t)heap);
	struct lp_capture_plan plan = { .nr_ptrs = 2, .ptr_off = { 16, 24 }, .cmdline = true };
	size_t n = lp_capture_build(&plan, &s, out, sizeof out);
	TEST_TRUE(n > 0 && n % 8 == 0);
	struct lp_capture c;
	TEST_EQ(lp_capture_decode(out, n, &c), 0);
	TEST_EQ(c.time, 1234);
	TEST_EQ(c.tid, getpid());
	TEST_TRUE(!c.call);
	TEST_EQ(c.nr, 2);       /* the NULL pointer at 24 is left out */
	TEST_EQ(c.items[0].kind, LP_CAPTURE_STR);
	TEST_EQ_U64(c.items[0].addr, (uintptr_t)heap);
	TEST_EQ(c.items[0].err, 0);
	TEST_TRUE(c.items[0].len == strlen(heap) && !memcmp(c.items[0].data, heap, c.items[0].len));
	TEST_EQ(c.items[1].kind, LP_CAPTURE_CMDLINE);
	TEST_TRUE(c.items[1].len > 0 && strstr(c.items[1].data, "test_capture"));
	/* an address that cannot be read carries its errno */
	s = sample_with(raw, sizeof raw, 8);
	plan.cmdline = false;
	n = lp_capture_build(&plan, &s, out, sizeof out);
	TEST_EQ(lp_capture_decode(out, n, &c), 0);
	TEST_TRUE(c.nr == 1 && c.items[0].err == EFAULT && c.items[0].len == 0);
	/* nothing to read: no record */
	plan.nr_ptrs = 0;
	TEST_EQ(lp_capture_build(&plan, &s, out, sizeof out), 0);
	/* a room too small for anything: none either */
	plan.nr_ptrs = 1;
	TEST_EQ(lp_capture_build(&plan, &s, out, 40), 0);
	free(heap);
}

static void call_records(void)
{
	uint8_t out[256] __attribute__((aligned(8)));
	struct lp_sample s = { .pid = 7, .tid = 8, .time = 99 };
	struct lp_capture_item items[2] = {
		{ 0x1000, "/etc/passwd", 11, LP_CAPTURE_CALL, 0 },
		{ 0x2000, "a\0b\0c", 5, LP_CAPTURE_ARGV, 0 },
	};
	size_t n = lp_capture_call(&s, items, 2, out, sizeof out);
	struct lp_capture c;
	TEST_EQ(lp_capture_decode(out, n, &c), 0);
	TEST_TRUE(c.call && c.pid == 7 && c.tid == 8 && c.time == 99 && c.nr == 2);
	TEST_TRUE(c.items[0].len == 11 && !memcmp(c.items[0].data, "/etc/passwd", 11));
	TEST_TRUE(c.items[1].kind == LP_CAPTURE_ARGV && c.items[1].len == 5 &&
		  !memcmp(c.items[1].data, "a\0b\0c", 5));
	/* malformed: cut short, too many items, an item past the end, not one */
	TEST_EQ(lp_capture_decode(out, n - 8, &c), -EPROTO);
	uint8_t bad[256] __attribute__((aligned(8)));
	memcpy(bad, out, n);
	uint32_t many = LP_CAPTURE_MAX + 1;
	memcpy(bad + 24, &many, 4);
	TEST_EQ(lp_capture_decode(bad, n, &c), -EPROTO);
	memcpy(bad, out, n);
	uint32_t huge = 4000;
	memcpy(bad + 32 + 8, &huge, 4);
	TEST_EQ(lp_capture_decode(bad, n, &c), -EPROTO);
	memcpy(bad, out, n);
	bad[0] ^= 1;
	TEST_EQ(lp_capture_decode(bad, n, &c), -EPROTO);
	TEST_EQ(lp_capture_decode(out, 16, &c), -EPROTO);
}

/* An argument the kernel could not read at the call is an item of its
 * own, its error and no data: the system call's sample then takes no
 * older call's string at that pointer. */
static void call_record_unread(void)
{
	uint8_t out[256] __attribute__((aligned(8)));
	struct lp_sample s = { .pid = 7, .tid = 8, .time = 99 };
	struct lp_capture_item items[2] = {
		{ 0x1000, NULL, 0, LP_CAPTURE_CALL, EFAULT },
		{ 0x2000, "/tmp", 4, LP_CAPTURE_CALL, 0 },
	};
	size_t n = lp_capture_call(&s, items, 2, out, sizeof out);
	struct lp_capture c;
	TEST_EQ(lp_capture_decode(out, n, &c), 0);
	TEST_TRUE(c.call && c.nr == 2);
	TEST_TRUE(c.items[0].addr == 0x1000 && c.items[0].err == EFAULT && c.items[0].len == 0);
	TEST_TRUE(c.items[1].addr == 0x2000 && !c.items[1].err && c.items[1].len == 4 &&
		  !memcmp(c.items[1].data, "/tmp", 4));
}

static void stack_copy(void)
{
	char stack[64] = "xx/on/the/stack";
	uint64_t regs[1] = { 0x7000 };          /* SP alone */
	struct lp_sample s = { .user_abi = PERF_SAMPLE_REGS_ABI_64, .user_regs = regs, .nr_user_regs = 1,
			       .user_regs_mask = 1ull << PERF_REG_X86_SP, .user_stack = stack,
			       .user_stack_size = 64, .user_stack_dyn_size = 20 };
	const char *str;
	size_t len;
	TEST_EQ(lp_sample_stack_str(&s, 0x7002, 4096, &str, &len), 0);
	TEST_TRUE(len == 13 && !memcmp(str, "/on/the/stack", 13));
	TEST_EQ(lp_sample_stack_str(&s, 0x7002, 3, &str, &len), 0);     /* max cuts it */
	TEST_EQ(len, 3);
	s.user_stack_dyn_size = 10;             /* the copy ends inside the string */
	TEST_EQ(lp_sample_stack_str(&s, 0x7002, 4096, &str, &len), -ERANGE);
	TEST_EQ(lp_sample_stack_str(&s, 0x6fff, 4096, &str, &len), -ENOENT);
	TEST_EQ(lp_sample_stack_str(&s, 0x700a, 4096, &str, &len), -ENOENT);
	s.user_stack_dyn_size = 65;             /* larger than the copy: refused */
	TEST_EQ(lp_sample_stack_str(&s, 0x7002, 4096, &str, &len), -ENOENT);
	s.user_stack = NULL;
	TEST_EQ(lp_sample_stack_str(&s, 0x7002, 4096, &str, &len), -ENOENT);
}

static void literal_from_file(void)
{
	struct lp_procs *ps = lp_procs_new();
	struct lp_filestr *fs = lp_filestr_new();
	char buf[128], *heap = strdup(literal);
	size_t len;
	TEST_TRUE(ps && fs && heap);
	TEST_EQ(lp_procs_synthesize(ps, getpid(), true), 0);
	struct lp_thread *t = lp_procs_find(ps, (uint32_t)getpid());
	TEST_TRUE(t && t->proc);
	TEST_EQ(lp_filestr_read(fs, t->proc, 0, (uintptr_t)literal, buf, sizeof buf, &len), 0);
	TEST_STREQ(buf, literal);
	TEST_EQ(len, strlen(literal));
	/* cut at the buffer's size */
	TEST_EQ(lp_filestr_read(fs, t->proc, 0, (uintptr_t)literal, buf, 5, &len), 0);
	TEST_STREQ(buf, "/non");
	/* a heap copy is in no file */
	TEST_EQ(lp_filestr_read(fs, t->proc, 0, (uintptr_t)heap, buf, sizeof buf, &len), -ENOENT);
	lp_filestr_free(fs);
	lp_procs_free(ps);
	free(heap);
}

static void constants(void)
{
	char buf[128];
	lp_open_flags_str(0, buf, sizeof buf);
	TEST_STREQ(buf, "O_RDONLY");
	lp_open_flags_str(0x80000, buf, sizeof buf);
	TEST_STREQ(buf, "O_RDONLY|O_CLOEXEC");
	lp_open_flags_str(01 | 0100 | 01000, buf, sizeof buf);
	TEST_STREQ(buf, "O_WRONLY|O_CREAT|O_TRUNC");
	lp_open_flags_str(02 | 020000000 | 0200000, buf, sizeof buf);  /* O_TMPFILE holds O_DIRECTORY */
	TEST_STREQ(buf, "O_RDWR|O_TMPFILE");
	lp_open_flags_str(0x80000000, buf, sizeof buf);
	TEST_STREQ(buf, "O_RDONLY|0x80000000");
	TEST_EQ(lp_open_flags_str(0x80000, buf, 4), strlen("O_RDONLY|O_CLOEXEC"));   /* cut */
	TEST_STREQ(buf, "O_R");
	TEST_STREQ(lp_signal_name(9), "SIGKILL");
	TEST_STREQ(lp_signal_name(6), "SIGABRT");
	TEST_TRUE(lp_signal_name(0) == NULL && lp_signal_name(99) == NULL);
	struct lp_task_states ts;
	lp_task_states_load(&ts);
	lp_task_state_str(&ts, 0, buf, sizeof buf);
	TEST_STREQ(buf, "R");
	lp_task_state_str(&ts, ts.preempted, buf, sizeof buf);
	TEST_STREQ(buf, "R+");
	lp_task_state_str(&ts, 1, buf, sizeof buf);
	TEST_STREQ(buf, "S");
	lp_task_state_str(&ts, 3, buf, sizeof buf);
	TEST_STREQ(buf, "S|D");
	long long v;
	size_t n = 0;
	bool kill = false;
	for (const char *name; (name = lp_const_at(n, &v)); n++)
		kill |= !strcmp(name, "SIGKILL") && v == 9;
	TEST_TRUE(n > 150 && kill);
}

TEST_MAIN("capture", TEST_CASE(build_and_decode), TEST_CASE(call_records), TEST_CASE(call_record_unread),
	  TEST_CASE(stack_copy),
	  TEST_CASE(literal_from_file), TEST_CASE(constants))
