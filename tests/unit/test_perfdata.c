/*
 * test_perfdata.c - the perf.data reader and writer, with perf as the oracle.
 *
 *  - corpus: every file of the conformance corpus (../shared/perfdata, or
 *    $LP_PERFDATA_CORPUS; $LP_PERFDATA_EXTRA adds files) is read; the (pid, tid, time, event, ip) of every
 *    sample, in order, and the per-event counts must equal what `perf script`
 *    prints; header facts must equal `perf report --header-only`;
 *  - synthetic files (pipe mode built here byte by byte, seekable through the
 *    writer) pin down perf's time ordering: FINISHED_ROUND flushes, late
 *    records, equal times, time 0;
 *  - compressed recordings (`perf record -z`, file and pipe), when perf may
 *    record here;
 *  - hostile input: the corrupted corpus file, truncations at many offsets,
 *    random byte flips, bad magics; all must end in a clean error or EOF;
 *  - the writer: corpus file -> lp_pd_writer -> perf script / perf report /
 *    lp_perfdata again.
 * Parts needing perf or the corpus print "skip:" and pass when those are
 * missing.  perf runs only here, through popen, never in the library.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <sys/stat.h>

#include "luaprof/err.h"
#include "luaprof/perfdata.h"
#include "test.h"

#define PERF_SCRIPT "perf script -f -F pid,tid,time,ip,event --ns --hide-call-graph --no-itrace"
/* side-band records too: perf prints them as "pid/tid time: PERF_RECORD_X ..." */
#define SIDE_BAND " --show-task-events --show-mmap-events --show-lost-events " \
	"--show-switch-events --show-namespace-events --show-cgroup-events"

static bool side_band;  /* compare side-band records as well as samples */

/* ---- helpers: corpus, perf, temp files ------------------------------------ */

/* The corpus: $LP_PERFDATA_CORPUS (tests/run.sh sets it to ../shared/perfdata
 * beside the repository, whatever the cwd), else ../shared/perfdata from the
 * cwd (the repository root); NULL when absent. */
static const char *corpus(void)
{
	const char *dir = getenv("LP_PERFDATA_CORPUS");
	struct stat st;

	if (!dir)
		dir = "../shared/perfdata";
	return stat(dir, &st) ? NULL : dir;
}

static bool have_perf(void)
{
	static int have = -1;

	if (have < 0)
		have = system("perf --version >/dev/null 2>&1") == 0;
	return have;
}

static const char *cpath(const char *name)
{
	static char buf[4096];

	snprintf(buf, sizeof buf, "%s/%s", corpus(), name);
	return buf;
}

/* Progress notes; flushed, as test cases end with _exit(). */
static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

static char tmpdir[256];

/* A path in this test's temp dir; 16 results stay valid at a time. */
static const char *tmp(const char *name)
{
	static char buf[16][512];
	static int k;

	if (!tmpdir[0]) {
		snprintf(tmpdir, sizeof tmpdir, "%s/lp_pd_XXXXXX",
			 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
		if (!mkdtemp(tmpdir))
			abort();
	}
	k = (k + 1) % 16;
	snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
	return buf[k];
}

static void tmp_cleanup(void)
{
	char cmd[600];

	if (tmpdir[0]) {
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
		if (system(cmd)) {}
	}
}

static void write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(p, 1, n, f) != n)
		abort();
	fclose(f);
}

static void *read_file(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *p = NULL;
	long len;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	p = malloc((size_t)len + 1);
	if (p && fread(p, 1, (size_t)len, f) != (size_t)len) {
		free(p);
		p = NULL;
	}
	fclose(f);
	*n = (size_t)len;
	return p;
}

/* ---- sample rows ------------------------------------------------------------ */

struct row {
	int pid, tid;
	uint64_t time, ip;
	char name[96];
};

struct rows {
	struct row *v;
	size_t n, cap;
};

static void rows_push(struct rows *r, const struct row *x)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 1024;
		r->v = realloc(r->v, r->cap * sizeof *r->v);
		if (!r->v)
			abort();
	}
	r->v[r->n++] = *x;
}

static void rows_free(struct rows *r)
{
	free(r->v);
	memset(r, 0, sizeof *r);
}

/* "  pid/tid   sec.nsec:   name:   ip" (names may hold ':' and spaces). */
static bool parse_line(char *l, struct row *r)
{
	uint64_t sec, nsec;
	char *p, *end;
	int n = 0;

	if (sscanf(l, " %d/%d %" SCNu64 ".%" SCNu64 ":%n", &r->pid, &r->tid, &sec, &nsec, &n) < 4 || !n)
		return false;
	r->time = sec * 1000000000ull + nsec;
	p = l + n + strspn(l + n, " ");
	if (!strncmp(p, "PERF_RECORD_", 12)) {        /* side-band: name only */
		p[strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")] = 0;
		snprintf(r->name, sizeof r->name, "%s", p);
		return true;
	}
	end = l + strlen(l);
	while (end > l && (end[-1] == '\n' || end[-1] == ' '))
		*--end = 0;
	p = strrchr(l + n, ' ');
	if (!p)
		return false;
	r->ip = strtoull(p + 1, NULL, 16);
	while (p > l + n && (p[-1] == ' ' || p[-1] == ':'))
		p--;
	*p = 0;
	p = l + n;
	while (*p == ' ')
		p++;
	snprintf(r->name, sizeof r->name, "%s", p);
	return true;
}

/* perf script's samples; returns perf's exit status (-1: unparsed line). */
static int perf_rows(const char *file, struct rows *out)
{
	char cmd[4600], line[1024];
	FILE *f;
	int bad = 0, st;

	snprintf(cmd, sizeof cmd, PERF_SCRIPT "%s -i '%s' 2>/dev/null",
		 side_band ? SIDE_BAND : "", file);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f)) {
		struct row r = { 0 };

		if (line[0] == '\t')
			continue;               /* NAMESPACES continuation lines */
		if (parse_line(line, &r))
			rows_push(out, &r);
		else if (bad++ < 3)
			fprintf(stderr, "  %s: unparsed perf line: %s", file, line);
	}
	st = pclose(f);
	return bad ? -1 : st;
}

/* The side-band records perf script shows with SIDE_BAND, by perf's name. */
static const char *side_band_name(uint32_t type)
{
	switch (type) {
	case PERF_RECORD_MMAP:            return "PERF_RECORD_MMAP";
	case PERF_RECORD_MMAP2:           return "PERF_RECORD_MMAP2";
	case PERF_RECORD_COMM:            return "PERF_RECORD_COMM";
	case PERF_RECORD_FORK:            return "PERF_RECORD_FORK";
	case PERF_RECORD_EXIT:            return "PERF_RECORD_EXIT";
	case PERF_RECORD_LOST:            return "PERF_RECORD_LOST";
	case PERF_RECORD_SWITCH:          return "PERF_RECORD_SWITCH";
	case PERF_RECORD_SWITCH_CPU_WIDE: return "PERF_RECORD_SWITCH_CPU_WIDE";
	case PERF_RECORD_NAMESPACES:      return "PERF_RECORD_NAMESPACES";
	case PERF_RECORD_CGROUP:          return "PERF_RECORD_CGROUP";
	default:                          return NULL;
	}
}

static bool side_band_row(const struct lp_record *rec, struct row *r)
{
	const char *name = side_band ? side_band_name(rec->type) : NULL;

	if (!name)
		return false;
	r->pid = rec->has_sid ? (int)rec->sid.pid : -1;
	r->tid = rec->has_sid ? (int)rec->sid.tid : -1;
	r->time = rec->has_sid ? rec->sid.time : 0;
	if (!rec->has_sid && rec->type == PERF_RECORD_COMM) {
		r->pid = (int)rec->u.comm.pid;  /* what perf script prints then */
		r->tid = (int)rec->u.comm.tid;
	}
	snprintf(r->name, sizeof r->name, "%s", name);
	return true;
}

