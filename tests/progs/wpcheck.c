/* wpcheck: do hardware watchpoints fire on this machine?
 *
 * The tests that place mem: events ask this first.  On some VMs the
 * breakpoint PMU exists and perf_event_open of a watchpoint succeeds, yet
 * it never counts (the hypervisor does not pass the debug registers
 * through).  wpcheck places a write watchpoint on its own variable, writes
 * it 100 times and reads the count.
 *
 * Prints one line and exits 0 when they fire (100 counted), 1 when they do
 * not, saying what it found: the open's error, or the count.  With
 * LP_TEST_NO_WATCHPOINTS=1 in the environment it answers "no" without
 * asking the kernel, so that the tests' skips can be tried on a machine
 * whose watchpoints work (tests/variation.sh sets it). */
#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define WRITES 100

static volatile long target;

int main(void)
{
	const char *hide = getenv("LP_TEST_NO_WATCHPOINTS");
	if (hide && *hide && strcmp(hide, "0")) {
		printf("hidden by LP_TEST_NO_WATCHPOINTS=%s\n", hide);
		return 1;
	}
	struct perf_event_attr a = {
		.size = sizeof a,
		.type = PERF_TYPE_BREAKPOINT,
		.bp_type = HW_BREAKPOINT_W,
		.bp_addr = (uintptr_t)&target,
		.bp_len = sizeof target,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		printf("a write watchpoint cannot be placed: perf_event_open: %s\n", strerror(errno));
		return 1;
	}
	for (long i = 0; i < WRITES; i++)
		target = i;
	uint64_t n = 0;
	if (read(fd, &n, sizeof n) != (ssize_t)sizeof n) {
		printf("reading the watchpoint's count failed: %s\n", strerror(errno));
		return 1;
	}
	close(fd);
	if (n != WRITES) {
		printf("a write watchpoint was placed but counted %llu of %d writes (the breakpoint PMU does not fire here)\n",
		       (unsigned long long)n, WRITES);
		return 1;
	}
	printf("a write watchpoint counted %d of %d writes\n", WRITES, WRITES);
	return 0;
}
