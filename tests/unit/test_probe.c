/* test_probe.c - probes and PMUs (core/probe) and the event names built on
 * them (evpmu.c, evprobe.c, groups): PMU formats packed as perf packs
 * them (against a PMU tree made here, since this machine may have no
 * hardware PMU), raw and cache configs as perf 6.1 builds them, per-event
 * terms, groups, watchpoints, the linker cache, USDT argument specs and
 * their values, and a real uprobe on a function of this test counted by
 * the kernel. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <asm/perf_regs.h>
#include <linux/hw_breakpoint.h>

#include "test.h"
#include "luaprof/err.h"
#include "luaprof/event.h"
#include "luaprof/probe.h"

static int parse(const char *str, struct lp_event_list *l)
{
	int rc = lp_event_list_add(l, str);
	if (rc)
		fprintf(stderr, "  %s: %s\n", str, lp_last_error());
	return rc;
}

static const struct lp_sampling freq4k = { .freq = 4000, .inherit = true, .enable_on_exec = true };

/* ---- PMU formats ---------------------------------------------------------------- */

static void formats(void)
{
	struct lp_pmu_format f;
	uint64_t c[4] = { 0 };
	TEST_EQ(lp_pmu_format_parse("config:0-7,21\n", &f), 0);
	TEST_EQ(f.word, 0);
	TEST_EQ_U64(f.mask, 0x2000ffull);
	TEST_EQ(lp_pmu_format_pack(&f, 0x1ff, c), 0);   /* bit 8 of the value -> bit 21 */
	TEST_EQ_U64(c[0], 0x2000ffull);
	TEST_EQ(lp_pmu_format_pack(&f, 0x200, c), -ERANGE);
	TEST_EQ(lp_pmu_format_parse("config1:0-63", &f), 0);
	TEST_EQ(f.word, 1);
	TEST_EQ_U64(f.mask, ~0ull);
	TEST_EQ(lp_pmu_format_parse("config2:5", &f), 0);
	TEST_EQ_U64(f.mask, 1ull << 5);
	static const char *const bad[] = { "", "config", "config:", "config:64", "config:3-1",
					   "config4:1", "config:1,", "cfg:1", "config:1 x" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		if (lp_pmu_format_parse(bad[i], &f) != -EINVAL)
			TEST_FAIL_("'%s' parsed", bad[i]);
}

/* A PMU tree like sysfs's: cpu (Intel's core format), kprobe, and the
 * machine's uprobe PMU left out (tests that need it use the real one). */
static void fake_pmus(const char *dir)
{
	TEST_EQ(sh("mkdir -p %s/cpu/format %s/cpu/events %s/kprobe/format && "
		   "echo 4 > %s/cpu/type && echo config:0-7 > %s/cpu/format/event && "
		   "echo config:8-15 > %s/cpu/format/umask && echo config:24-31 > %s/cpu/format/cmask && "
		   "echo config:23 > %s/cpu/format/inv && echo config1:0-15 > %s/cpu/format/ldlat && "
		   "echo event=0xc0,umask=0x00 > %s/cpu/events/instructions && "
		   "echo 6 > %s/kprobe/type && echo config:0 > %s/kprobe/format/retprobe",
		   dir, dir, dir, dir, dir, dir, dir, dir, dir, dir, dir, dir), 0);
}

static void pmu_events(void)
{
	char dir[] = "/tmp/lp-pmu-XXXXXX";
	struct lp_event_list l = { 0 };
	struct perf_event_attr a;
	TEST_TRUE(mkdtemp(dir) != NULL);
	fake_pmus(dir);
	lp_pmu_set_root(dir);
	/* perf packs cpu/event=0x3c,umask=0x1,inv,cmask=2/u as 0x28013c, user only */
	TEST_EQ(parse("cpu/event=0x3c,umask=0x1,inv,cmask=2/u", &l), 0);
	lp_event_attr(&l.v[0], &freq4k, &a);
	TEST_EQ(a.type, 4);
	TEST_EQ_U64(a.config, 0x280013cull);
	TEST_TRUE(a.exclude_kernel && !a.exclude_user);
	TEST_STREQ(l.v[0].name, "cpu/event=0x3c,umask=0x1,inv,cmask=2/u");
	TEST_EQ(parse("cpu/instructions/,cpu/event=1,ldlat=3,period=1000/", &l), 0);
	TEST_EQ_U64(l.v[1].config, 0xc0);               /* an alias from events/ */
	lp_event_attr(&l.v[2], &freq4k, &a);
	TEST_EQ_U64(a.config, 1);
	TEST_EQ_U64(a.config1, 3);
	TEST_TRUE(!a.freq && a.sample_period == 1000);
	TEST_TRUE(lp_event_list_add(&l, "cpu/event=0x100/") < 0);
	TEST_TRUE(strstr(lp_last_error(), "a value too large for term 'event'") != NULL);
	TEST_TRUE(lp_event_list_add(&l, "cpu/frob=1/") < 0);
	TEST_TRUE(strstr(lp_last_error(), "unknown term 'frob'") && strstr(lp_last_error(), "umask"));
	/* a kprobe PMU: the function's name is the string config1 points at */
	TEST_EQ(parse("kprobe:do_sys_openat2+4,kretprobe:vfs_read", &l), 0);
	lp_event_attr(&l.v[3], &freq4k, &a);
	TEST_EQ(a.type, 6);
	TEST_EQ_U64(a.config, 0);
	TEST_STREQ((const char *)(uintptr_t)a.config1, "do_sys_openat2");
	TEST_EQ_U64(a.config2, 4);
	TEST_EQ(a.sample_period, 1);
	lp_event_attr(&l.v[4], &freq4k, &a);
	TEST_EQ_U64(a.config, 1);                       /* retprobe */
	TEST_EQ(l.n, 5);
	lp_pmu_set_root(NULL);
	sh("rm -rf %s", dir);
	lp_event_list_free(&l);
}

/* Without a kprobe PMU, one line says so. */
static void no_kprobe_pmu(void)
{
	struct lp_event_list l = { 0 };
	char dir[] = "/tmp/lp-pmu-XXXXXX";
	TEST_TRUE(mkdtemp(dir) != NULL);
	lp_pmu_set_root(dir);
	TEST_EQ(lp_event_list_add(&l, "kprobe:vfs_read"), -ENOENT);
	TEST_TRUE(strstr(lp_last_error(), "this kernel has no kprobe PMU") != NULL);
	lp_pmu_set_root(NULL);
	rmdir(dir);
	lp_event_list_free(&l);
}

/* ---- raw, cache, terms, groups, watchpoints: perf 6.1's attrs ------------------- */

static void raw_and_cache(void)
{
	static const struct { const char *name; uint32_t type; uint64_t config; } want[] = {
		{ "r1a8", PERF_TYPE_RAW, 0x1a8 }, { "r003c", PERF_TYPE_RAW, 0x3c },
		{ "L1-dcache-load-misses", PERF_TYPE_HW_CACHE, 0x10000 },
		{ "L1-dcache-loads", PERF_TYPE_HW_CACHE, 0 }, { "LLC-loads", PERF_TYPE_HW_CACHE, 2 },
		{ "LLC-load-misses", PERF_TYPE_HW_CACHE, 0x10002 },
		{ "dTLB-load-misses", PERF_TYPE_HW_CACHE, 0x10003 },
		{ "iTLB-load-misses", PERF_TYPE_HW_CACHE, 0x10004 },
		{ "branch-loads", PERF_TYPE_HW_CACHE, 5 }, { "branch-load-misses", PERF_TYPE_HW_CACHE, 0x10005 },
		{ "node-stores", PERF_TYPE_HW_CACHE, 0x106 },
		{ "L1-dcache-prefetch-misses", PERF_TYPE_HW_CACHE, 0x10200 },
		{ "l1d-misses", PERF_TYPE_HW_CACHE, 0x10000 },
	};
	for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
		struct lp_event_list l = { 0 };
		if (parse(want[i].name, &l)) {
			TEST_FAIL_("%s did not parse", want[i].name);
			continue;
		}
		TEST_EQ(l.v[0].type, want[i].type);
		TEST_EQ_U64(l.v[0].config, want[i].config);
		TEST_STREQ(l.v[0].name, want[i].name);
		lp_event_list_free(&l);
	}
	struct lp_event_list l = { 0 };
	TEST_EQ(parse("r1a8:u", &l), 0);
	TEST_TRUE(l.v[0].exclude_kernel && !l.v[0].exclude_user);
	lp_event_list_free(&l);
}