/* lp_perfdata_open, with its message copied into err when it fails. */
static struct lp_perfdata *open_pd(const char *path, char *err, size_t errsz)
{
	struct lp_perfdata *pd = lp_perfdata_open(path);
	int e = errno;

	if (!pd)
		snprintf(err, errsz, "%s", lp_last_error());
	errno = e;
	return pd;
}

/* Our samples; returns lp_perfdata_next's final value (0 or -errno). */
static int our_rows(const char *file, struct rows *out, char *err, size_t errsz)
{
	struct lp_perfdata *pd = open_pd(file, err, errsz);
	struct lp_record rec;
	const struct lp_pd_event *ev;
	int n;

	if (!pd)
		return -errno;
	while ((n = lp_perfdata_next(pd, &rec, &ev)) > 0) {
		struct row r = { 0 };

		if (side_band_row(&rec, &r))
			rows_push(out, &r);
		if (rec.type != PERF_RECORD_SAMPLE)
			continue;
		r.pid = (int)rec.u.sample.pid;
		r.tid = (int)rec.u.sample.tid;
		r.time = rec.u.sample.time;
		r.ip = rec.u.sample.ip;
		snprintf(r.name, sizeof r.name, "%s", ev ? ev->name : "?");
		rows_push(out, &r);
	}
	if (n < 0)
		snprintf(err, errsz, "%s", lp_last_error());
	lp_perfdata_close(pd);
	return n;
}

/* Per-event sample counts must agree. */
static bool same_counts(const char *file, const struct rows *a, const struct rows *b)
{
	bool ok = true;

	for (size_t i = 0; i < a->n; i++) {
		size_t ca = 0, cb = 0;
		bool first = true;

		for (size_t j = 0; j < a->n && first; j++)
			if (!strcmp(a->v[j].name, a->v[i].name))
				first = j == i;
		if (!first)
			continue;
		for (size_t j = 0; j < a->n; j++)
			ca += !strcmp(a->v[j].name, a->v[i].name);
		for (size_t j = 0; j < b->n; j++)
			cb += !strcmp(b->v[j].name, a->v[i].name);
		if (ca != cb) {
			fprintf(stderr, "  %s: event '%s': perf %zu samples, luaprof %zu\n",
				file, a->v[i].name, ca, cb);
			ok = false;
		}
	}
	return ok;
}

/* Same samples in the same order; reports the first difference. */
static bool same_rows(const char *file, const struct rows *perf, const struct rows *ours)
{
	bool counts = same_counts(file, perf, ours);

	for (size_t i = 0; i < perf->n && i < ours->n; i++) {
		const struct row *a = &perf->v[i], *b = &ours->v[i];

		if (a->pid != b->pid || a->tid != b->tid || a->time != b->time ||
		    a->ip != b->ip || strcmp(a->name, b->name)) {
			fprintf(stderr, "  %s: sample %zu: perf %d/%d %" PRIu64 " %s %#" PRIx64
				", luaprof %d/%d %" PRIu64 " %s %#" PRIx64 "\n", file, i,
				a->pid, a->tid, a->time, a->name, a->ip,
				b->pid, b->tid, b->time, b->name, b->ip);
			return false;
		}
	}
	if (perf->n != ours->n)
		fprintf(stderr, "  %s: perf %zu samples, luaprof %zu\n", file, perf->n, ours->n);
	return counts && perf->n == ours->n;
}

/* perf script and lp_perfdata agree on file, in one of the two views. */
static bool matches_perf_view(const char *file)
{
	struct rows p = { 0 }, o = { 0 };
	char err[512] = "";
	int st = perf_rows(file, &p), n = our_rows(file, &o, err, sizeof err);
	bool ok = st == 0 && n == 0 && same_rows(file, &p, &o);

	if (st)
		fprintf(stderr, "  %s: perf script failed (status %d)\n", file, st);
	if (n)
		fprintf(stderr, "  %s: %s\n", file, err);
	rows_free(&p);
	rows_free(&o);
	return ok;
}

/* perf script and lp_perfdata agree on file: the samples alone, then the
 * samples with the side-band records; false (with messages) if not. */
static bool matches_perf(const char *file)
{
	bool ok = matches_perf_view(file);

	side_band = true;
	ok = matches_perf_view(file) && ok;
	side_band = false;
	return ok;
}

/* ---- corpus: samples ----------------------------------------------------------- */

static int corpus_filter(const struct dirent *d)
{
	return !strncmp(d->d_name, "perf.data", 9);
}

/* perf 6.1 cannot read this one at all: with --no-itrace it does not skip the
 * AUXTRACE payload in pipe mode ("bad event header size"), and decoding the
 * Intel PT data fails ("failed to process sample").  Its record structure
 * walks cleanly to the last byte; it holds 11 cycles samples. */
#define PIPED_PT "perf.data.piped.intel_pt-4.14"
#define CORRUPTED "perf.data.piped.corrupted.zero_size_sample-3.2"

static void check_piped_pt(void)
{
	struct rows o = { 0 };
	char err[512] = "";

	TEST_EQ(our_rows(cpath(PIPED_PT), &o, err, sizeof err), 0);
	TEST_EQ(o.n, 11);
	for (size_t i = 0; i < o.n; i++)
		TEST_STREQ(o.v[i].name, "cycles");
	rows_free(&o);
}

/* $LP_PERFDATA_EXTRA: more files to hold against perf script, ':'-separated
 * (ad-hoc checks of one's own recordings). */
static void extra_files(void)
{
	char *list = getenv("LP_PERFDATA_EXTRA") ? strdup(getenv("LP_PERFDATA_EXTRA")) : NULL;

	for (char *f = list ? strtok(list, ":") : NULL; f; f = strtok(NULL, ":")) {
		bool ok = matches_perf(f);

		TEST_TRUE(ok);
		note("  %s: %s\n", f, ok ? "matches perf script" : "DIFFERS");
	}
	free(list);
}

static void corpus_matches_perf_script(void)
{
	struct dirent **names;
	int n, matched = 0;

	if (!corpus() || !have_perf()) {
		TEST_SKIP("no perf.data corpus (../shared/perfdata or LP_PERFDATA_CORPUS) or no perf");
	}
	n = scandir(corpus(), &names, corpus_filter, alphasort);
	TEST_TRUE(n >= 49);
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;

		if (!strcmp(name, PIPED_PT))
			check_piped_pt();
		else if (strcmp(name, CORRUPTED)) {
			bool ok = matches_perf(cpath(name));

			TEST_TRUE(ok);
			matched += ok;
		}
		free(names[i]);
	}
	free(names);
	note("  %d corpus files match perf script exactly\n", matched);
	extra_files();
}

/* ---- corpus: header facts ----------------------------------------------------------- */

static char *facts_line(char *text, const char *key)
{
	char pat[64], *p;

	snprintf(pat, sizeof pat, "\n# %s : ", key);
	p = strstr(text, pat);
	if (!p)
		return NULL;
	p += strlen(pat);
	p[strcspn(p, "\n")] = 0;
	for (char *e = p + strlen(p); e > p && e[-1] == ' ';)
		*--e = 0;
	return p;
}

/* perf stops reading feature sections at the first one it cannot parse; in
 * this file that is an empty CPUDESC section, so perf has no cpudesc, total
 * memory or cmdline.  luaprof skips only the bad section and reads on. */
static bool perf_gave_up(const char *file, const char *key)
{
	return strstr(file, "perf.data.armv7.perf_3.14-3.8") &&
	       (!strcmp(key, "cpudesc") || !strcmp(key, "total memory") ||
		!strcmp(key, "cmdline"));
}

static void check_fact(const char *file, char *perf, const char *key, const char *ours)
{
	char *dup = strdup(perf), *want = facts_line(dup, key);

	if (perf_gave_up(file, key))
		want = NULL;
	if (want && (!ours || strcmp(want, ours))) {
		fprintf(stderr, "  %s: %s: perf \"%s\", luaprof \"%s\"\n", file, key, want,
			ours ? ours : "(null)");
		test_failed_ = 1;
	}
	free(dup);
}

