/* toolwork MODE [ARGS]: system calls and kernel events in known numbers,
 * the workloads of the side-by-side tests of the scripts that port
 * bpftrace's tools (tests/e2e/bt_*.sh).  Each mode does the same thing on
 * every run; the pids differ.  Every mode ends by waiting LINGER ms
 * (the environment's TOOLWORK_LINGER, default 0), and so do the children
 * that nap and exec start, so that a tool that reads a process's memory
 * when it handles an event, a moment later, finds it alive.
 *
 *   exec N        N children, each exec'ing "toolwork hold 0 arg-I X...X"
 *                 (a 100-character argument), and one child exec'ing a
 *                 file that does not exist (ENOENT)
 *   hold MS ...   sleeps MS ms (the program exec runs; it lingers too)
 *   open DIR      open and openat of DIR's files: found, missing, created,
 *                 relative to a directory fd, a name of 100 characters,
 *                 and a name read from a page not yet faulted in
 *   stat DIR      stat, lstat, statfs, statx, newfstatat (and their
 *                 failures) of DIR's files, by their system call numbers
 *   sync DIR      fsync, fdatasync, sync_file_range, syncfs, msync, sync
 *   kill          kill() of a child: signal 0, SIGCONT, a pid that does
 *                 not exist (ESRCH), the process group (pid 0 and -PGID),
 *                 then SIGKILL
 *   fork N        N children that exit at once
 *   threads N     N threads, started alternately in thread_alpha and
 *                 thread_beta
 *   setuid        setuid, setfsuid and setresuid as root, then in a child
 *                 setresuid to nobody and a refused setuid(0)
 *   nap           nanosleep (the system call, which glibc no longer
 *                 makes) of 10, 20 and 30 ms and of 0, in a child
 *   gethost       getaddrinfo, gethostbyname, gethostbyname2 of "localhost"
 *   bio DIR       writes a file of 16 MiB to DIR, fsync, then O_DIRECT
 *                 reads of it: 8 of 4 KiB, 4 of 16 KiB, 2 of 64 KiB, 1
 *                 of 256 KiB
 *   tcp KB        a TCP connection on 127.0.0.1 between two processes:
 *                 the client sends KB KiB, the server answers KB/2 KiB
 *   runq MS       two children on CPU 0, named tw-runq, for MS ms: one
 *                 real-time (SCHED_FIFO, as root) spinning 0.1 ms and
 *                 sleeping 1 ms, one reading /dev/zero for 2 ms (in the
 *                 kernel, where the other's wake-ups preempt it) and
 *                 sleeping 1 ms: run queue waits after wake-ups and after
 *                 preemptions
 *   spin MS       one child per CPU, named tw-spin, pinned to it, spinning
 *                 for MS ms of CPU time
 *   writeback DIR KB  writes KB KiB to a file of DIR, then syncfs
 *
 * TOOLWORK_NAME=NAME names the process NAME (its command, comm) from the
 * start of its mode on, and the children it starts: a test whose tool
 * tells processes by their name runs a name of its own, so that the same
 * mode run by another test at the same time is not counted.
 *
 * With TOOLWORK_BUSY set, every CPU runs a spinning child (tw-busy) of the
 * lowest policy (SCHED_IDLE: it runs only when nothing else would) while the mode
 * runs, so that no CPU runs its idle task meanwhile: on some kernels (the
 * VMs the tests run on) perf records no tracepoint hit while a CPU's idle
 * task is current (a block I/O completion interrupting it, its
 * sched_switch), and BPF programs, bpftrace's, see them all.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/fsuid.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "spin.h"

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Waits TOOLWORK_LINGER ms (default 0): the end of a process whose memory
 * a tool reads when it handles the process's events. */
static void linger(void)
{
	const char *ms = getenv("TOOLWORK_LINGER");
	if (ms)
		sleep_ms(atol(ms));
}

static void reap(pid_t pid)
{
	int st;
	if (waitpid(pid, &st, 0) != pid)
		die("waitpid");
}

static char *path(const char *dir, const char *name)
{
	static char buf[8][4096];
	static int n;
	char *p = buf[n++ % 8];
	snprintf(p, sizeof buf[0], "%s/%s", dir, name);
	return p;
}

static void touch(const char *p)
{
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, "toolwork\n", 9) != 9 || close(fd))
		die(p);
}

/* A long name: 100 characters, longer than bpftrace's 64-byte strings. */
static const char *long_name(void)
{
	static char name[101];
	memset(name, 'x', 100);
	memcpy(name, "long-", 5);
	return name;
}

