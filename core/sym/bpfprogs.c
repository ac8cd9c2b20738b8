/*
 * bpfprogs.c - the BPF programs loaded now, as KSYMBOL records: what perf
 * record synthesizes when it starts (perf_event__synthesize_bpf_events),
 * so that a frame in a program loaded before the run is named in the
 * recording as one loaded during it, from the kernel's own KSYMBOL record.
 *
 * The programs are walked with bpf(2) (BPF_PROG_GET_NEXT_ID, then each
 * one's fd and BPF_OBJ_GET_INFO_BY_FD): the address and length of each
 * function's JIT'd code (jited_ksyms, jited_func_lens) and its tag.  The
 * name is the kernel's for it, as its KSYMBOL records and /proc/kallsyms
 * give it (bpf_get_prog_name): "bpf_prog_" TAG, then "_" and the
 * function's name in the program's BTF when it has function info, else
 * the program's name when it has one.  A program without function info
 * (one function) is named from its info; one with it (BTF names, a
 * function per BPF-to-BPF callee) from /proc/kallsyms, read once when
 * the first such program is met, by address (its [bpf] lines).
 */
#include <errno.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "luaprof/record.h"
#include "sym/sym_int.h"

#define NAME_SIZE 512            /* the kernel's KSYM_NAME_LEN */
#define MAX_FUNCS 4096          /* functions of one program read (the
				 * verifier's limit on subprograms is 256) */

struct scan {
	int (*fn)(const struct lp_record *r, void *arg);
	void *arg;
	struct lp_kernel *kallsyms;     /* read on first need */
	bool kallsyms_tried;
};

static int sys_bpf(int cmd, union bpf_attr *a)
{
	return (int)syscall(__NR_bpf, cmd, a, sizeof *a);
}

/* The program's info, with its functions' addresses, lengths and tags
 * in the arrays given (n of each, NULL for none).  0 or -errno. */
static int prog_info(int fd, struct bpf_prog_info *info, uint64_t *addrs, uint32_t *lens,
		     uint8_t (*tags)[BPF_TAG_SIZE], uint32_t n)
{
	union bpf_attr a;
	memset(info, 0, sizeof *info);
	if (n) {
		info->nr_jited_ksyms = info->nr_jited_func_lens = info->nr_prog_tags = n;
		info->jited_ksyms = (uint64_t)(uintptr_t)addrs;
		info->jited_func_lens = (uint64_t)(uintptr_t)lens;
		info->prog_tags = (uint64_t)(uintptr_t)tags;
	}
	memset(&a, 0, sizeof a);
	a.info.bpf_fd = (uint32_t)fd;
	a.info.info_len = sizeof *info;
	a.info.info = (uint64_t)(uintptr_t)info;
	return sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a) ? -errno : 0;
}

/* Function i's name into buf: the kernel's (kallsyms') when the program
 * has BTF function names, else made as the kernel makes it. */
static void func_name(struct scan *s, const struct bpf_prog_info *info, uint32_t i,
		      uint64_t addr, const uint8_t *tag, char *buf, size_t size)
{
	if (info->nr_func_info || info->nr_jited_ksyms > 1) {
		if (!s->kallsyms_tried) {
			bool hidden;
			s->kallsyms = lp_kernel_load("/proc/kallsyms", &hidden);
			s->kallsyms_tried = true;
		}
		const char *mod = NULL;
		const struct lp_sym *k = s->kallsyms ? lp_kernel_find(s->kallsyms, addr, &mod) : NULL;
		if (k && k->start == addr && mod && !strcmp(mod, "[bpf]")) {
			snprintf(buf, size, "%s", k->name);
			return;
		}
	}
	int n = snprintf(buf, size, "bpf_prog_");
	for (int b = 0; b < BPF_TAG_SIZE && n > 0 && (size_t)n + 2 < size; b++)
		n += snprintf(buf + n, size - (size_t)n, "%02x", tag[b]);
	if (info->name[0] && i == 0 && n > 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, "_%.*s", (int)sizeof info->name, info->name);
}

/* The records of the program open as fd.  0, fn's non-zero return, or
 * -ENOMEM; a program the kernel says nothing of is left out. */
static int scan_prog(struct scan *s, int fd)
{
	struct bpf_prog_info info;
	if (prog_info(fd, &info, NULL, NULL, NULL, 0) || !info.nr_jited_ksyms)
		return 0;       /* gone, or not JIT'd: no code of its own */
	uint32_t n = info.nr_jited_ksyms < MAX_FUNCS ? info.nr_jited_ksyms : MAX_FUNCS;
	uint64_t *addrs = calloc(n, sizeof *addrs);
	uint32_t *lens = calloc(n, sizeof *lens);
	uint8_t (*tags)[BPF_TAG_SIZE] = calloc(n, sizeof *tags);
	int rc = addrs && lens && tags ? 0 : -ENOMEM;
	if (!rc && prog_info(fd, &info, addrs, lens, tags, n))
		n = 0;
	if (n > info.nr_jited_ksyms)    /* it changed meanwhile: what it has */
		n = info.nr_jited_ksyms;
	for (uint32_t i = 0; !rc && i < n; i++) {
		char name[NAME_SIZE];
		if (!addrs[i] || !lens[i])
			continue;
		func_name(s, &info, i, addrs[i], tags[i], name, sizeof name);
		struct lp_record r = { .type = PERF_RECORD_KSYMBOL, .misc = PERF_RECORD_MISC_KERNEL };
		r.u.ksymbol = (struct lp_ksymbol){ .addr = addrs[i], .len = lens[i],
						   .type = PERF_RECORD_KSYMBOL_TYPE_BPF,
						   .name = name };
		rc = s->fn(&r, s->arg);
	}
	free(addrs);
	free(lens);
	free(tags);
	return rc;
}

int lp_bpf_scan(int (*fn)(const struct lp_record *r, void *arg), void *arg)
{
	struct scan s = { fn, arg, NULL, false };
	uint32_t id = 0;
	int rc = 0;
	for (;;) {
		union bpf_attr a;
		memset(&a, 0, sizeof a);
		a.start_id = id;
		if (sys_bpf(BPF_PROG_GET_NEXT_ID, &a))
			break;          /* ENOENT: the last; EPERM: none to see */
		id = a.next_id;
		memset(&a, 0, sizeof a);
		a.prog_id = id;
		int fd = sys_bpf(BPF_PROG_GET_FD_BY_ID, &a);
		if (fd < 0)
			continue;       /* gone meanwhile */
		rc = scan_prog(&s, fd);
		close(fd);
		if (rc)
			break;
	}
	lp_kernel_free(s.kallsyms);
	return rc;
}