static void check_facts(const char *file, char *perf, const struct lp_pd_info *in)
{
	char num[3][32], cmd[8192] = "";

	snprintf(num[0], sizeof num[0], "%u", in->nr_cpus_online);
	snprintf(num[1], sizeof num[1], "%u", in->nr_cpus_avail);
	snprintf(num[2], sizeof num[2], "%" PRIu64 " kB", in->total_mem);
	for (size_t i = 0; i < in->nr_cmdline; i++)
		snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), "%s%s", i ? " " : "",
			 in->cmdline[i]);
	check_fact(file, perf, "hostname", in->hostname);
	check_fact(file, perf, "os release", in->os_release);
	check_fact(file, perf, "perf version", in->perf_version);
	check_fact(file, perf, "arch", in->arch);
	check_fact(file, perf, "nrcpus online", num[0]);
	check_fact(file, perf, "nrcpus avail", num[1]);
	check_fact(file, perf, "cpudesc", in->cpu_desc);
	check_fact(file, perf, "cpuid", in->cpuid);
	check_fact(file, perf, "total memory", num[2]);
	check_fact(file, perf, "cmdline", cmd);
}

/* Output of a shell command, with a '\n' in front (for "\n# key" lookups). */
static char *perf_output(const char *cmd)
{
	size_t n = 0, cap = 1 << 16;
	char *out = malloc(cap + 1);
	FILE *f = popen(cmd, "r");

	if (!f || !out)
		abort();
	out[0] = '\n';
	n = 1 + fread(out + 1, 1, cap - 1, f);
	out[n] = 0;
	pclose(f);
	return out;
}

static void header_facts_equal_perf(const char *file)
{
	char err[512];
	struct lp_perfdata *pd = open_pd(file, err, sizeof err);
	struct lp_record rec;
	const struct lp_pd_event *ev;
	char *perf, cmd[4600];

	TEST_TRUE(pd != NULL);
	if (!pd)
		return;
	while (lp_perfdata_next(pd, &rec, &ev) > 0)
		;
	snprintf(cmd, sizeof cmd, "perf report -f --header-only -i '%s' 2>/dev/null", file);
	perf = perf_output(cmd);
	check_facts(file, perf, lp_perfdata_info(pd));
	free(perf);
	lp_perfdata_close(pd);
}

static void corpus_header_facts(void)
{
	struct dirent **names;
	int n;

	if (!corpus() || !have_perf()) {
		note("  skip: no corpus or no perf\n");
		return;
	}
	n = scandir(corpus(), &names, corpus_filter, alphasort);
	for (int i = 0; i < n; i++) {
		if (strcmp(names[i]->d_name, CORRUPTED))
			header_facts_equal_perf(cpath(names[i]->d_name));
		free(names[i]);
	}
	free(names);
}

/* Build ids as "hex path" lines, [vdso] left out (perf lists one per
 * machine only), sorted and unique. */
static char *our_build_ids(const char *file)
{
	char err[512], line[4200], *out = calloc(1, 1 << 20);
	struct lp_perfdata *pd = open_pd(file, err, sizeof err);
	const struct lp_pd_info *in;

	if (!pd || !out)
		abort();
	in = lp_perfdata_info(pd);
	for (size_t i = 0; i < in->nr_build_ids; i++) {
		const struct lp_pd_build_id *b = &in->build_ids[i];
		int k = 0;

		if (!strcmp(b->path, "[vdso]"))
			continue;
		for (int j = 0; j < b->size; j++)
			k += snprintf(line + k, sizeof line - (size_t)k, "%02x", b->id[j]);
		snprintf(line + k, sizeof line - (size_t)k, " %s\n", b->path);
		if (!strstr(out, line) && strlen(out) + strlen(line) < (1 << 20))
			strcat(out, line);
	}
	lp_perfdata_close(pd);
	return out;
}

static void build_ids_equal_perf(void)
{
	static const char *const files[] = {
		"perf.data.callgraph-3.8", "perf.data.forkexit-3.4", "perf.data.intel_pt-4.14",
		"perf.data.weight_struct", "perf.data.throttle-3.8", "perf.data.armv7-3.4",
	};

	if (!corpus() || !have_perf()) {
		note("  skip: no corpus or no perf\n");
		return;
	}
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		char cmd[4600], *perf;

		snprintf(cmd, sizeof cmd, "perf buildid-list -f -i '%s' 2>/dev/null | "
			 "grep -v ' \\[vdso\\]$'", cpath(files[i]));
		perf = perf_output(cmd);
		char *ours = our_build_ids(cpath(files[i]));
		long lines = 0;

		for (char *p = ours; (p = strchr(p, '\n')); p++)
			lines++;
		for (char *l = strtok(perf + 1, "\n"); l; l = strtok(NULL, "\n")) {
			char key[4300];

			snprintf(key, sizeof key, "%s\n", l);
			if (!strstr(ours, key)) {
				fprintf(stderr, "  %s: perf lists %s, luaprof does not\n", files[i], l);
				test_failed_ = 1;
			}
			lines--;
		}
		TEST_EQ(lines, 0);
		free(perf);
		free(ours);
	}
}

/* ---- hostile input ---------------------------------------------------------------- */

static void corrupted_file_is_refused(void)
{
	struct rows o = { 0 };
	char err[512] = "";

	if (!corpus()) {
		note("  skip: no corpus\n");
		return;
	}
	TEST_EQ(our_rows(cpath(CORRUPTED), &o, err, sizeof err), -EPROTO);
	/* the path's end (a long checkout's path is shortened in the middle,
	 * lp_show, keeping its last 24 bytes) */
	TEST_TRUE(strstr(err, CORRUPTED + sizeof CORRUPTED - 21) != NULL);
	TEST_TRUE(strstr(err, "offset 49104") != NULL);
	TEST_TRUE(strstr(err, "size 0") != NULL);
	rows_free(&o);
}

/* Reads everything; must end in EOF or a clean error with a message. */
/* Whether two decodings of the same record agree: the same bytes, and
 * every pointer into them at the same place. */
static bool same_record(const struct lp_record *a, const struct lp_record *b)
{
	const uint8_t *pa = a->data, *pb = b->data;
#define SAME_AT(x, y) ((!(x) && !(y)) || ((x) && (y) && \
		(const uint8_t *)(x) - pa == (const uint8_t *)(y) - pb))
	if (a->type != b->type || a->misc != b->misc || a->size != b->size ||
	    !pa != !pb || (pa && memcmp(pa, pb, a->size)) || a->has_sid != b->has_sid ||
	    memcmp(&a->sid, &b->sid, sizeof a->sid))
		return false;
	if (a->type == PERF_RECORD_SAMPLE) {
		const struct lp_sample *x = &a->u.sample, *y = &b->u.sample;
		return x->ip == y->ip && x->pid == y->pid && x->tid == y->tid && x->time == y->time &&
		       x->id == y->id && x->period == y->period && x->nr_ips == y->nr_ips &&
		       x->raw_size == y->raw_size && x->nr_branches == y->nr_branches &&
		       x->user_stack_size == y->user_stack_size && SAME_AT(x->ips, y->ips) &&
		       SAME_AT(x->raw, y->raw) && SAME_AT(x->read, y->read) &&
		       SAME_AT(x->branches, y->branches) && SAME_AT(x->user_regs, y->user_regs) &&
		       SAME_AT(x->user_stack, y->user_stack) && SAME_AT(x->intr_regs, y->intr_regs) &&
		       SAME_AT(x->aux, y->aux);
	}
	if (a->type == PERF_RECORD_MMAP || a->type == PERF_RECORD_MMAP2)
		return SAME_AT(a->u.mmap.filename, b->u.mmap.filename) &&
		       a->u.mmap.start == b->u.mmap.start && a->u.mmap.len == b->u.mmap.len;
	if (a->type == PERF_RECORD_COMM)
		return SAME_AT(a->u.comm.comm, b->u.comm.comm) && a->u.comm.tid == b->u.comm.tid;
	if (a->type == PERF_RECORD_KSYMBOL)
		return SAME_AT(a->u.ksymbol.name, b->u.ksymbol.name) &&
		       a->u.ksymbol.addr == b->u.ksymbol.addr && a->u.ksymbol.len == b->u.ksymbol.len &&
		       a->u.ksymbol.flags == b->u.ksymbol.flags;
	if (a->type == PERF_RECORD_CGROUP)
		return SAME_AT(a->u.cgroup.path, b->u.cgroup.path) && a->u.cgroup.id == b->u.cgroup.id;
	return !memcmp(&a->u, &b->u, sizeof a->u) || a->type >= 64 || a->type == PERF_RECORD_SWITCH ||
	       a->type == PERF_RECORD_SWITCH_CPU_WIDE;
