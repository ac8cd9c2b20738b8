/*
 * workload.c - starting the profiled command corked (see workload.h).
 *
 * The child takes signals as the command will from the fork on: the
 * parent's handlers go back to their defaults, its mask is emptied.
 *
 * Two pipes: "go" (parent -> child, one byte means exec, EOF means give up)
 * and "err" (child -> parent, close-on-exec: EOF means exec succeeded, four
 * bytes are the errno of a failed exec).  A child prepared "stopped" asks
 * to be traced before its exec, so the kernel stops it with a SIGTRAP once
 * the new program is loaded; the parent detaches to let it run.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "luaprof/workload.h"

/* The signals the parent catches act on the child as they will once it
 * has exec'd (their default) from the fork on: one that comes before the
 * exec (Ctrl-C at the terminal, one passed on the moment the command is
 * started) is not swallowed by a copy of the parent's handler. */
static void default_handlers(void)
{
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction sa;
		if (sig == SIGKILL || sig == SIGSTOP || sigaction(sig, NULL, &sa))
			continue;
		if (!(sa.sa_flags & SA_SIGINFO) && (sa.sa_handler == SIG_DFL || sa.sa_handler == SIG_IGN))
			continue;
		signal(sig, SIG_DFL);
	}
}

static void child(int go, int err, char *const argv[], bool stop)
{
	char c;
	sigset_t none;
	default_handlers();
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);       /* luaprof ignores it; the command must not */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (read(go, &c, 1) != 1)
		_exit(127);     /* cancelled */
	if (stop && ptrace(PTRACE_TRACEME, 0, NULL, NULL))
		_exit(127);     /* the exec would then not stop */
	execvp(argv[0], argv);
	int e = errno;
	if (write(err, &e, sizeof e) < 0)
		_exit(127);
	_exit(127);
}

static int open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	long fd = syscall(SYS_pidfd_open, pid, 0);
	if (fd >= 0) {
		fcntl((int)fd, F_SETFD, FD_CLOEXEC);
		return (int)fd;
	}
#endif
	(void)pid;
	return -1;
}

static int prepare(struct lp_workload *w, char *const argv[], bool stop)
{
	int go[2], err[2];
	*w = (struct lp_workload){ .pid = -1, .go_fd = -1, .err_fd = -1, .pidfd = -1 };
	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(err, O_CLOEXEC)) {
		int e = errno;
		close(go[0]);
		close(go[1]);
		return -e;
	}
	pid_t pid = fork();
	if (pid == 0) {
		close(go[1]);
		close(err[0]);
		child(go[0], err[1], argv, stop);
	}
	int e = errno;
	close(go[0]);
	close(err[1]);
	w->go_fd = go[1];
	w->err_fd = err[0];
	if (pid < 0) {
		lp_workload_close(w);
		return -e;
	}
	w->pid = pid;
	w->pidfd = open_pidfd(pid);
	w->stopped = stop;
	return 0;
}

int lp_workload_prepare(struct lp_workload *w, char *const argv[])
{
	return prepare(w, argv, false);
}

int lp_workload_prepare_stopped(struct lp_workload *w, char *const argv[])
{
	return prepare(w, argv, true);
}

/* Waits for the traced child's stop at its exec (a SIGTRAP). */
static int wait_exec_stop(struct lp_workload *w)
{
	pid_t r;
	do
		r = wait4(w->pid, &w->status, 0, &w->usage);
	while (r < 0 && errno == EINTR);
	if (r != w->pid)
		return -ECHILD;
	if (WIFSTOPPED(w->status) && WSTOPSIG(w->status) == SIGTRAP)
		return 0;
	if (!WIFSTOPPED(w->status)) {
		w->reaped = true;       /* it died on the way */
		w->stopped = false;
	}
	return -ECHILD;
}

int lp_workload_resume(struct lp_workload *w)
{
	if (!w->stopped)
		return 0;
	w->stopped = false;
	return ptrace(PTRACE_DETACH, w->pid, NULL, NULL) ? -errno : 0;
}

/* The errno a failed exec wrote, or 0 (the pipe closed at the exec). */
static int read_exec_errno(struct lp_workload *w)
{
	int e = 0;
	if (w->err_fd < 0)
		return 0;
	ssize_t n;
	do
		n = read(w->err_fd, &e, sizeof e);
	while (n < 0 && errno == EINTR);
	close(w->err_fd);
	w->err_fd = -1;
	return n == (ssize_t)sizeof e ? e : 0;
}

/* EPIPE: a signal ended the child before its exec (its status says so). */
int lp_workload_start(struct lp_workload *w)
{
	if (write(w->go_fd, "x", 1) != 1 && errno != EPIPE)
		return -errno;
	close(w->go_fd);
	w->go_fd = -1;
	if (!w->stopped)
		return 0;
	int e = read_exec_errno(w);
	if (e) {
		w->stopped = false;
		lp_workload_reap(w, true);
		return -e;
	}
	return wait_exec_stop(w);
}

int lp_workload_wait_exec(struct lp_workload *w)
{
	if (w->go_fd >= 0)
		return -EINVAL;         /* not started */
	int e = read_exec_errno(w);
	if (e) {
		lp_workload_reap(w, true);
		return -e;
	}
	return 0;
}

int lp_workload_exec_error(struct lp_workload *w)
{
	if (w->err_fd >= 0 && !w->reaped)
		return 0;               /* it may still be exec'ing: ask once it exited */
	return -read_exec_errno(w);
}

bool lp_workload_reap(struct lp_workload *w, bool wait)
{
	if (w->reaped || w->pid <= 0)
		return w->reaped;
	pid_t r;
	do
		r = wait4(w->pid, &w->status, wait ? 0 : WNOHANG, &w->usage);
	while (r < 0 && errno == EINTR);
	if (r == w->pid || (r < 0 && errno == ECHILD))
		w->reaped = true;
	return w->reaped;
}

void lp_workload_kill(struct lp_workload *w, int sig)
{
	if (w->go_fd >= 0) {            /* never started: cancel */
		close(w->go_fd);
		w->go_fd = -1;
		return;
	}
	if (w->pid > 0 && !w->reaped)
		kill(w->pid, sig);
}

void lp_workload_close(struct lp_workload *w)
{
	int *fds[] = { &w->go_fd, &w->err_fd, &w->pidfd };
	for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}