static void terms(void)
{
	struct lp_event_list l = { 0 };
	struct perf_event_attr a;
	TEST_EQ(parse("cpu-clock/period=1000/u,cpu-clock/freq=100/,cpu-clock/call-graph=fp/,"
		      "cpu-clock/call-graph=dwarf,stack-size=4096/,task-clock/name=tc/", &l), 0);
	lp_event_attr(&l.v[0], &freq4k, &a);    /* perf: period 1000, no PERIOD */
	TEST_TRUE(!a.freq && a.sample_period == 1000 && !(a.sample_type & PERF_SAMPLE_PERIOD));
	TEST_TRUE(a.exclude_kernel);
	TEST_STREQ(l.v[0].name, "cpu-clock/period=1000/u");
	lp_event_attr(&l.v[1], &freq4k, &a);
	TEST_TRUE(a.freq && a.sample_freq == 100);
	lp_event_attr(&l.v[2], &freq4k, &a);
	TEST_TRUE(a.sample_type & PERF_SAMPLE_CALLCHAIN);
	TEST_TRUE(!(a.sample_type & PERF_SAMPLE_STACK_USER));
	lp_event_attr(&l.v[3], &freq4k, &a);    /* perf: REGS_USER 0xff0fff, 4096 bytes */
	TEST_TRUE((a.sample_type & PERF_SAMPLE_CALLCHAIN) && (a.sample_type & PERF_SAMPLE_REGS_USER));
	TEST_EQ_U64(a.sample_regs_user, 0xff0fff);
	TEST_EQ(a.sample_stack_user, 4096);
	TEST_TRUE(a.exclude_callchain_user);
	TEST_STREQ(l.v[4].name, "tc");
	lp_event_list_free(&l);
}