#undef SAME_AT
}

/* read_all compares with the thread one call in this many (the hostile
 * inputs' thousands of reads: a thread each is slow under TSan). */
static unsigned ahead_every = 1;

/* Reads path to its end twice in step, once with lp_perfdata_read_ahead
 * (a mapped file; a stream is refused with -ESPIPE): every record, its
 * event, the events and build-ids known after it, the end and the error
 * must be the same.  Returns what the plain reader's last call returned,
 * and counts the records in *nrec. */
static int read_all(const char *path, size_t *nrec)
{
	char err[512] = "", err2[512] = "";
	struct lp_perfdata *pd = open_pd(path, err, sizeof err);
	static unsigned calls;
	bool compare = calls++ % ahead_every == 0;
	struct lp_perfdata *ahead = compare ? open_pd(path, err2, sizeof err2) : NULL;
	struct lp_record rec, rec2;
	const struct lp_pd_event *ev, *ev2;
	int n, n2, rc;

	*nrec = 0;
	if (!compare) {
		if (!pd) {
			TEST_TRUE(err[0] != 0);
			return -1;
		}
		while ((n = lp_perfdata_next(pd, &rec, &ev)) > 0)
			(*nrec)++;
		if (n < 0) {
			TEST_TRUE(strstr(lp_last_error(), "offset") != NULL);
			TEST_EQ(lp_perfdata_next(pd, &rec, &ev), n);  /* sticky */
		}
		lp_perfdata_close(pd);
		return n;
	}
	TEST_TRUE(!pd == !ahead);
	TEST_STREQ(err, err2);
	if (!pd || !ahead) {
		TEST_TRUE(err[0] != 0);
		lp_perfdata_close(pd);
		lp_perfdata_close(ahead);
		return -1;
	}
	rc = lp_perfdata_read_ahead(ahead);
	TEST_TRUE(rc == 0 || rc == -ESPIPE);
	for (;;) {
		n = lp_perfdata_next(pd, &rec, &ev);
		if (n < 0)
			snprintf(err, sizeof err, "%s", lp_last_error());
		n2 = lp_perfdata_next(ahead, &rec2, &ev2);
		if (n2 < 0)
			snprintf(err2, sizeof err2, "%s", lp_last_error());
		TEST_EQ(n, n2);
		if (n <= 0 || n2 <= 0)
			break;
		(*nrec)++;
		TEST_TRUE(same_record(&rec, &rec2));
		TEST_EQ(!ev, !ev2);
		TEST_EQ(lp_perfdata_nr_events(pd), lp_perfdata_nr_events(ahead));
		TEST_EQ(lp_perfdata_info(pd)->nr_build_ids, lp_perfdata_info(ahead)->nr_build_ids);
		if (ev && ev2)
			TEST_STREQ(ev->name, ev2->name);
	}
	TEST_STREQ(err, err2);
	if (n < 0) {
		TEST_TRUE(strstr(err, "offset") != NULL);
		TEST_EQ(lp_perfdata_next(pd, &rec, &ev), n);  /* sticky */
		TEST_EQ(lp_perfdata_next(ahead, &rec2, &ev2), n);
	}
	lp_perfdata_close(pd);
	lp_perfdata_close(ahead);
	return n;
}

static uint64_t rnd_state = 0x9E3779B97F4A7C15ull;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static int read_via_stdin(const void *data, size_t len, struct rows *out);

/* Every cut in the first KiB (7-byte steps), then about 100 more; the file is
 * shortened in place, from the longest cut down. */
static void truncate_at_many_offsets(const char *path)
{
	size_t len, nrec, cuts[400], n = 0;
	uint8_t *data = read_file(path, &len);
	const char *t = tmp("trunc.data");

	TEST_TRUE(data != NULL);
	if (!data)
		return;
	for (size_t cut = 0; cut < len && n < 400; cut += cut < 1024 ? 7 : 1 + len / 100)
		cuts[n++] = cut;
	write_file(t, data, len);
	while (n--) {
		if (truncate(t, (off_t)cuts[n]))
			abort();
		read_all(t, &nrec);
		if (n % 8 == 0) {               /* the buffered-read path too */
			struct rows r = { 0 };

			read_via_stdin(data, cuts[n], &r);
			rows_free(&r);
		}
	}
	free(data);
}

/* Rounds of 1 to 8 changed bytes, half of them in the first 4 KiB (header,
 * attrs, in-band header records); each round is undone before the next. */
static void flip_bytes(const char *path, int rounds)
{
	size_t len, nrec;
	uint8_t *data = read_file(path, &len);
	const char *t = tmp("flip.data");
	int fd;

	TEST_TRUE(data != NULL && len > 0);
	if (!data || !len)
		return;
	write_file(t, data, len);
	fd = open(t, O_WRONLY);
	for (int r = 0; r < rounds && fd >= 0; r++) {
		size_t at[8];
		int k = 1 + (int)(rnd() % 8);

		for (int i = 0; i < k; i++) {
			uint8_t b;

			at[i] = rnd() % 2 ? rnd() % (len < 4096 ? len : 4096) : rnd() % len;
			b = rnd() % 4 ? data[at[i]] ^ (uint8_t)(1u << (rnd() % 8)) : (uint8_t)rnd();
			if (pwrite(fd, &b, 1, (off_t)at[i]) != 1)
				abort();
		}
		read_all(t, &nrec);
		for (int i = 0; i < k; i++)
			if (pwrite(fd, &data[at[i]], 1, (off_t)at[i]) != 1)
				abort();
	}
	if (fd >= 0)
		close(fd);
	free(data);
}

/* Every corpus file read ahead on a thread gives what the plain reader
 * gives (read_all compares them record by record), pipe files included
 * (refused with -ESPIPE: read by the caller). */
static void read_ahead_equals_plain(void)
{
	struct dirent **names;
	int n;
	size_t nrec, total = 0;

	if (!corpus()) {
		note("  skip: no corpus\n");
		return;
	}
	n = scandir(corpus(), &names, corpus_filter, alphasort);
	TEST_TRUE(n >= 49);
	for (int i = 0; i < n; i++) {
		read_all(cpath(names[i]->d_name), &nrec);
		total += nrec;
		free(names[i]);
	}
	free(names);
	note("  %zu records of %d files read the same with and without the thread\n", total, n);
}

static void truncations_and_flips_end_cleanly(void)
{
	static const char *const files[] = {
		"perf.data.callgraph-3.8", "perf.data.piped.target-3.8",
		"perf.data.intel_pt-4.14", "perf.data.piped.header_features_aligned-6.12",
		"perf.data.piped.intel_pt-4.14", "perf.data.weight_struct",
	};

	if (!corpus()) {
		note("  skip: no corpus\n");
		return;
	}
	alarm(120);
	ahead_every = 4;
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		const char *path = strdup(cpath(files[i]));

		truncate_at_many_offsets(path);
		flip_bytes(path, 200);
		free((void *)(uintptr_t)path);
	}
	ahead_every = 1;
	tmp_cleanup();
}

