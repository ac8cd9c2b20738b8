/*
 * bidfind.c - the file an object of a recording is read from: only one with
 * the build-id the recording gives for it, so that a program rebuilt or a
 * library upgraded since the recording is not named with symbols it did not
 * have then.
 *
 * Candidates in perf's order (dso__load): perf's build-id cache first (the
 * copy perf record kept), then the object at its path on this machine
 * (this process's vDSO for "[vdso]").  Each candidate's own build-id is
 * read and compared; the first that matches is used, and its symbols
 * completed from a separate debug file of that build-id when it has only
 * .dynsym.  A separate debug file alone is not used as the object: its
 * segments have lost their file offsets, which samples are mapped through.
 * A copy from the cache keeps the object's own place (lp_dso_set_origin):
 * its .gnu_debuglink file is looked for beside the object, not the copy,
 * as perf's DSO_BINARY_TYPE__DEBUGLINK does from the dso's name.
 *
 * For the kernel, the kallsyms copy perf record cached (a plain file: much
 * faster to read than /proc/kallsyms, which the kernel formats as it is
 * read) when it places the kernel where the recording does (its reference
 * symbol, _text, at the address of the recording's kernel map: the build-id
 * names the kernel build, KASLR moves it at every boot) and it is not older
 * than this boot's kernel, whose modules may differ; else /proc/kallsyms
 * when the running kernel is the recorded one (/sys/kernel/notes), else
 * any copy perf cached.
 *
 * When nothing matches, the object's frames stay unnamed and one warning
 * says why, the first time the object is needed.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

#include "luaprof/luaprof.h"
#include "sym/sym_int.h"

#define KERNEL_NOTES "/sys/kernel/notes"

static bool matches(const struct lp_dso *d, const struct lp_bid_want *w)
{
	const uint8_t *id;
	size_t n = lp_dso_build_id(d, &id);

	return lp_build_id_equal(w->id, w->size, id, n);
}

/* The first copy in perf's build-id cache that has the build-id, or NULL. */
static struct lp_dso *open_cached(const struct lp_bid_want *w, const char *base)
{
	char path[PATH_MAX];

	for (unsigned i = 0; lp_build_id_cache_file(w->id, w->size, base, i, path, sizeof path); i++) {
		struct lp_dso *d = lp_dso_open(path);
		if (d && matches(d, w))
			return d;
		lp_dso_free(d);
	}
	return NULL;
}

/* .symtab from the debug file perf cached, when the object has none. */
static void cached_debug(struct lp_dso *d, const struct lp_bid_want *w)
{
	char path[PATH_MAX];

	for (unsigned i = 0; !lp_dso_has_symtab(d) &&
	     lp_build_id_cache_file(w->id, w->size, "debug", i, path, sizeof path); i++)
		lp_dso_load_debug_file(d, path);
}

/* The one line saying why the object's frames are unnamed.  local: what this
 * machine has under the object's name (NULL: nothing readable). */
static void warn(const char *path, struct lp_bid_want *w, const struct lp_dso *local,
		 bool vdso)
{
	char want[2 * LP_BUILD_ID_SIZE + 1], have[2 * LP_BUILD_ID_SIZE + 1];
	const uint8_t *id;
	size_t n = local ? lp_dso_build_id(local, &id) : 0;

	if (w->warned)
		return;
	w->warned = true;
	lp_build_id_hex(w->id, w->size, want);
	if (!local)
		lp_log(LP_WARN, "%s: build-id %s in the recording, no file with it on this "
		       "machine; its frames are left unnamed (replay where it was recorded)",
		       LP_SHOW(path), want);
	else
		lp_log(LP_WARN, "%s: build-id %s in the recording, %s %s; its frames are left "
		       "unnamed (%s)", LP_SHOW(path), want, n ? lp_build_id_hex(id, n, have) : "none",
		       vdso ? "in this kernel's vDSO" : "on disk",
		       vdso ? "replay where it was recorded" :
		       "rebuild it, or replay where it was recorded");
}

struct lp_dso *lp_dso_open_recorded(const char *path, struct lp_bid_want *w)
{
	bool vdso = !strcmp(path, "[vdso]");
	struct lp_dso *d = open_cached(w, vdso ? "vdso" : "elf"), *local = NULL;