static int do_exec(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 3;
	char self[4096];
	ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
	if (len < 0)
		die("readlink");
	self[len] = 0;
	for (long i = 1; i <= n; i++) {
		pid_t pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0) {
			char arg[32];
			snprintf(arg, sizeof arg, "arg-%ld", i);
			execl(self, "toolwork", "hold", "0", arg, long_name(), (char *)NULL);
			_exit(127);
		}
		reap(pid);
	}
	pid_t pid = fork();
	if (pid == 0) {
		execl("/nonexistent/toolwork-missing", "toolwork-missing", "x", (char *)NULL);
		linger();
		_exit(0);
	}
	reap(pid);
	return 0;
}

/* The file DIR/mapped holds a path; it is mapped and never touched here,
 * so the page of the name passed to the call is not in the page tables
 * when the call enters (the kernel faults it in as it copies the name). */
static const char *unfaulted_name(const char *dir, const char *name)
{
	char *p = path(dir, "mapped");
	const char *target = path(dir, name);
	int fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);
	size_t n = strlen(target) + 1;
	if (fd < 0 || write(fd, target, n) != (ssize_t)n)
		die(p);
	void *m = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED)
		die("mmap");
	close(fd);
	return m;
}

static int do_open(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	const char *dir = argv[2];
	touch(path(dir, "exists"));
	touch(path(dir, long_name()));
	const char *mapped = unfaulted_name(dir, "exists");
	int fd = (int)syscall(SYS_open, path(dir, "exists"), O_RDONLY);
	close(fd);
	syscall(SYS_open, path(dir, "missing"), O_RDONLY);
	fd = openat(AT_FDCWD, path(dir, "created"), O_WRONLY | O_CREAT, 0644);
	close(fd);
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	fd = openat(dfd, "exists", O_RDONLY);
	close(fd);
	openat(dfd, "missing", O_RDONLY);
	fd = openat(dfd, long_name(), O_RDONLY);
	close(fd);
	fd = openat(AT_FDCWD, mapped, O_RDONLY);
	close(fd);
	close(dfd);
	return 0;
}

static int do_stat(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	const char *dir = argv[2];
	struct stat st;
	struct statfs sf;
	struct statx sx;
	touch(path(dir, "exists"));
	const char *mapped = unfaulted_name(dir, "exists");
	syscall(SYS_stat, path(dir, "exists"), &st);
	syscall(SYS_stat, path(dir, "missing"), &st);
	syscall(SYS_lstat, path(dir, "exists"), &st);
	syscall(SYS_statfs, dir, &sf);
	syscall(SYS_statfs, path(dir, "missing"), &sf);
	syscall(SYS_statx, AT_FDCWD, path(dir, "exists"), 0, STATX_BASIC_STATS, &sx);
	syscall(SYS_statx, AT_FDCWD, path(dir, "missing"), 0, STATX_BASIC_STATS, &sx);
	syscall(SYS_newfstatat, AT_FDCWD, path(dir, "exists"), &st, 0);
	syscall(SYS_stat, mapped, &st);
	return 0;
}

static int do_sync(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	char *p = path(argv[2], "synced");
	int fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);
	char buf[4096];
	memset(buf, 'x', sizeof buf);
	if (fd < 0 || write(fd, buf, sizeof buf) != (ssize_t)sizeof buf)
		die(p);
	fsync(fd);
	fdatasync(fd);
	sync_file_range(fd, 0, 4096, SYNC_FILE_RANGE_WRITE);
	syncfs(fd);
	char *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		die("mmap");
	m[0] = 'y';
	msync(m, 4096, MS_SYNC);
	sync();
	close(fd);
	return 0;
}

static int do_kill(void)
{
	pid_t pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		for (;;)
			pause();
	}
	kill(pid, 0);
	kill(pid, SIGCONT);
	kill(0x3ffffffe, 0);
	kill(0, 0);
	kill(-getpgrp(), 0);
	kill(pid, SIGKILL);
	reap(pid);
	return 0;
}

static int do_fork(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 10;
	for (long i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0)
			_exit(0);
		reap(pid);
	}
	return 0;
}

static __attribute__((noinline)) void *thread_alpha(void *arg)
{
	return arg;
}

static __attribute__((noinline)) void *thread_beta(void *arg)
{
	return arg;
}

static int do_threads(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 4;
	for (long i = 0; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, i % 2 ? thread_beta : thread_alpha, NULL))
			die("pthread_create");
		pthread_join(t, NULL);
	}
	return 0;
}

