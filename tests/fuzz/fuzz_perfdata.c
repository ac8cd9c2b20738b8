/*
 * fuzz_perfdata.c - the perf.data reader as a replay drives it: any bytes
 * as a file (seekable or pipe layout, as the magic and header say; features
 * and compressed records included), every record fed to the process model,
 * every sample's ip and callchain named by the symbolizer, the recording's
 * build-ids handed to the resolver first, as lua/replay.c does.  Kernel
 * names come from a small fixed kallsyms, so no input depends on the
 * machine's kernel.  At most 100,000 records per input.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "luaprof/perfdata.h"
#include "luaprof/proc.h"
#include "luaprof/sym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static char kallsyms[64];

/* A file holding bytes, as /proc/self/fd/N (its fd stays open). */
static int memfile(const char *name, const void *p, size_t n, char *path, size_t size)
{
	int fd = memfd_create(name, MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (n && write(fd, p, n) != (ssize_t)n) {
		close(fd);
		return -1;
	}
	snprintf(path, size, "/proc/self/fd/%d", fd);
	return fd;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char syms[] =
		"ffffffff81000000 T _text\n"
		"ffffffff81000100 T startup_64\n"
		"ffffffff81001000 t do_thing\n"
		"ffffffffc0000000 t mod_fn\t[mod]\n";
	(void)argc;
	(void)argv;
	if (memfile("kallsyms", syms, sizeof syms - 1, kallsyms, sizeof kallsyms) < 0)
		abort();
	return 0;
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

static void replay(const char *path)
{
	char err[256];
	struct lp_perfdata *pd = lp_perfdata_open(path, err, sizeof err);
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = memfile("perf.data", data, size, path, sizeof path);
	if (fd < 0)
		return 0;
	replay(path);
	close(fd);
	return 0;
}