	if (!d && (local = lp_dsos_open_local(path)) && matches(local, w)) {
		d = local;
		local = NULL;
	}
	char rooted[PATH_MAX];
	if (d && !vdso && lp_map_path_is_file(path) && lp_symfs_path(path, rooted, sizeof rooted) &&
	    strcmp(rooted, lp_dso_path(d)) && lp_dso_set_origin(d, rooted)) {
		lp_dso_free(d);
		lp_dso_free(local);
		errno = ENOMEM;
		return NULL;
	}
	if (d) {
		cached_debug(d, w);
		return d;
	}
	warn(path, w, local, vdso);
	lp_dso_free(local);
	errno = ENOENT;
	return NULL;
}

/* Whether the kallsyms-format file path puts the symbol ref at addr. */
static bool agrees(const char *path, const struct lp_kref *ref)
{
	uint64_t addr;

	return lp_kallsyms_lookup(path, &ref->name, &addr, 1) == 1 && addr == ref->addr;
}

/* The copy in perf's cache that has the recorded kernel where the
 * recording had it, and may stand for /proc/kallsyms: the running kernel
 * is another (same: false), or the copy was made since boot, or the
 * recording was made in another boot (/proc/kallsyms disagrees).  Into buf;
 * false when there is none. */
static bool cached_placed(struct lp_bid_want *w, const struct lp_kref *ref, bool same,
			  const char *dflt, char *buf, size_t size)
{
	struct stat st;

	for (unsigned i = 0; ref && lp_build_id_cache_file(w->id, w->size, "kallsyms", i, buf, size);
	     i++)
		if (!stat(buf, &st) && S_ISREG(st.st_mode) && agrees(buf, ref) &&
		    (!same || lp_since_boot(&st) || !agrees(dflt, ref)))
			return true;
	return false;
}

/* Whether the running kernel's build-id is w's; *n gets its length (0:
 * unknown). */
static bool running(const struct lp_bid_want *w, uint8_t *run, size_t *n)
{
	*n = lp_kernel_build_id(KERNEL_NOTES, run, LP_BUILD_ID_SIZE);
	return *n && lp_build_id_equal(w->id, w->size, run, *n);
}

const char *lp_kallsyms_recorded(struct lp_bid_want *w, const struct lp_kref *ref,
				 const char *dflt, char *buf, size_t size)
{
	char want[2 * LP_BUILD_ID_SIZE + 1], have[2 * LP_BUILD_ID_SIZE + 1];
	uint8_t run[LP_BUILD_ID_SIZE];
	size_t n;
	bool same = running(w, run, &n);
	struct stat st;

	if (cached_placed(w, ref, same, dflt, buf, size))
		return buf;
	if (!n)
		lp_log(LP_DEBUG, "sym: %s: no build-id: kernel not checked", KERNEL_NOTES);
	if (!n || same)
		return dflt;
	for (unsigned i = 0; lp_build_id_cache_file(w->id, w->size, "kallsyms", i, buf, size); i++)
		if (!stat(buf, &st) && S_ISREG(st.st_mode))
			return buf;
	if (!w->warned)
		lp_log(LP_WARN, "[kernel.kallsyms]: build-id %s in the recording, %s running; "
		       "its frames are left unnamed (replay where it was recorded)",
		       lp_build_id_hex(w->id, w->size, want), lp_build_id_hex(run, n, have));
	w->warned = true;
	return NULL;
}

const char *lp_kallsyms_refused(struct lp_bid_want *w, const struct lp_kref *ref,
				const char *dflt, const char *copy, const char *why)
{
	uint8_t run[LP_BUILD_ID_SIZE];
	size_t n;
	bool use = running(w, run, &n) && (!ref || agrees(dflt, ref));

	if (use)
		lp_log(LP_WARN, "[kernel.kallsyms]: %s is not used: %s; reading %s (the recorded "
		       "kernel is running)", copy, why, dflt);
	else
		lp_log(LP_WARN, "[kernel.kallsyms]: %s is not used: %s; its frames are left unnamed "
		       "(replay where it was recorded, since its boot)", copy, why);
	w->warned = true;
	return use ? dflt : NULL;
}
