/*
 * test.h - a tiny unit-test harness: TEST_EQ and friends print both sides on
 * failure; each test function runs in its own forked process so a crash
 * fails one test, not the run.  A case that cannot run on this machine
 * calls TEST_SKIP with the reason: it is counted and printed as skipped,
 * never as passed.  The binary ends with "N passed, N failed, N skipped".
 */
#ifndef LP_TEST_H
#define LP_TEST_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int test_failed_;

#define TEST_FAIL_(fmt, ...) do { \
	fprintf(stderr, "  %s:%d: " fmt "\n", __FILE__, __LINE__, __VA_ARGS__); \
	test_failed_ = 1; } while (0)

/* Ends the current case as skipped: the machine lacks what it needs.  The
 * reason (printf-style) says what was checked and what was found.  A case
 * that already failed stays failed. */
#define TEST_SKIP_CODE_ 77
#define TEST_SKIP(...) do { \
	if (test_failed_) exit(1); \
	fprintf(stdout, "  skip: " __VA_ARGS__); fputc('\n', stdout); \
	fflush(stdout); exit(TEST_SKIP_CODE_); } while (0)

#define TEST_TRUE(c) do { if (!(c)) TEST_FAIL_("expected %s", #c); } while (0)
#define TEST_EQ(a, b) do { \
	long long a_ = (long long)(a), b_ = (long long)(b); \
	if (a_ != b_) TEST_FAIL_("%s == %s: %lld != %lld", #a, #b, a_, b_); } while (0)
#define TEST_EQ_U64(a, b) do { \
	uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b); \
	if (a_ != b_) TEST_FAIL_("%s == %s: %#" PRIx64 " != %#" PRIx64, #a, #b, a_, b_); } while (0)
#define TEST_STREQ(a, b) do { \
	const char *a_ = (a), *b_ = (b); \
	if (!a_ || !b_ || strcmp(a_, b_)) \
		TEST_FAIL_("%s == %s: \"%s\" != \"%s\"", #a, #b, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); \
	} while (0)

/* Runs a shell command built printf-style; returns system()'s status.
 * For setting up fixtures (compilers, readelf) in tests only. */
static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2), unused));
static int sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	return system(cmd);
}

/* The address of the kernel (not module) symbol name in /proc/kallsyms;
 * 0 when absent or hidden (kptr_restrict). */
static uint64_t kallsyms_addr(const char *name) __attribute__((unused));
static uint64_t kallsyms_addr(const char *name)
{
	char line[512], sym[256], type;
	uint64_t addr, found = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	while (f && !found && fgets(line, sizeof line, f))
		if (sscanf(line, "%" SCNx64 " %c %255s", &addr, &type, sym) == 3 &&
		    !strcmp(sym, name) && !strchr(line, '['))
			found = addr;
	if (f)
		fclose(f);
	return found;
}

/* A temporary directory of the test process, /tmp/lp_test_XXXXXX, made on
 * first use (each case runs in a process of its own): test_tmp(name) is
 * the path of name in it (a static buffer; 16 may be in use at once), and
 * test_tmp_cleanup() removes it all. */
static char test_tmpdir_[64];

static const char *test_tmp(const char *name) __attribute__((unused));
static const char *test_tmp(const char *name)
{
	static char buf[16][200];
	static int n;
	char *p = buf[n++ & 15];

	if (!test_tmpdir_[0]) {
		strcpy(test_tmpdir_, "/tmp/lp_test_XXXXXX");
		if (!mkdtemp(test_tmpdir_))
			abort();
	}
	snprintf(p, sizeof buf[0], "%s/%s", test_tmpdir_, name);
	return p;
}

static void test_tmp_cleanup(void) __attribute__((unused));
static void test_tmp_cleanup(void)
{
	if (test_tmpdir_[0] && sh("rm -rf %s", test_tmpdir_) != 0)
		fprintf(stderr, "  cleanup of %s failed\n", test_tmpdir_);
}

/* The resident KiB of this process's mapping that starts at p (smaps'
 * Rss), or -1 when there is none. */
static long test_mapping_rss_kib(const void *p) __attribute__((unused));
static long test_mapping_rss_kib(const void *p)
{
	char want[32], line[512];
	long rss = -1;
	int in = 0;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return -1;
	snprintf(want, sizeof want, "%lx-", (unsigned long)(uintptr_t)p);
	while (fgets(line, sizeof line, f)) {
		if (strncmp(line, want, strlen(want)) == 0)
			in = 1;
		else if (in && sscanf(line, "Rss: %ld kB", &rss) == 1)
			break;
	}
	fclose(f);
	return rss;
}

struct test_case { const char *name; void (*fn)(void); };
#define TEST_CASE(f) { #f, f }

/* Runs every case in a child process; prints one line per case ("ok",
 * "FAIL" or "skip") and the summary.  The child ends with exit(), not _exit(), so that exit-time
 * checks (LeakSanitizer in make check-asan) judge each case.  Returns the
 * exit status for main(). */
static inline int test_run(const char *suite, const struct test_case *cases, size_t n)
{
	int passed = 0, failed = 0, skipped = 0;
	for (size_t i = 0; i < n; i++) {
		fflush(NULL);
		pid_t pid = fork();
		if (pid == 0) {
			test_failed_ = 0;
			cases[i].fn();
			exit(test_failed_ ? 1 : 0);
		}
		int st = 0;
		waitpid(pid, &st, 0);
		int ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
		int skip = WIFEXITED(st) && WEXITSTATUS(st) == TEST_SKIP_CODE_;
		if (!ok && WIFSIGNALED(st))
			fprintf(stderr, "  killed by signal %d\n", WTERMSIG(st));
		printf("%s %s.%s\n", ok ? "ok" : skip ? "skip" : "FAIL", suite, cases[i].name);
		if (ok)
			passed++;
		else if (skip)
			skipped++;
		else
			failed++;
	}
	printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
	return failed ? 1 : 0;
}

#define TEST_MAIN(suite, ...) \
	int main(void) { \
		static const struct test_case cases_[] = { __VA_ARGS__ }; \
		return test_run(suite, cases_, sizeof cases_ / sizeof cases_[0]); \
	}

#endif