static int do_setuid(void)
{
	syscall(SYS_setuid, 0);
	syscall(SYS_setfsuid, 0);
	syscall(SYS_setresuid, -1, -1, -1);
	syscall(SYS_setresuid, 0, 0, 0);
	pid_t pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		syscall(SYS_setresuid, 65534, 65534, 65534);
		syscall(SYS_setuid, 0);
		_exit(0);
	}
	reap(pid);
	return 0;
}

/* Each its own, never changed: read late, a value is still the call's. */
static const struct timespec naps[] = {
	{ 0, 10000000 }, { 0, 20000000 }, { 0, 0 }, { 0, 30000000 },
};

static int do_nap(void)
{
	pid_t pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		for (size_t i = 0; i < sizeof naps / sizeof naps[0]; i++)
			syscall(SYS_nanosleep, &naps[i], NULL);
		linger();
		_exit(0);
	}
	reap(pid);
	return 0;
}

static int do_gethost(void)
{
	struct addrinfo hints = { .ai_family = AF_INET }, *res;
	if (getaddrinfo("localhost", NULL, &hints, &res) == 0)
		freeaddrinfo(res);
	gethostbyname("localhost");
	gethostbyname2("localhost", AF_INET);
	return 0;
}

static void xfer(int fd, long bytes, int out)
{
	char buf[16384];
	memset(buf, 'z', sizeof buf);
	for (long done = 0; done < bytes;) {
		size_t n = bytes - done < (long)sizeof buf ? (size_t)(bytes - done) : sizeof buf;
		ssize_t k = out ? write(fd, buf, n) : read(fd, buf, n);
		if (k <= 0)
			die(out ? "write" : "read");
		done += k;
	}
}

static int do_bio(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	static const long sizes[] = { 4, 4, 4, 4, 4, 4, 4, 4, 16, 16, 16, 16, 64, 64, 256 };
	char *p = path(argv[2], "bio");
	int fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die(p);
	xfer(fd, 16L * 1024 * 1024, 1);
	if (fsync(fd))
		die("fsync");
	close(fd);
	fd = open(p, O_RDONLY | O_DIRECT);
	if (fd < 0)
		die(p);
	void *buf;
	if (posix_memalign(&buf, 4096, 256 * 1024))
		die("posix_memalign");
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		off_t off = (off_t)i * 1024 * 1024;
		if (pread(fd, buf, (size_t)sizes[i] * 1024, off) != sizes[i] * 1024)
			die("pread");
	}
	close(fd);
	return 0;
}

static void drain(int fd)
{
	char buf[16384];
	while (read(fd, buf, sizeof buf) > 0)
		;
}

static int do_tcp(int argc, char **argv)
{
	long kb = argc > 2 ? atol(argv[2]) : 64;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof a;
	int ls = socket(AF_INET, SOCK_STREAM, 0);
	if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof a) || listen(ls, 1) ||
	    getsockname(ls, (struct sockaddr *)&a, &len))
		die("listen");
	pid_t pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		int c = socket(AF_INET, SOCK_STREAM, 0);
		if (c < 0 || connect(c, (struct sockaddr *)&a, sizeof a))
			die("connect");
		xfer(c, kb * 1024, 1);
		shutdown(c, SHUT_WR);
		drain(c);
		close(c);
		_exit(0);
	}
	int s = accept(ls, NULL, NULL);
	if (s < 0)
		die("accept");
	xfer(s, kb * 1024, 0);
	drain(s);
	xfer(s, kb * 512, 1);
	close(s);
	reap(pid);
	close(ls);
	return 0;
}

static void pin(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof set, &set))
		die("sched_setaffinity");
}

static int do_runq(int argc, char **argv)
{
	long ms = argc > 2 ? atol(argv[2]) : 200;
	pid_t kids[2];
	for (int k = 0; k < 2; k++) {
		kids[k] = fork();
		if (kids[k] < 0)
			die("fork");
		if (kids[k] == 0) {
			prctl(PR_SET_NAME, "tw-runq");
			pin(0);
			uint64_t end = clock_ns(CLOCK_MONOTONIC) + (uint64_t)ms * 1000000;
			if (k == 0) {
				/* real-time: its wake-ups preempt the other at once,
				 * in the kernel too (a fair task's would wait for its
				 * return to user space) */
				struct sched_param sp = { .sched_priority = 1 };
				sched_setscheduler(0, SCHED_FIFO, &sp);
				while (clock_ns(CLOCK_MONOTONIC) < end) {
					uint64_t until = thread_cpu_ns() + 100000;
					while (thread_cpu_ns() < until)
						spin_iters(1000);
					sleep_ms(1);
				}
				_exit(0);
			}
			int zero = open("/dev/zero", O_RDONLY);
			static char buf[1 << 20];
			if (zero < 0)
				die("/dev/zero");
			while (clock_ns(CLOCK_MONOTONIC) < end) {
				uint64_t until = thread_cpu_ns() + 2000000;
				while (thread_cpu_ns() < until)
					if (read(zero, buf, sizeof buf) < 0)
						die("read");
				sleep_ms(1);
			}
			_exit(0);
		}
	}
	reap(kids[0]);
	reap(kids[1]);
	return 0;
}