static void bad_magic_and_header(void)
{
	uint8_t h[104] = { 0 };
	const char *t = tmp("bad.data");
	char err[512];
	uint64_t size = 104;

	memcpy(h, "2ELIFREP", 8);
	write_file(t, h, sizeof h);
	TEST_TRUE(!open_pd(t, err, sizeof err) && strstr(err, "byte order"));
	memcpy(h, "PERFFILE", 8);
	write_file(t, h, sizeof h);
	TEST_TRUE(!open_pd(t, err, sizeof err) && strstr(err, "version 1"));
	memcpy(h, "ELF\x7f\0\0\0\0", 8);
	write_file(t, h, sizeof h);
	TEST_TRUE(!open_pd(t, err, sizeof err) && strstr(err, "bad magic"));
	memcpy(h, "PERFILE2", 8);
	size = 99;
	memcpy(h + 8, &size, 8);
	write_file(t, h, sizeof h);
	TEST_TRUE(!open_pd(t, err, sizeof err) && strstr(err, "header size"));
	write_file(t, h, 0);
	TEST_TRUE(!open_pd(t, err, sizeof err) && strstr(err, "empty"));
	TEST_TRUE(!open_pd(tmp("missing"), err, sizeof err) && strstr(err, "cannot open"));
	TEST_TRUE(!open_pd(tmpdir, err, sizeof err) && strstr(err, "directory"));
	tmp_cleanup();
}

/* ---- synthetic recordings: perf's ordering ------------------------------------------- */

struct buf {
	uint8_t *p;
	size_t n, cap;
};

static void put(struct buf *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	memcpy(b->p + b->n, p, n);
	b->n += n;
}

#define SYN_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
		  PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD)

/* A synthetic recording: two software events, rounds or not, sample_id_all
 * or not; 40 stretches of records, or nr_stretches. */
struct syn {
	bool rounds, sid_all;
	int nr_stretches;
};

static struct perf_event_attr syn_attr(uint64_t config, bool sid_all)
{
	struct perf_event_attr a = { 0 };

	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof a;
	a.config = config;
	a.sample_period = 10000;
	a.sample_type = SYN_TYPE;
	a.sample_id_all = sid_all;
	return a;
}

/* IDENTIFIER, IP, TID, TIME, PERIOD */
static void put_sample(struct buf *b, uint64_t id, uint64_t time, uint32_t tid)
{
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 48 };
	uint64_t body[5] = { id, 0x400000 + time % 4096, (uint64_t)tid << 32 | tid, time, 1 };

	put(b, &h, sizeof h);
	put(b, body, sizeof body);
}

/* COMM {pid, tid, comm[16]}, with the trailer {pid/tid, time, identifier}. */
static void put_comm(struct buf *b, uint32_t tid, uint64_t time, bool sid_all)
{
	struct perf_event_header h = { PERF_RECORD_COMM, 0, (uint16_t)(sid_all ? 56 : 32) };
	uint32_t ids[2] = { tid, tid };
	uint64_t trailer[3] = { (uint64_t)tid << 32 | tid, time, 3 };

	put(b, &h, sizeof h);
	put(b, ids, sizeof ids);
	put(b, "worker\0\0\0\0\0\0\0\0\0", 16);
	if (sid_all)
		put(b, trailer, sizeof trailer);
}

static void put_round(struct buf *b)
{
	struct perf_event_header h = { 68, 0, 8 };

	put(b, &h, sizeof h);
}

/* Rounds of interleaved "CPUs" with jitter, late records, ties, time 0 and
 * side-band records. */
static void synth_records(struct buf *b, struct syn cfg)
{
	uint64_t t = 1000000;

	rnd_state = 12345;
	for (int round = 0; round < (cfg.nr_stretches ? cfg.nr_stretches : 40); round++) {
		for (int i = 0; i < 60; i++) {
			uint64_t jitter = rnd() % 5000, time = t + jitter;

			if (rnd() % 17 == 0)
				time = t > 30000 ? t - 30000 : t;       /* late: before last flush */
			if (rnd() % 29 == 0)
				time = 0;                               /* delivered at once */
			put_sample(b, 1 + rnd() % 4, time, 100 + (uint32_t)(rnd() % 3));
			if (rnd() % 5 == 0)                     /* a tie */
				put_sample(b, 1 + rnd() % 4, time, 200);
			if (rnd() % 20 == 0)
				put_comm(b, 100 + (uint32_t)(rnd() % 3), time, cfg.sid_all);
			t += rnd() % 700;
		}
		if (cfg.rounds && rnd() % 6)
			put_round(b);
	}
}

static void put_attr(struct buf *b, const struct perf_event_attr *a, const uint64_t *ids)
{
	struct perf_event_header h = { 64, 0, (uint16_t)(8 + sizeof *a + 16) };

	put(b, &h, sizeof h);
	put(b, a, sizeof *a);
	put(b, ids, 16);
}

static const uint64_t syn_ids[2][2] = { { 1, 2 }, { 3, 4 } };

/* The pipe-mode file, byte by byte. */
static void write_synthetic_pipe(const char *path, struct syn cfg)
{
	struct buf b = { 0 };
	uint64_t size = 16;
	struct perf_event_attr a0 = syn_attr(PERF_COUNT_SW_CPU_CLOCK, cfg.sid_all);
	struct perf_event_attr a1 = syn_attr(PERF_COUNT_SW_TASK_CLOCK, cfg.sid_all);

	put(&b, "PERFILE2", 8);
	put(&b, &size, 8);
	put_attr(&b, &a0, syn_ids[0]);
	put_attr(&b, &a1, syn_ids[1]);
	synth_records(&b, cfg);
	write_file(path, b.p, b.n);
	free(b.p);
}

/* The seekable file, through the writer. */
static void write_synthetic_file(const char *path, struct syn cfg)
{
	struct lp_pd_writer *w = lp_pd_writer_open(path);
	struct perf_event_attr a0 = syn_attr(PERF_COUNT_SW_CPU_CLOCK, cfg.sid_all);
	struct perf_event_attr a1 = syn_attr(PERF_COUNT_SW_TASK_CLOCK, cfg.sid_all);
	struct buf b = { 0 };

	TEST_TRUE(w != NULL);
	if (!w)
		return;
	TEST_EQ(lp_pd_writer_add_event(w, &a0, "cpu-clock", syn_ids[0], 2), 0);
	TEST_EQ(lp_pd_writer_add_event(w, &a1, "task-clock", syn_ids[1], 2), 0);
	synth_records(&b, cfg);
	for (size_t off = 0; off < b.n;) {
		struct perf_event_header h;

		memcpy(&h, b.p + off, sizeof h);
		TEST_EQ(lp_pd_writer_write(w, b.p + off), 0);
		off += h.size;
	}
	TEST_EQ(lp_pd_writer_close(w), 0);
	free(b.p);
}

/* perf orders pipe input always, a file only when its first event has
 * sample_id_all; rounds or not.  The last: 4 MiB of records and no round,
 * all of them queued until the end, in slices of several slabs of the
 * order arena (pdorder.c). */
static void synthetic_order_matches_perf(void)
{
	static const struct syn cfgs[] = {
		{ true, true, 0 }, { false, true, 0 }, { true, false, 0 }, { false, false, 0 },
		{ false, true, 1100 },
	};

	if (!have_perf()) {
		note("  skip: no perf\n");
		return;
	}
	for (size_t i = 0; i < sizeof cfgs / sizeof *cfgs; i++) {
		write_synthetic_pipe(tmp("syn_pipe.data"), cfgs[i]);
		TEST_TRUE(matches_perf(tmp("syn_pipe.data")));
		write_synthetic_file(tmp("syn_file.data"), cfgs[i]);
		TEST_TRUE(matches_perf(tmp("syn_file.data")));
	}
	tmp_cleanup();
}