static void groups(void)
{
	struct lp_event_list l = { 0 };
	struct perf_event_attr a;
	TEST_EQ(parse("cs,{cpu-clock,page-faults},{task-clock,faults}:uS", &l), 0);
	TEST_EQ(l.n, 5);
	TEST_EQ(l.v[0].group, 0);
	TEST_TRUE(l.v[1].group == 1 && l.v[1].group_leader && l.v[2].group == 1 && !l.v[2].group_leader);
	TEST_TRUE(l.v[3].group == 2 && l.v[3].group_leader && l.v[4].group == 2);
	lp_event_attr(&l.v[1], &freq4k, &a);    /* the leader: disabled, reads the group */
	TEST_TRUE(a.disabled && (a.sample_type & PERF_SAMPLE_READ));
	TEST_EQ_U64(a.read_format & (PERF_FORMAT_GROUP | PERF_FORMAT_ID), PERF_FORMAT_GROUP | PERF_FORMAT_ID);
	lp_event_attr(&l.v[2], &freq4k, &a);    /* a member: enabled with its leader, samples too */
	TEST_TRUE(!a.disabled && !a.enable_on_exec && a.freq && a.sample_freq == 4000);
	lp_event_attr(&l.v[4], &freq4k, &a);    /* :S: only the leader samples (perf's attr) */
	TEST_TRUE(!a.freq && a.sample_period == 0 && a.exclude_kernel);
	TEST_STREQ(l.v[4].name, "page-faults:u");
	struct lp_sampling count = freq4k;      /* counting: no group read, no samples */
	count.count_only = true;
	lp_event_attr(&l.v[2], &count, &a);
	TEST_EQ_U64(a.sample_type, PERF_SAMPLE_IDENTIFIER);
	TEST_EQ_U64(a.read_format, PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING);
	TEST_TRUE(!a.freq && !a.sample_period && !a.disabled && a.inherit);
	lp_event_list_free(&l);
}

static void watchpoints(void)
{
	struct lp_event_list l = { 0 };
	struct perf_event_attr a;
	TEST_EQ(parse("mem:0x1000:w,mem:0x1000/8:rw,mem:0x1000:x,mem:4096", &l), 0);
	lp_event_attr(&l.v[0], &freq4k, &a);    /* perf 6.1: type 5, bp_type 2, len 4, period 1 */
	TEST_TRUE(a.type == PERF_TYPE_BREAKPOINT && a.bp_type == HW_BREAKPOINT_W);
	TEST_TRUE(a.bp_addr == 0x1000 && a.bp_len == 4 && a.sample_period == 1 && !a.freq);
	TEST_TRUE(a.sample_type & PERF_SAMPLE_ADDR);
	lp_event_attr(&l.v[1], &freq4k, &a);
	TEST_TRUE(a.bp_type == HW_BREAKPOINT_RW && a.bp_len == 8);
	lp_event_attr(&l.v[2], &freq4k, &a);
	TEST_TRUE(a.bp_type == HW_BREAKPOINT_X && a.bp_len == sizeof(long));
	lp_event_attr(&l.v[3], &freq4k, &a);
	TEST_TRUE(a.bp_type == HW_BREAKPOINT_RW && a.bp_addr == 4096 && a.bp_len == 4);
	lp_event_list_free(&l);
}