static int do_spin(int argc, char **argv)
{
	long ms = argc > 2 ? atol(argv[2]) : 500;
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	pid_t kids[256];
	if (n < 1 || n > 256)
		n = 1;
	for (long k = 0; k < n; k++) {
		kids[k] = fork();
		if (kids[k] < 0)
			die("fork");
		if (kids[k] == 0) {
			prctl(PR_SET_NAME, "tw-spin");
			pin((int)k);
			uint64_t until = thread_cpu_ns() + (uint64_t)ms * 1000000;
			while (thread_cpu_ns() < until)
				spin_iters(10000);
			_exit(0);
		}
	}
	for (long k = 0; k < n; k++)
		reap(kids[k]);
	return 0;
}

static int do_writeback(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	long kb = argc > 3 ? atol(argv[3]) : 256;
	char *p = path(argv[2], "written");
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die(p);
	xfer(fd, kb * 1024, 1);
	syncfs(fd);
	close(fd);
	return 0;
}

/* TOOLWORK_BUSY: a SCHED_IDLE spinner pinned to each CPU; returns how
 * many were started into kids (at most max). */
static int busy_start(pid_t *kids, int max)
{
	if (!getenv("TOOLWORK_BUSY"))
		return 0;
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	int k;
	for (k = 0; k < n && k < max; k++) {
		kids[k] = fork();
		if (kids[k] < 0)
			die("fork");
		if (kids[k] == 0) {
			struct sched_param sp = { 0 };
			prctl(PR_SET_NAME, "tw-busy");
			pin(k);
			if (sched_setscheduler(0, SCHED_IDLE, &sp))
				die("sched_setscheduler");
			for (;;)
				spin_iters(100000);
		}
	}
	return k;
}

static void busy_stop(pid_t *kids, int n)
{
	for (int k = 0; k < n; k++) {
		kill(kids[k], SIGKILL);
		reap(kids[k]);
	}
}

static int run(int argc, char **argv)
{
	const char *m = argv[1];
	if (!strcmp(m, "exec"))
		return do_exec(argc, argv);
	if (!strcmp(m, "hold"))
		return sleep_ms(argc > 2 ? atol(argv[2]) : 0), 0;
	if (!strcmp(m, "open"))
		return do_open(argc, argv);
	if (!strcmp(m, "stat"))
		return do_stat(argc, argv);
	if (!strcmp(m, "sync"))
		return do_sync(argc, argv);
	if (!strcmp(m, "kill"))
		return do_kill();
	if (!strcmp(m, "fork"))
		return do_fork(argc, argv);
	if (!strcmp(m, "threads"))
		return do_threads(argc, argv);
	if (!strcmp(m, "setuid"))
		return do_setuid();
	if (!strcmp(m, "nap"))
		return do_nap();
	if (!strcmp(m, "gethost"))
		return do_gethost();
	if (!strcmp(m, "bio"))
		return do_bio(argc, argv);
	if (!strcmp(m, "tcp"))
		return do_tcp(argc, argv);
	if (!strcmp(m, "runq"))
		return do_runq(argc, argv);
	if (!strcmp(m, "spin"))
		return do_spin(argc, argv);
	if (!strcmp(m, "writeback"))
		return do_writeback(argc, argv);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: toolwork MODE [ARGS] (see tests/progs/toolwork.c)\n");
		return 2;
	}
	const char *name = getenv("TOOLWORK_NAME");
	if (name)
		prctl(PR_SET_NAME, name);
	pid_t busy[256];
	int nbusy = busy_start(busy, 256);
	int rc = run(argc, argv);
	busy_stop(busy, nbusy);
	if (rc == 2)
		fprintf(stderr, "toolwork: bad mode or arguments: %s\n", argv[1]);
	else
		linger();
	return rc;
}