/* The (type, time) of every record read from path, ordered or in file
 * order; at most max.  Returns how many. */
static size_t read_times(const char *path, bool unordered, uint64_t (*out)[2], size_t max)
{
	char err[512];
	struct lp_perfdata *pd = open_pd(path, err, sizeof err);
	struct lp_record rec;
	const struct lp_pd_event *ev;
	size_t n = 0;
	int r;

	TEST_TRUE(pd != NULL);
	if (!pd)
		return 0;
	if (unordered)
		TEST_EQ(lp_perfdata_unordered(pd), 0);
	while ((r = lp_perfdata_next(pd, &rec, &ev)) > 0 && n < max) {
		out[n][0] = rec.type;
		out[n++][1] = rec.has_sid ? rec.sid.time : 0;
	}
	TEST_EQ(lp_perfdata_unordered(pd), -EALREADY);        /* only before the first */
	TEST_TRUE(r >= 0);                                      /* no error */
	lp_perfdata_close(pd);
	return n;
}

static int cmp_times(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : x[1] != y[1] ? (x[1] < y[1] ? -1 : 1) : 0;
}

/* lp_perfdata_unordered: the same records as the ordered read, in the
 * order the file holds them (which that read does not keep). */
static void unordered_reads_file_order(void)
{
	enum { MAX = 8192 };
	static uint64_t ord[MAX][2], unord[MAX][2], file[MAX][2];
	struct buf b = { 0 };
	size_t nf = 0;

	write_synthetic_file(tmp("syn_unord.data"), (struct syn){ true, true });
	synth_records(&b, (struct syn){ true, true });
	for (size_t off = 0; off < b.n && nf < MAX;) {          /* the file's order */
		struct perf_event_header h;
		uint64_t t = 0;

		memcpy(&h, b.p + off, sizeof h);
		if (h.type == PERF_RECORD_SAMPLE)
			memcpy(&t, b.p + off + 8 + 24, 8);      /* IDENTIFIER, IP, TID, TIME */
		else if (h.type == PERF_RECORD_COMM)
			memcpy(&t, b.p + off + h.size - 16, 8); /* the trailer's time */
		if (h.type != 68) {                     /* FINISHED_ROUND is the reader's */
			file[nf][0] = h.type;
			file[nf++][1] = t;
		}
		off += h.size;
	}
	free(b.p);
	size_t no = read_times(tmp("syn_unord.data"), false, ord, MAX);
	size_t nu = read_times(tmp("syn_unord.data"), true, unord, MAX);
	TEST_EQ(nu, nf);
	TEST_EQ(no, nf);
	TEST_TRUE(nu == nf && !memcmp(unord, file, nf * sizeof file[0]));
	TEST_TRUE(no == nf && memcmp(ord, file, nf * sizeof file[0]) != 0);    /* it did sort */
	qsort(ord, no, sizeof ord[0], cmp_times);
	qsort(unord, nu, sizeof unord[0], cmp_times);
	TEST_TRUE(no == nu && !memcmp(ord, unord, nu * sizeof ord[0]));
	tmp_cleanup();
}

static void unknown_ids_are_skipped(void)
{
	struct buf b = { 0 };
	uint64_t size = 16, ids[2][2] = { { 1, 2 }, { 3, 4 } };
	struct perf_event_attr a0 = syn_attr(PERF_COUNT_SW_CPU_CLOCK, true);
	struct perf_event_attr a1 = syn_attr(PERF_COUNT_SW_TASK_CLOCK, true);
	struct lp_perfdata *pd;
	struct lp_record rec;
	const struct lp_pd_event *ev;
	char err[512];
	int n, got = 0;

	put(&b, "PERFILE2", 8);
	put(&b, &size, 8);
	put_attr(&b, &a0, ids[0]);
	put_attr(&b, &a1, ids[1]);
	put_sample(&b, 3, 100, 1);
	put_sample(&b, 77, 200, 1);     /* no such id */
	put_sample(&b, 1, 300, 1);
	write_file(tmp("unknown.data"), b.p, b.n);
	pd = open_pd(tmp("unknown.data"), err, sizeof err);
	TEST_TRUE(pd != NULL);
	if (!pd)
		return;
	TEST_EQ(lp_perfdata_nr_events(pd), 2);
	/* derived as perf does: exclude_guest == 0 is not the default, so "HG" */
	TEST_STREQ(lp_perfdata_event(pd, 0)->name, "cpu-clock:HG");
	TEST_STREQ(lp_perfdata_event(pd, 1)->name, "task-clock:HG");
	while ((n = lp_perfdata_next(pd, &rec, &ev)) > 0) {
		TEST_EQ(rec.type, PERF_RECORD_SAMPLE);
		TEST_TRUE(ev == lp_perfdata_event(pd, got == 0 ? 1 : 0));
		got++;
	}
	TEST_EQ(n, 0);
	TEST_EQ(got, 2);
	TEST_EQ(lp_perfdata_stats(pd)->nr_unknown_id, 1);
	lp_perfdata_close(pd);
	free(b.p);
	tmp_cleanup();
}

/* Samples delivered from path, and the final lp_perfdata_next value. */
static int count_samples(const char *path, size_t *nsamples, char *err, size_t errsz)
{
	struct lp_perfdata *pd = open_pd(path, err, errsz);
	struct lp_record rec;
	const struct lp_pd_event *ev;
	int n;

	*nsamples = 0;
	if (!pd)
		return -1;
	while ((n = lp_perfdata_next(pd, &rec, &ev)) > 0)
		*nsamples += rec.type == PERF_RECORD_SAMPLE;
	snprintf(err, errsz, "%s", n < 0 ? lp_last_error() : "");
	lp_perfdata_close(pd);
	return n;
}

/* A file cut inside its data section: every sample whose record ends
 * before the cut comes out, even those still waiting to be time-ordered
 * (no rounds here, so all of them), then one error at the cut record. */
static void cut_file_delivers_what_came_before(void)
{
	const char *path = strdup(tmp("cut_src.data")), *t = tmp("cut.data");
	size_t len, got;
	uint8_t *data;
	uint64_t doff, dsize;
	char err[512], want[64];

	write_synthetic_file(path, (struct syn){ false, true });
	data = read_file(path, &len);
	TEST_TRUE(data != NULL && len > 104);
	if (!data || len <= 104)
		return;
	memcpy(&doff, data + 40, 8);
	memcpy(&dsize, data + 48, 8);
	for (int k = 1; k <= 7; k++) {
		uint64_t cut = doff + dsize * (uint64_t)k / 8, off = doff, at = 0;
		size_t before = 0;

		while (off < doff + dsize) {            /* samples wholly before the cut */
			struct perf_event_header h;

			memcpy(&h, data + off, sizeof h);
			if (off + h.size > cut) {
				at = off;
				break;
			}
			before += h.type == PERF_RECORD_SAMPLE;
			off += h.size;
		}
		write_file(t, data, (size_t)cut);
		TEST_EQ(count_samples(t, &got, err, sizeof err), -EPROTO);
		TEST_EQ(got, before);
		TEST_TRUE(got > 0);
		snprintf(want, sizeof want, "offset %llu: ", (unsigned long long)at);
		TEST_TRUE(strstr(err, want) && strstr(err, "truncated"));
	}
	write_file(t, data, 100);                       /* inside the header */
	TEST_EQ(count_samples(t, &got, err, sizeof err), -1);
	TEST_TRUE(strstr(err, "cut.data: offset 0: ") != NULL);
	free(data);
	free((void *)(uintptr_t)path);
	tmp_cleanup();
}

/* ---- pipe mode from a real pipe ---------------------------------------------------------- */

/* Reads data through standard input ("-"), fed by a child through a pipe in
 * small writes (so the reader sees many partial reads).  Returns the final
 * lp_perfdata_next value, or -errno when open failed. */