/* ---- a watchpoint on a variable of this program, and a uprobe on one of its
 * functions, counted by the kernel ------------------------------------------------ */

volatile long probe_watched;
__attribute__((noinline)) long probe_target(long x);
__attribute__((noinline)) long probe_target(long x)
{
	__asm__ volatile("");
	return x + 1;
}

static long read_count(int fd)
{
	uint64_t v[3] = { 0 };
	return read(fd, v, sizeof v) == sizeof v ? (long)v[0] : -1;
}

/* Whether hardware watchpoints fire here, asked of tests/progs/wpcheck (run
 * by tests/run.sh, which exports ROOT and BUILD); why not into why. */
static bool watchpoints_fire(char *why, size_t size)
{
	const char *root = getenv("ROOT"), *build = getenv("BUILD");
	char cmd[PATH_MAX + 64];
	snprintf(cmd, sizeof cmd, "%s/%s/progs/wpcheck", root ? root : ".", build ? build : "build");
	if (access(cmd, X_OK)) {
		snprintf(why, size, "%.200s is not built (make progs)", cmd);
		return false;
	}
	FILE *p = popen(cmd, "r");
	*why = '\0';
	if (p && !fgets(why, (int)size, p))
		*why = '\0';
	why[strcspn(why, "\n")] = '\0';
	return p && pclose(p) == 0;
}

/* Events on this program itself, opened counting: its uprobe and uretprobe
 * on probe_target, or its watchpoint on probe_watched; its exe path into
 * exe. */
static void open_self(bool uprobes, struct lp_event_list *l, char *exe, int *fds)
{
	char ev[3 * PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, PATH_MAX - 1);
	struct lp_sampling count = { .count_only = true };
	unsigned fb = 0;
	if (n <= 0)
		TEST_SKIP("/proc/self/exe is unreadable");
	exe[n] = '\0';
	if (uprobes)
		snprintf(ev, sizeof ev, "uprobe:%s:probe_target,uretprobe:%s:probe_target", exe, exe);
	else
		snprintf(ev, sizeof ev, "mem:probe_watched:w");
	TEST_EQ(parse(ev, l), 0);
	TEST_EQ(lp_event_list_resolve(l, exe, getpid()), 0);
	for (size_t i = 0; i < l->n; i++) {
		fds[i] = lp_event_open(&l->v[i], &count, 0, -1, &fb);
		TEST_TRUE(fds[i] >= 0);
		ioctl(fds[i], PERF_EVENT_IOC_ENABLE, 0);
	}
}

static void self_uprobes(void)
{
	char exe[PATH_MAX];
	struct lp_event_list l = { 0 };
	int fds[2];
	if (access("/sys/bus/event_source/devices/uprobe/type", R_OK) || geteuid())
		TEST_SKIP("needs root and the uprobe PMU (/sys/bus/event_source/devices/uprobe)");
	open_self(true, &l, exe, fds);
	for (long i = 0; i < 25; i++)
		probe_watched = probe_target(i);
	for (int i = 0; i < 2; i++) {
		TEST_EQ(read_count(fds[i]), 25);
		close(fds[i]);
	}
	lp_event_list_free(&l);
}

static void self_watchpoint(void)
{
	char exe[PATH_MAX], why[256];
	struct lp_event_list l = { 0 };
	int fd;
	if (!watchpoints_fire(why, sizeof why))
		TEST_SKIP("hardware watchpoints do not fire here (tests/progs/wpcheck: %s)", why);
	open_self(false, &l, exe, &fd);
	TEST_EQ_U64(l.v[0].config1, (uint64_t)(uintptr_t)&probe_watched);  /* moved by the bias */
	TEST_EQ(l.v[0].config2, sizeof probe_watched);
	for (long i = 0; i < 25; i++)
		probe_watched = probe_target(i);
	TEST_EQ(read_count(fd), 25);
	close(fd);
	lp_event_list_free(&l);
}

