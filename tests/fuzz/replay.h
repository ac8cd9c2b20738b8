/*
 * replay.h - what fuzz_perfdata and fuzz_pdpipe share: a perf.data read as
 * a replay drives it (lua/cmd/replay.c), every record fed to the process model,
 * every sample's ip and callchain named by the symbolizer, the recording's
 * build-ids handed to the resolver first.  Kernel names come from a small
 * fixed kallsyms, so no input depends on the machine's kernel.  At most
 * 100,000 records per input.  Included by one target each (static
 * functions, and the targets' LLVMFuzzerInitialize).
 *
 * Speed (make fuzz runs each target for millions of executions): objects
 * the recording's maps name are real files of this machine (libc and its
 * debug file), which no input can change, so each is read once for the
 * whole fuzzing run: lp_dso_open and lp_dso_free are wrapped (the Makefile
 * links these targets with -Wl,--wrap) by a memo keyed by path, device,
 * inode, size and mtime, and a memoized object is never freed.  There is
 * no perf build-id cache (HOME and PERF_BUILDID_DIR unset), so nothing
 * loads a debug file into a memoized object afterwards, and no input
 * depends on what the machine's cache holds.  Transparent huge pages are
 * off: the reader's 2 MiB arena chunks would cost a zeroed huge page per
 * input.
 */
#ifndef FUZZ_REPLAY_H
#define FUZZ_REPLAY_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "luaprof/perfdata.h"
#include "memfile.h"
#include "luaprof/proc.h"
#include "luaprof/sym.h"

static char kallsyms[64];

/* ---- the object memo (see the top) ---- */

struct lp_dso *__real_lp_dso_open(const char *path);
void __real_lp_dso_free(struct lp_dso *d);
struct lp_dso *__wrap_lp_dso_open(const char *path);
void __wrap_lp_dso_free(struct lp_dso *d);

#define MEMO_MAX 64

static struct memo {
	char *path;
	struct stat st;
	struct lp_dso *dso;
} memo[MEMO_MAX];
static size_t nr_memo;

static bool same_stat(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

struct lp_dso *__wrap_lp_dso_open(const char *path)
{
	struct stat st;
	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return __real_lp_dso_open(path);
	for (size_t i = 0; i < nr_memo; i++)
		if (!strcmp(memo[i].path, path) && same_stat(&memo[i].st, &st))
			return memo[i].dso;
	struct lp_dso *d = __real_lp_dso_open(path);
	if (d && nr_memo < MEMO_MAX && (memo[nr_memo].path = strdup(path))) {
		memo[nr_memo].st = st;
		memo[nr_memo++].dso = d;
	}
	return d;
}

void __wrap_lp_dso_free(struct lp_dso *d)
{
	for (size_t i = 0; i < nr_memo; i++)
		if (memo[i].dso == d)
			return;
	__real_lp_dso_free(d);
}

static void replay_init(void)
{
	static const char syms[] =
		"ffffffff81000000 T _text\n"
		"ffffffff81000100 T startup_64\n"
		"ffffffff81001000 t do_thing\n"
		"ffffffffc0000000 t mod_fn\t[mod]\n";
	prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
	unsetenv("PERF_BUILDID_DIR");   /* no build-id cache: see the top */
	unsetenv("HOME");
	int fd = -1;
	memfile(&fd, syms, sizeof syms - 1, kallsyms, sizeof kallsyms);
}

static void give_build_ids(struct lp_perfdata *pd, struct lp_resolver *r, size_t *given)
{
	const struct lp_pd_info *in = lp_perfdata_info(pd);
	for (; *given < in->nr_build_ids; (*given)++) {
		const struct lp_pd_build_id *b = &in->build_ids[*given];
		if (b->size)
			lp_resolver_expect_build_id(r, b->path, b->id, b->size);
	}
}

static void name_sample(struct lp_procs *ps, struct lp_resolver *r, const struct lp_record *rec)
{
	const struct lp_sample *s = &rec->u.sample;
	struct lp_thread *t = lp_procs_thread(ps, s->pid, s->tid);
	const struct lp_proc *proc = t ? t->proc : NULL;
	struct lp_frame f;
	bool kernel = (rec->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;

	lp_procs_hit(ps, rec);
	lp_resolver_frame(r, proc, s->ip, kernel, &f);
	for (uint64_t i = 0; i < s->nr_ips && i < 256; i++) {
		uint64_t ip = s->ips[i];
		if (ip >= PERF_CONTEXT_MAX) {
			kernel = ip == PERF_CONTEXT_KERNEL;
			continue;
		}
		lp_resolver_frame(r, proc, ip, kernel, &f);
	}
}

/* Reads the recording at path as lua/cmd/replay.c does. */
static void replay(const char *path)
{
	struct lp_perfdata *pd = lp_perfdata_open(path);
	if (!pd)
		return;
	struct lp_procs *ps = lp_procs_new();
	struct lp_resolver *r = ps ? lp_resolver_new(ps, kallsyms) : NULL;
	size_t given = 0;
	struct lp_record rec;
	const struct lp_pd_event *ev;
	for (int n = 0; r && n < 100000 && lp_perfdata_next(pd, &rec, &ev) > 0; n++) {
		give_build_ids(pd, r, &given);
		if (rec.type == PERF_RECORD_SAMPLE)
			name_sample(ps, r, &rec);
		else
			lp_procs_apply(ps, &rec);
	}
	lp_resolver_free(r);
	lp_procs_free(ps);
	lp_perfdata_close(pd);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	replay_init();
	return 0;
}

#endif