static int read_via_stdin(const void *data, size_t len, struct rows *out)
{
	int fds[2], saved = dup(0), n;
	char err[512] = "";
	pid_t pid;

	if (pipe(fds))
		abort();
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		for (size_t off = 0; off < len;) {
			ssize_t k = write(fds[1], (const char *)data + off,
					  len - off < 3000 ? len - off : 3000);

			if (k <= 0)
				break;
			off += (size_t)k;
		}
		_exit(0);
	}
	close(fds[1]);
	dup2(fds[0], 0);
	close(fds[0]);
	n = our_rows("-", out, err, sizeof err);
	dup2(saved, 0);
	close(saved);
	waitpid(pid, NULL, 0);
	return n;
}

static int rows_via_stdin(const char *file, struct rows *out)
{
	size_t len;
	void *data = read_file(file, &len);
	int n = data ? read_via_stdin(data, len, out) : -ENOENT;

	free(data);
	return n;
}

/* A seekable file cannot come through a pipe (clear error), but can come
 * through a redirect (standard input is then a regular file). */
static void seekable_on_stdin(void)
{
	struct rows a = { 0 }, b = { 0 };
	char err[512] = "";
	const char *file = cpath("perf.data.callgraph-3.8");
	int saved = dup(0), fd = open(file, O_RDONLY);

	TEST_TRUE(rows_via_stdin(file, &a) < 0);
	TEST_TRUE(fd >= 0);
	if (fd < 0)
		return;
	dup2(fd, 0);
	close(fd);
	TEST_EQ(our_rows("-", &b, err, sizeof err), 0);
	dup2(saved, 0);
	close(saved);
	TEST_EQ(b.n, 1768);
	rows_free(&a);
	rows_free(&b);
}

static void stdin_pipe_equals_mapped(void)
{
	static const char *const files[] = {
		"perf.data.piped.target-3.8", "perf.data.piped.header_features-4.16",
		"perf.data.piped.intel_pt-4.14", "perf.data.piped.hw_and_sw-3.4",
	};

	if (!corpus()) {
		note("  skip: no corpus\n");
		return;
	}
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		struct rows a = { 0 }, b = { 0 };
		char err[512];

		TEST_EQ(our_rows(cpath(files[i]), &a, err, sizeof err), 0);
		TEST_EQ(rows_via_stdin(cpath(files[i]), &b), 0);
		TEST_EQ(a.n, b.n);
		TEST_TRUE(a.n == b.n && !memcmp(a.v, b.v, a.n * sizeof *a.v));
		rows_free(&a);
		rows_free(&b);
	}
	seekable_on_stdin();
}

static void pipe_header_facts(void)
{
	char err[512];
	struct lp_perfdata *pd;
	const struct lp_pd_info *in;

	if (!corpus()) {
		note("  skip: no corpus\n");
		return;
	}
	pd = open_pd(cpath("perf.data.piped.header_features-4.16"), err, sizeof err);
	TEST_TRUE(pd != NULL);
	if (!pd)
		return;
	in = lp_perfdata_info(pd);     /* complete after open: features precede data */
	TEST_STREQ(in->hostname, "instance-1");
	TEST_STREQ(in->os_release, "4.4.0-116-generic");
	TEST_STREQ(in->arch, "x86_64");
	TEST_EQ(in->nr_cpus_online, 2);
	TEST_EQ(in->total_mem, 7659268);
	TEST_TRUE(in->nr_cmdline >= 1);
	TEST_STREQ(in->cmdline[0], "/tmp/perf");
	TEST_EQ(lp_perfdata_nr_events(pd), 1);
	TEST_STREQ(lp_perfdata_event(pd, 0)->name, "cpu-clock");   /* from EVENT_UPDATE */
	TEST_EQ(lp_perfdata_event(pd, 0)->nr_ids, 2);
	lp_perfdata_close(pd);
}

/* ---- compressed recordings ------------------------------------------------------------------ */

/* --no-bpf-event: perf 6.1's side-band thread for BPF events, otherwise
 * started, polls with a 1 s timeout it is not woken from at the end (each
 * perf record went on for up to a second past its workload;
 * tests/e2e/lib.sh). */
static bool perf_record(const char *args, const char *out)
{
	char cmd[1200];

	snprintf(cmd, sizeof cmd, "perf record --no-bpf-event -q -z -e cpu-clock -F 4000 %s -- "
		 "sh -c 'i=0; while [ $i -lt 60000 ]; do i=$((i+1)); done' >%s 2>/dev/null",
		 args, out);
	return system(cmd) == 0;
}

static void compressed_recordings_match_perf(void)
{
	const char *file = tmp("z.data"), *pipe_file = tmp("zpipe.data");
	char args[700];

	if (!have_perf()) {
		note("  skip: no perf\n");
		return;
	}
	snprintf(args, sizeof args, "-g -o '%s'", file);
	if (!perf_record(args, "/dev/null") || !perf_record("-o -", pipe_file)) {
		note("  skip: perf record is not allowed here\n");
		tmp_cleanup();
		return;
	}
	TEST_TRUE(matches_perf(file));
	TEST_TRUE(matches_perf(pipe_file));
	truncate_at_many_offsets(file);         /* the zstd path under hostile input */
	flip_bytes(file, 100);
	flip_bytes(pipe_file, 100);
	tmp_cleanup();
}

/* ---- writer ------------------------------------------------------------------------------------ */

/* Copies src through the reader and the writer into dst. */
static void copy_through_writer(const char *src, const char *dst)
{
	char err[512];
	struct lp_perfdata *pd = open_pd(src, err, sizeof err);
	struct lp_pd_writer *w = lp_pd_writer_open(dst);
	struct lp_record rec;
	const struct lp_pd_event *ev;
	int n;

	TEST_TRUE(pd && w);
	if (!pd || !w)
		return;
	for (size_t i = 0; i < lp_perfdata_nr_events(pd); i++) {
		const struct lp_pd_event *e = lp_perfdata_event(pd, i);

		TEST_EQ(lp_pd_writer_add_event(w, &e->attr, e->name, e->ids, e->nr_ids), 0);
	}
	TEST_EQ(lp_pd_writer_set_info(w, lp_perfdata_info(pd)), 0);
	while ((n = lp_perfdata_next(pd, &rec, &ev)) > 0)
		TEST_EQ(lp_pd_writer_write(w, rec.data), 0);
	TEST_EQ(n, 0);
	TEST_EQ(lp_pd_writer_close(w), 0);
	lp_perfdata_close(pd);
}

/* Both files give the same records, byte for byte, in the same order. */
static void same_records(const char *a, const char *b)
{
	char err[512];
	struct lp_perfdata *pa = open_pd(a, err, sizeof err);
	struct lp_perfdata *pb = open_pd(b, err, sizeof err);
	struct lp_record ra, rb;
	const struct lp_pd_event *ea, *eb;
	int na, nb;
	size_t k = 0;

	TEST_TRUE(pa && pb);
	while (pa && pb) {
		na = lp_perfdata_next(pa, &ra, &ea);
		nb = lp_perfdata_next(pb, &rb, &eb);
		TEST_EQ(na, nb);
		if (na <= 0 || na != nb)
			break;
		if (ra.size != rb.size || memcmp(ra.data, rb.data, ra.size) ||
		    strcmp(ea ? ea->name : "", eb ? eb->name : "")) {
			fprintf(stderr, "  record %zu differs\n", k);
			test_failed_ = 1;
			break;
		}
		k++;
	}
	lp_perfdata_close(pa);
	lp_perfdata_close(pb);
}