static void probe_errors(void)
{
	static const struct { const char *str, *msg; } bad[] = {
		{ "uprobe:/no/such/file:f", "cannot find '/no/such/file'" },
		{ "uprobe:/proc/self/exe:no_such_function", "no function 'no_such_function'" },
		{ "uprobe:/proc/self/exe:probe_watched", "is not a function" },
		{ "uprobe:/proc/self/exe", "a uprobe is uprobe:PATH:FUNCTION" },
		{ "uretprobe:/proc/self/exe:probe_target+1", "a uprobe is" },
		{ "uprobe:/proc/self/exe:probe_target+100000", "is past the end of 'probe_target'" },
		{ "uprobe:no-such-program-or-lib:f", "no such file, program on $PATH, or library" },
		{ "usdt:/proc/self/exe:p:n", "no USDT probe 'p:n' in /proc/self/exe" },
		{ "usdt:/proc/self/exe:n", "a USDT probe is usdt:PATH:PROVIDER:NAME" },
		{ "uprobe:/etc/passwd:f", "is not an ELF file" },
	};
	struct lp_event_list l = { 0 };
	if (access("/sys/bus/event_source/devices/uprobe/type", R_OK))
		TEST_SKIP("no uprobe PMU (/sys/bus/event_source/devices/uprobe)");
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		lp_err_clear();
		TEST_TRUE(lp_event_list_add(&l, bad[i].str) < 0);
		if (!strstr(lp_last_error(), bad[i].msg))
			TEST_FAIL_("'%s': error \"%s\" lacks \"%s\"", bad[i].str, lp_last_error(), bad[i].msg);
		TEST_EQ(l.n, 0);
	}
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	exe[n > 0 ? n : 0] = '\0';
	TEST_EQ(parse("mem:main:w,mem:nope", &l), 0);   /* found only at resolving */
	TEST_EQ(lp_event_list_resolve(&l, exe, 0), -EINVAL);
	TEST_TRUE(strstr(lp_last_error(), "'main' in") && strstr(lp_last_error(), "is a function, not a variable"));
	lp_event_list_free(&l);
}

/* ---- the linker's cache --------------------------------------------------------- */

/* A cache image: header, entries (flags, key, value), strings. */
static size_t make_cache(unsigned char *buf, const char *const (*ents)[2], int32_t *flags, int n)
{
	memset(buf, 0, 4096);
	memcpy(buf, "glibc-ld.so.cache1.1", 20);
	uint32_t nl = (uint32_t)n, str = 48 + 24 * (uint32_t)n;
	memcpy(buf + 20, &nl, 4);
	for (int i = 0; i < n; i++) {
		unsigned char *e = buf + 48 + 24 * i;
		uint32_t k = str, v = str + (uint32_t)strlen(ents[i][0]) + 1;
		memcpy(e, &flags[i], 4);
		memcpy(e + 4, &k, 4);
		memcpy(e + 8, &v, 4);
		strcpy((char *)buf + k, ents[i][0]);
		strcpy((char *)buf + v, ents[i][1]);
		str = v + (uint32_t)strlen(ents[i][1]) + 1;
	}
	return str;
}

static void ldcache(void)
{
	static const char *const ents[][2] = {
		{ "libcap.so.2", "/lib/libcap.so.2" }, { "libc.so.6", "/lib32/libc.so.6" },
		{ "libc.so.6", "/lib/x86_64-linux-gnu/libc.so.6" }, { "libz.so", "/lib/libz.so" },
	};
	int32_t flags[] = { 0x303, 0x3, 0x303, 0x303 };
	unsigned char buf[4096];
	char out[256];
	size_t n = make_cache(buf, ents, flags, 4);
	TEST_EQ(lp_ldcache_lookup(buf, n, "libc", out, sizeof out), 0);
	TEST_STREQ(out, "/lib/x86_64-linux-gnu/libc.so.6");     /* not 32-bit, not libcap */
	TEST_EQ(lp_ldcache_lookup(buf, n, "libc.so.6", out, sizeof out), 0);
	TEST_EQ(lp_ldcache_lookup(buf, n, "libc.so", out, sizeof out), 0);
	TEST_EQ(lp_ldcache_lookup(buf, n, "libz", out, sizeof out), 0);
	TEST_STREQ(out, "/lib/libz.so");
	TEST_EQ(lp_ldcache_lookup(buf, n, "libcap.so.3", out, sizeof out), -ENOENT);
	TEST_EQ(lp_ldcache_lookup(buf, n, "lib", out, sizeof out), -ENOENT);
	TEST_EQ(lp_ldcache_lookup(buf, 40, "libc", out, sizeof out), -EINVAL);   /* cut short */
	TEST_EQ(lp_ldcache_lookup(buf, n - 20, "libz", out, sizeof out), -ENOENT); /* string cut */
	buf[0] = 'x';
	TEST_EQ(lp_ldcache_lookup(buf, n, "libc", out, sizeof out), -EINVAL);
	/* this machine's libc, as a uprobe's PATH */
	if (!access("/etc/ld.so.cache", R_OK)) {
		TEST_EQ(lp_probe_find_object("libc", out, sizeof out), 0);
		TEST_TRUE(strstr(out, "libc.so.6") != NULL);
	}
	TEST_EQ(lp_probe_find_object("sh", out, sizeof out), 0);        /* on $PATH */
	TEST_TRUE(out[0] == '/' && strstr(out, "/sh"));
}

/* ---- USDT ---------------------------------------------------------------------- */