static void writer_copy_reads_back(void)
{
	const char *src, *dst = tmp("copy.data");
	char *hdr, *errs, cmd[4600];

	if (!corpus() || !have_perf()) {
		note("  skip: no corpus or no perf\n");
		return;
	}
	src = strdup(cpath("perf.data.callgraph-3.8"));
	copy_through_writer(src, dst);
	TEST_TRUE(matches_perf(dst));
	same_records(src, dst);
	snprintf(cmd, sizeof cmd, "perf report -f --header-only -i '%s' 2>/dev/null", dst);
	hdr = perf_output(cmd);
	TEST_TRUE(strstr(hdr, "# hostname : ") != NULL);
	TEST_TRUE(strstr(hdr, "# os release : 3.8.11") != NULL);
	TEST_TRUE(strstr(hdr, "# event : name = cycles,") != NULL);
	TEST_TRUE(strstr(hdr, "# cmdline : /usr/sbin/perf record") != NULL);
	snprintf(cmd, sizeof cmd, "perf report -f --header-only -i '%s' 2>&1 >/dev/null", dst);
	errs = perf_output(cmd);
	TEST_TRUE(!strstr(errs, "arn") && !strstr(errs, "rror") && !strstr(errs, "ailed"));
	free(hdr);
	free(errs);
	free((void *)(uintptr_t)src);
	tmp_cleanup();
}

static void writer_pipe_to_file(void)
{
	const char *dst = tmp("copy2.data");
	char *src;

	if (!corpus() || !have_perf()) {
		note("  skip: no corpus or no perf\n");
		return;
	}
	src = strdup(cpath("perf.data.piped.header_features_aligned-6.12"));
	copy_through_writer(src, dst);
	TEST_TRUE(matches_perf(dst));
	same_records(src, dst);
	free(src);
	tmp_cleanup();
}

static void writer_defaults_and_backup(void)
{
	const char *dst = strdup(tmp("w.data"));
	struct perf_event_attr a = syn_attr(PERF_COUNT_SW_CPU_CLOCK, true);
	struct lp_pd_writer *w;
	struct lp_perfdata *pd;
	struct stat st;
	char err[512], old[600];
	uint64_t id = 1;

	for (int pass = 0; pass < 2; pass++) {
		w = lp_pd_writer_open(dst);
		TEST_TRUE(w != NULL);
		if (!w)
			return;
		TEST_EQ(lp_pd_writer_add_event(w, &a, "cpu-clock", &id, 1), 0);
		TEST_EQ(lp_pd_writer_close(w), 0);
	}
	snprintf(old, sizeof old, "%s.old", dst);
	TEST_EQ(stat(old, &st), 0);             /* the first file was kept as .old */
	pd = open_pd(dst, err, sizeof err);
	TEST_TRUE(pd != NULL);
	if (pd) {
		TEST_TRUE(lp_perfdata_info(pd)->hostname && lp_perfdata_info(pd)->hostname[0]);
		TEST_TRUE(lp_perfdata_info(pd)->nr_cpus_online > 0);
		TEST_EQ(lp_perfdata_nr_events(pd), 1);
		lp_perfdata_close(pd);
	}
	w = lp_pd_writer_open(dst);
	TEST_TRUE(w && lp_pd_writer_close(w) == -EINVAL);      /* no events */
	free((void *)(uintptr_t)dst);
	tmp_cleanup();
}

/* The first bytes of path as a string ("" when unreadable). */
static const char *text_of(const char *path)
{
	static char buf[64];
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = '\0';
	return buf;
}

/* The entries of this test's temp dir. */
static int entries(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)))
		n += de->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

/* lp_pd_writer_create writes where no one sees it: discarded, it leaves
 * path, path.old and the directory as they were; placed, path is kept as
 * path.old (an empty path is replaced instead).  Nothing but a regular
 * file is written to, and nothing but a regular file or a link renamed
 * over. */
static void writer_places_only_when_started(void)
{
	char *dst = strdup(tmp("p.data")), *old = strdup(tmp("p.data.old"));
	char *odd = strdup(tmp("odd.data")), *odd_old = strdup(tmp("odd.data.old"));
	struct perf_event_attr a = syn_attr(PERF_COUNT_SW_CPU_CLOCK, true);
	struct lp_pd_writer *w;
	uint64_t id = 1;
	mode_t mode;
	bool is_old;

	write_file(dst, "earlier", 7);
	write_file(old, "oldest", 6);
	w = lp_pd_writer_create(dst);
	TEST_TRUE(w != NULL);
	TEST_EQ(lp_pd_writer_add_event(w, &a, "cpu-clock", &id, 1), 0);
	lp_pd_writer_discard(w);
	TEST_STREQ(text_of(dst), "earlier");
	TEST_STREQ(text_of(old), "oldest");
	TEST_EQ(entries(), 2);

	w = lp_pd_writer_create(dst);
	TEST_TRUE(w != NULL);
	TEST_EQ(lp_pd_writer_add_event(w, &a, "cpu-clock", &id, 1), 0);
	TEST_STREQ(text_of(dst), "earlier");    /* not placed yet */
	TEST_EQ(lp_pd_writer_place(w), 0);
	TEST_EQ(lp_pd_writer_close(w), 0);
	TEST_STREQ(text_of(old), "earlier");
	TEST_EQ(memcmp(text_of(dst), "PERFILE2", 8), 0);

	write_file(dst, "", 0);                 /* empty: replaced, .old kept */
	w = lp_pd_writer_open(dst);
	TEST_TRUE(w != NULL);
	TEST_EQ(lp_pd_writer_add_event(w, &a, "cpu-clock", &id, 1), 0);
	TEST_EQ(lp_pd_writer_close(w), 0);
	TEST_STREQ(text_of(old), "earlier");
	TEST_EQ(entries(), 2);

	TEST_EQ(mkfifo(odd, 0600), 0);          /* a FIFO at path */
	TEST_EQ(lp_pd_writer_check(odd, &is_old, &mode), -EEXIST);
	TEST_TRUE(!is_old && S_ISFIFO(mode));
	errno = 0;
	TEST_TRUE(lp_pd_writer_create(odd) == NULL && errno == EEXIST);
	TEST_TRUE(lp_pd_writer_open(odd) == NULL && errno == EEXIST);
	TEST_EQ(rename(odd, odd_old), 0);       /* a FIFO at path.old */
	write_file(odd, "earlier", 7);
	TEST_EQ(lp_pd_writer_check(odd, &is_old, &mode), -EEXIST);
	TEST_TRUE(is_old && S_ISFIFO(mode));
	TEST_TRUE(lp_pd_writer_open(odd) == NULL && errno == EEXIST);
	TEST_STREQ(text_of(odd), "earlier");
	struct stat st;
	TEST_TRUE(!lstat(odd_old, &st) && S_ISFIFO(st.st_mode));
	TEST_EQ(lp_pd_writer_check(tmpdir, &is_old, &mode), -EEXIST);  /* a directory */
	TEST_TRUE(S_ISDIR(mode));
	free(dst);
	free(old);
	free(odd);
	free(odd_old);
	tmp_cleanup();
}

TEST_MAIN("perfdata",
	  TEST_CASE(corpus_matches_perf_script),
	  TEST_CASE(corpus_header_facts),
	  TEST_CASE(build_ids_equal_perf),
	  TEST_CASE(corrupted_file_is_refused),
	  TEST_CASE(read_ahead_equals_plain),
	  TEST_CASE(truncations_and_flips_end_cleanly),
	  TEST_CASE(bad_magic_and_header),
	  TEST_CASE(synthetic_order_matches_perf),
	  TEST_CASE(unordered_reads_file_order),
	  TEST_CASE(unknown_ids_are_skipped),
	  TEST_CASE(cut_file_delivers_what_came_before),
	  TEST_CASE(stdin_pipe_equals_mapped),
	  TEST_CASE(pipe_header_facts),
	  TEST_CASE(compressed_recordings_match_perf),
	  TEST_CASE(writer_copy_reads_back),
	  TEST_CASE(writer_pipe_to_file),
	  TEST_CASE(writer_defaults_and_backup),
	  TEST_CASE(writer_places_only_when_started))