static void usdt_specs(void)
{
	struct lp_usdt_arg a[LP_USDT_MAX_ARGS];
	TEST_EQ(lp_usdt_parse_args("-4@%edi 8@$5 -8@-16(%rbp) 4@(%rax) 1@%al 2@%r9w 8@%rsp", a,
				   LP_USDT_MAX_ARGS), 7);
	TEST_TRUE(a[0].kind == LP_USDT_REG && a[0].size == 4 && a[0].is_signed &&
		  a[0].reg == PERF_REG_X86_DI && a[0].reg_bytes == 4);
	TEST_TRUE(a[1].kind == LP_USDT_CONST && a[1].value == 5 && !a[1].is_signed);
	TEST_TRUE(a[2].kind == LP_USDT_MEM && a[2].reg == PERF_REG_X86_BP && a[2].value == -16);
	TEST_TRUE(a[3].kind == LP_USDT_MEM && a[3].reg == PERF_REG_X86_AX && a[3].value == 0);
	TEST_TRUE(a[4].reg == PERF_REG_X86_AX && a[4].reg_bytes == 1);
	TEST_TRUE(a[5].reg == PERF_REG_X86_R9 && a[5].reg_bytes == 2);
	TEST_EQ(lp_usdt_parse_args("8@counter(%rip) 8@8(%rax,%rbx,8) -4@$sym %edi", a, 12), 4);
	TEST_EQ(a[0].kind, LP_USDT_UNSUPPORTED);
	TEST_EQ(a[1].kind, LP_USDT_UNSUPPORTED);
	TEST_EQ(a[2].kind, LP_USDT_UNSUPPORTED);
	TEST_TRUE(a[3].kind == LP_USDT_REG && a[3].size == 8);  /* old sdt.h: no size */
	TEST_EQ(lp_usdt_parse_args("", a, 12), 0);
	static const char *const bad[] = { "4@%xyz", "3@%eax", "@%eax", "4@", "4@(%rax", "4@$",
					   "4@-8(%rbp)x", "1 2 3 4 5 6 7 8 9 10 11 12 13",
					   "-4@-%al", "8@$-x", "4@(%esp", "8@+(%rax)", "8@sym?(%rip)" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		if (lp_usdt_parse_args(bad[i], a, 12) != -EINVAL)
			TEST_FAIL_("'%s' parsed", bad[i]);
}

/* Values: registers truncated and extended by size, memory from the
 * sample's stack copy, or this process's memory. */
static void usdt_values(void)
{
	struct lp_usdt_arg a[4];
	uint64_t regs[3] = { 0xffffffff00000005ull, 0xfffffffffffffffeull, 0 };   /* ax, di, sp */
	long stack[4] = { 11, -22, 33, 44 };
	static long global = -77;
	struct lp_sample s = { .user_abi = 2, .user_regs = regs, .nr_user_regs = 3,
			       .user_regs_mask = 1u << PERF_REG_X86_AX | 1u << PERF_REG_X86_SP |
						 1u << PERF_REG_X86_DI,
			       .user_stack = stack, .user_stack_size = sizeof stack,
			       .user_stack_dyn_size = sizeof stack };
	int64_t v;
	regs[2] = (uint64_t)(uintptr_t)stack;
	TEST_EQ(lp_usdt_parse_args("-4@%eax 8@%rdi -4@%edi -8@8(%rsp) 2@%si", a, 4), -EINVAL);
	TEST_EQ(lp_usdt_parse_args("-4@%eax 8@%rdi -4@%edi -8@8(%rsp)", a, 4), 4);
	TEST_EQ(lp_usdt_arg_value(&a[0], &s, 0, &v), 0);
	TEST_EQ(v, 5);
	TEST_EQ(lp_usdt_arg_value(&a[1], &s, 0, &v), 0);
	TEST_EQ(v, -2);
	TEST_EQ(lp_usdt_arg_value(&a[2], &s, 0, &v), 0);
	TEST_EQ(v, -2);
	TEST_EQ(lp_usdt_arg_value(&a[3], &s, 0, &v), 0);        /* from the stack copy */
	TEST_EQ(v, -22);
	TEST_EQ(lp_usdt_parse_args("-8@0(%rax) 8@%rcx", a, 4), 2);
	regs[0] = (uint64_t)(uintptr_t)&global;                 /* outside the copy */
	TEST_EQ(lp_usdt_arg_value(&a[0], &s, 0, &v), -EFAULT);  /* no process to read */
	TEST_EQ(lp_usdt_arg_value(&a[0], &s, getpid(), &v), 0);
	TEST_EQ(v, -77);
	TEST_EQ(lp_usdt_arg_value(&a[1], &s, 0, &v), -ENOENT);  /* rcx was not sampled */
}

static int count_tick(const struct lp_usdt_probe *p, void *arg)
{
	if (!strcmp(p->provider, "luaprof_test") && !strcmp(p->name, "tick"))
		*(const struct lp_usdt_probe **)arg = memcpy(malloc(sizeof *p), p, sizeof *p);
	return 0;
}

/* The notes of the probed workload, when it was built with <sys/sdt.h>. */
static void usdt_notes(void)
{
	char path[PATH_MAX];
	const char *build = getenv("BUILD");
	const struct lp_usdt_probe *p = NULL;
	snprintf(path, sizeof path, "%s/progs/probed", build ? build : "build");
	if (access(path, R_OK) || sh("readelf -n %s 2>/dev/null | grep -q stapsdt", path))
		return;
	TEST_EQ(lp_usdt_each(path, count_tick, &p), 0);
	TEST_TRUE(p != NULL);
	if (!p)
		return;
	TEST_EQ(p->nr_args, 4);
	TEST_TRUE(!p->sema && p->pc_offset && !p->args_bad);
	TEST_TRUE(p->args[2].kind == LP_USDT_CONST && p->args[2].value == 5);
	free((void *)(uintptr_t)p);
	TEST_EQ(lp_usdt_each("/etc/passwd", count_tick, &p), -ENOEXEC);
}

static void scaling(void)
{
	struct lp_count c = { .value = 1000, .enabled = 200, .running = 100, .supported = true };
	TEST_EQ(lp_count_scaled(&c), 2000);
	c.running = 200;
	TEST_EQ(lp_count_scaled(&c), 1000);
	c.running = 0;
	TEST_EQ(lp_count_scaled(&c), 0);
	c = (struct lp_count){ .value = 1ull << 62, .enabled = 3ull << 40, .running = 1ull << 40 };
	TEST_EQ_U64(lp_count_scaled(&c), 3ull << 62);   /* no overflow in between */
}

TEST_MAIN("probe", TEST_CASE(formats), TEST_CASE(pmu_events), TEST_CASE(no_kprobe_pmu),
	  TEST_CASE(raw_and_cache), TEST_CASE(terms), TEST_CASE(groups), TEST_CASE(watchpoints),
	  TEST_CASE(self_uprobes), TEST_CASE(self_watchpoint), TEST_CASE(probe_errors), TEST_CASE(ldcache),
	  TEST_CASE(usdt_specs), TEST_CASE(usdt_values), TEST_CASE(usdt_notes), TEST_CASE(scaling))
