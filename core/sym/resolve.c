/*
 * resolve.c - (process, ip) -> lp_frame.
 *
 * User addresses: the process's map containing ip (lp_proc_find_map), the
 * map's object from the lp_dsos cache (keyed by path and inode; the map's
 * own dso slot is left alone, so that several resolvers may share one
 * process model), file offset = ip - map start + pgoff, converted to an ELF
 * virtual address through the object's PT_LOAD segments, then the object's
 * symbol table.  Kernel addresses: the recording's kernel maps, then
 * kallsyms, loaded on the first one (through the cache of parsed tables,
 * kcache.c), or the name of the map a KSYMBOL record made.
 * Replaying, the recorded build-ids choose the files (bidfind.c), once per
 * object.
 *
 * The object of the last map is remembered (map paths are interned by
 * lp_procs, so the path pointer identifies it), which skips the dsos hash
 * for runs of addresses in one object.
 *
 * A direct-mapped cache of 4096 results keyed by (proc, pid, maps
 * generation, ip, kernel) skips all of that for repeated addresses, the
 * common case in a profile; kernel frames are keyed by the generation of
 * the kernel's maps.  Behind it, a second one keyed by what alone names a
 * user frame in a file: the file (path, device, inode) and the offset in
 * it, which the processes of one program share where ASLR maps each
 * elsewhere (the hundreds of compilers of a build); maps of anonymous
 * memory (JIT code, named by each process's perf map) are not in it.
 * proc->gen changes whenever the maps change, so an entry never outlives
 * the maps it was computed from, and lp_procs frees no proc before
 * lp_procs_free(), so a proc address is not reused.  Cached strings
 * belong to the dsos cache, the kernel table and the process model (the
 * names of KSYMBOL maps), which live as long as the resolver.
 *
 * C++ and Rust names are demangled when first returned, once per symbol
 * (a table keyed by the symbol's name pointer), and the raw name kept.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "luaprof/luaprof.h"
#include "luaprof/proc.h"
#include "sym/sym_int.h"
#include "util/htab.h"

#ifndef FCACHE_BITS     /* make fuzz builds with a smaller one: see the Makefile */
#define FCACHE_BITS 12
#endif
#define FCACHE_SIZE (1u << FCACHE_BITS)
#define KERNEL_DSO "[kernel.kallsyms]"

#define BYFILE_BITS 12

/* The second cache's entry: a frame's result by file and offset. */
struct byfile_ent {
	const char *path;               /* NULL: empty */
	uint64_t dev, ino, off;
	const char *sym, *dso, *mangled;
	uint64_t symoff, vaddr;
	const struct lp_dso *obj;
	bool object;
};

struct fcache_ent {
	const struct lp_proc *proc;     /* NULL for kernel and unknown-process frames */
	uint64_t ip;
	uint32_t pid, gen;
	bool valid, kernel, object, ksymbol;
	const char *sym, *dso, *mangled;
	uint64_t symoff;
	const struct lp_dso *obj;
	uint64_t vaddr, fileoff;
};

/* The object of the last map looked up.  Keyed by the path pointer: map
 * paths are interned by lp_procs, so one pointer is one path for as long as
 * the model lives, which is longer than the resolver. */
struct last_obj {
	const char *path;
	uint32_t maj, min;
	uint64_t ino;
	struct lp_dso *dso;
	const char *name;
};

struct lp_resolver {
	struct lp_procs *procs;
	struct lp_dsos *dsos;
	struct last_obj last;
	struct lp_kernel *kernel;
	char *kallsyms;
	bool kernel_tried, kernel_hidden, cache_on;
	bool kallsyms_default;          /* reading /proc/kallsyms: the running kernel */
	uint64_t hits, misses;
	struct fcache_ent *cache;
	struct byfile_ent *byfile;      /* 1 << BYFILE_BITS, made on first use */
	struct lp_perfmaps *perfmaps;   /* JIT symbol files, read on first use */
	struct lp_htab *dm;             /* raw name pointer -> its demangled
					 * name (owned), 0 when it does not
					 * demangle */
};

struct lp_resolver *lp_resolver_new(struct lp_procs *procs, const char *kallsyms)
{
	struct lp_resolver *r = calloc(1, sizeof *r);

	if (!r)
		return NULL;
	r->procs = procs;
	r->cache_on = true;
	r->dsos = lp_dsos_new();
	r->kallsyms = strdup(kallsyms ? kallsyms : "/proc/kallsyms");
	r->kallsyms_default = !kallsyms;
	r->cache = calloc(FCACHE_SIZE, sizeof *r->cache);
	r->dm = lp_htab_new(NULL, NULL, NULL);
	if (!r->dsos || !r->kallsyms || !r->cache || !r->dm) {
		lp_resolver_free(r);
		errno = ENOMEM;
		return NULL;
	}
	return r;
}

void lp_resolver_free(struct lp_resolver *r)
{
	if (!r)
		return;
	lp_dsos_free(r->dsos);
	lp_kernel_free(r->kernel);
	free(r->kallsyms);
	free(r->cache);
	free(r->byfile);
	const struct lp_htab_ent *e;
	for (size_t it = 0; r->dm && (e = lp_htab_next(r->dm, &it));)
		free((char *)(uintptr_t)e->val);
	lp_htab_free(r->dm);
	lp_perfmaps_free(r->perfmaps);
	free(r);
}

/* Sets out->sym to name, demangled when it is a C++ or Rust name (then
 * out->mangled is name).  Demangles each name once. */
static void set_name(struct lp_resolver *r, const char *name, struct lp_frame *out)
{
	out->sym = name;
	if (!lp_is_mangled(name))
		return;
	bool added;
	struct lp_htab_ent *e = lp_htab_add(r->dm, (uint64_t)(uintptr_t)name, &added);
	if (!e)
		return;
	if (added)
		e->val = (uint64_t)(uintptr_t)lp_demangle(name);
	if (e->val) {
		out->sym = (const char *)(uintptr_t)e->val;
		out->mangled = name;
	}
}

/* Where the recording had the kernel: the kernel map perf record writes,
 * "[kernel.kallsyms]_text" with pgoff the address of _text (or _stext);
 * false when there is none. */
static bool kernel_ref(struct lp_resolver *r, struct lp_kref *ref)
{
	const struct lp_proc *k = r->procs ? lp_procs_kernel(r->procs) : NULL;
	size_t len = strlen(KERNEL_DSO);

	for (uint32_t i = 0; k && i < k->nr_maps; i++) {
		const char *path = k->maps[i].path;
		if (path && !strncmp(path, KERNEL_DSO, len) && path[len]) {
			*ref = (struct lp_kref){ path + len, k->maps[i].pgoff };
			return true;
		}
	}
	return false;
}

/* The recording's kernel (NULL: none, or the resolver's kallsyms was
 * given), and where the recording had it (*ref; *has_ref). */
static struct lp_bid_want *recorded_kernel(struct lp_resolver *r, struct lp_kref *ref,
					   bool *has_ref)
{
	*has_ref = kernel_ref(r, ref);
	return r->kallsyms_default ? lp_dsos_expected(r->dsos, KERNEL_DSO) : NULL;
}

/* The kallsyms table: the resolver's file's, or for a recording the copy
 * perf cached when it fits (path then in buf), the copy refused when it
 * does not look whole (lp_kernel_flaw) for what stands in.  NULL with
 * errno when there is none. */
static struct lp_kernel *kernel_table(struct lp_resolver *r, char *buf, size_t n,
				      const char **path, bool *hidden)
{
	char cache[PATH_MAX];
	const char *dir = lp_kcache_dir(cache, sizeof cache) ? cache : NULL;
	struct lp_kref ref;
	bool has_ref;
	struct lp_bid_want *w = recorded_kernel(r, &ref, &has_ref);

	*path = w ? lp_kallsyms_recorded(w, has_ref ? &ref : NULL, r->kallsyms, buf, n) : r->kallsyms;
	struct lp_kernel *k = *path ? lp_kernel_load_cached(*path, dir, hidden) : NULL;
	const char *why = k && *path == buf ? lp_kernel_flaw(k) : NULL;
	if (!why)
		return k;
	*path = lp_kallsyms_refused(w, has_ref ? &ref : NULL, r->kallsyms, buf, why);
	lp_kernel_free(k);
	*hidden = false;
	return *path ? lp_kernel_load_cached(*path, dir, hidden) : NULL;
}

/* Loads kallsyms once; a failure (other than ENOMEM) is final. */
static int load_kernel(struct lp_resolver *r)
{
	bool hidden = false;
	char buf[PATH_MAX];
	const char *path;

	r->kernel = kernel_table(r, buf, sizeof buf, &path, &hidden);
	if (path && !r->kernel && errno == ENOMEM)
		return -ENOMEM;
	r->kernel_tried = true;
	r->kernel_hidden = hidden;
	if (path && !r->kernel)
		lp_log(LP_WARN, "sym: kernel symbols: %s: %s", LP_SHOW(path), strerror(errno));
	return 0;
}

int lp_resolver_load_kernel(struct lp_resolver *r)
{
	return r->kernel_tried ? 0 : load_kernel(r);
}

/* A frame in kernel code a KSYMBOL record registered (map m): the map's
 * name is its object's and its one symbol's, as perf names it. */
static void resolve_ksymbol(const struct lp_map *m, uint64_t ip, struct lp_frame *out)
{
	out->sym = m->path;
	out->dso = m->path;
	out->symoff = ip - m->start;
	out->ksymbol = true;
	out->same_lo = m->start;
	out->same_hi = m->end;
}

/* A kernel-mode address: named from kallsyms, in [kernel.kallsyms] or a
 * module, or by its KSYMBOL map.  Where the recording has kernel maps,
 * perf names an address in none only by a symbol of the kernel's own
 * (its text map reaches to its last symbol: the init text after _etext
 * is named); a module's symbol needs the module's map (perf drops those
 * of modules it has no map of, as of the [bpf] and [__builtin_ftrace]
 * pseudo-modules), so a BPF program's address recorded without its
 * KSYMBOL record (perf --no-bpf-event) is in no object, named or not,
 * and perf prints it "[unknown] ([unknown])".  So is any address below
 * the upper half (a user address in a chain's kernel part, as a sample
 * in execve can give).  Without recorded kernel maps (a live run, whose
 * model has KSYMBOL maps at most, a recording without them), kallsyms
 * names what no KSYMBOL map does. */
static int resolve_kernel(struct lp_resolver *r, uint64_t ip, struct lp_frame *out)
{
	const char *dso = NULL;

	if (!(ip >> 63))
		return 0;
	const struct lp_map *m = r->procs ? lp_proc_find_map(lp_procs_kernel(r->procs), ip) : NULL;
	if (m && m->ksymbol) {
		resolve_ksymbol(m, ip, out);
		return 0;
	}
	bool recorded = r->procs && lp_procs_kernel_recorded(r->procs);
	if (!r->kernel_tried && load_kernel(r))
		return -ENOMEM;
	uint64_t lo, hi;
	const struct lp_sym *s = r->kernel ? lp_kernel_find_span(r->kernel, ip, &dso, &lo, &hi)
					   : NULL;
	if (recorded && !m && !(s && !strcmp(dso, KERNEL_DSO)))
		return 0;
	out->dso = KERNEL_DSO;
	if (r->kernel && lo <= ip && ip < hi) {
		if (m) {        /* named alike within the map */
			lo = lo > m->start ? lo : m->start;
			hi = hi < m->end ? hi : m->end;
		}
		out->same_lo = lo >> 63 ? lo : 1ull << 63;      /* kernel addresses only */
		out->same_hi = hi;
	}
	if (s) {
		out->sym = s->name;
		out->dso = dso;
		out->symoff = ip - s->start;
	}
	return 0;
}

/* Sets r->last to the object of map m.  0 or -ENOMEM. */
static int map_object(struct lp_resolver *r, const struct lp_map *m, uint32_t pid)
{
	struct last_obj *l = &r->last;

	if (l->path && l->path == m->path && l->ino == m->ino && l->maj == m->maj &&
	    l->min == m->min)
		return 0;
	l->path = NULL;
	if (lp_dsos_lookup_pid(r->dsos, m, pid, &l->dso, &l->name))
		return -ENOMEM;
	l->path = m->path;
	l->maj = m->maj;
	l->min = m->min;
	l->ino = m->ino;
	return 0;
}

/* Whether m is anonymous memory that may hold JIT code, as perf tells it
 * (it names such maps from /tmp/perf-PID.map). */
static bool jit_map(const struct lp_map *m)
{
	const char *p = m->path;
	return p && (!strcmp(p, "//anon") || !strncmp(p, "/dev/zero", 9) ||
		     !strncmp(p, "/anon_hugepage", 14) || !strncmp(p, "[anon:", 6));
}

/* Whether perf places addresses of m as they are, not as offsets in a
 * file (its map__new gives "no dso" memory identity__map_ip): the stack,
 * the heap, SysV shared memory (and anonymous memory: jit_map). */
static bool identity_map(const struct lp_map *m)
{
	const char *p = m->path;
	return p && (!strncmp(p, "[stack", 6) || !strncmp(p, "/SYSV", 5) || !strcmp(p, "[heap]"));
}

/* A JIT frame: named from the process's perf map, which is its dso.
 * Returns 1 when unnamed (the map may name it later: not to be cached),
 * else 0 or -ENOMEM. */
static int resolve_jit(struct lp_resolver *r, const struct lp_proc *proc, uint64_t ip,
		       struct lp_frame *out)
{
	const char *file = NULL;
	if (!r->perfmaps && !(r->perfmaps = lp_perfmaps_new()))
		return -ENOMEM;
	const struct lp_sym *s = lp_perfmap_find(r->perfmaps, proc->pid, ip, &file);
	out->dso = file;
	if (!s)
		return 1;
	set_name(r, s->name, out);
	out->symoff = ip - s->start;
	return 0;
}

/* The addresses around ip, at file offset off of map m, that the
 * object's symbols name alike (the same symbol, or none), given the file
 * offsets [flo, fhi) converted alike and the addresses [vlo, vhi) given
 * the same symbol (both holding off and vaddr): into out->same_lo,
 * same_hi. */
static void same_span(const struct lp_map *m, uint64_t ip, uint64_t off, uint64_t vaddr,
		      uint64_t flo, uint64_t fhi, uint64_t vlo, uint64_t vhi, struct lp_frame *out)
{
	uint64_t below = vaddr - vlo, above = vhi - vaddr;
	if (below > off - flo)
		below = off - flo;
	if (above > fhi - off)
		above = fhi - off;
	if (below > ip - m->start)      /* and within the map */
		below = ip - m->start;
	if (above > m->end - ip)
		above = m->end - ip;
	out->same_lo = ip - below;
	out->same_hi = ip + above;
}

/* resolve_user of a frame in map m, a file's. */
static int resolve_file(struct lp_resolver *r, const struct lp_proc *proc, const struct lp_map *m,
			uint64_t ip, struct lp_frame *out)
{
	uint64_t vaddr, off = ip - m->start + m->pgoff, flo, fhi, vlo, vhi;

	if (map_object(r, m, proc->pid))
		return -ENOMEM;
	out->dso = r->last.name;
	out->fileoff = identity_map(m) ? 0 : off;
	struct lp_dso *d = r->last.dso;
	if (!d || lp_dso_file_span(d, off, &vaddr, &flo, &fhi))
		return 0;
	out->obj = d;
	out->vaddr = vaddr;
	const struct lp_sym *s = lp_dso_find_span(d, vaddr, &vlo, &vhi);
	if (!s) {       /* perf's symbols hold data objects too */
		uint64_t olo, ohi;
		out->object = (s = lp_dso_find_object_span(d, vaddr, &olo, &ohi)) != NULL;
		vlo = vlo > olo ? vlo : olo;
		vhi = vhi < ohi ? vhi : ohi;
	}
	if (vlo <= vaddr && vaddr < vhi && ip < m->end)
		same_span(m, ip, off, vaddr, flo, fhi, vlo, vhi, out);
	if (s) {
		set_name(r, s->name, out);
		out->symoff = vaddr - s->start;
	}
	return 0;
}

/* The second cache's entry of a frame at ip in map m (a file's: not a
 * JIT map), made when new (then its path NULL); NULL when there is no
 * cache.  *key gets its key. */
static struct byfile_ent *byfile_slot(struct lp_resolver *r, const struct lp_map *m, uint64_t ip,
				      struct byfile_ent *key)
{
	if (!r->byfile && !(r->byfile = calloc(1u << BYFILE_BITS, sizeof *r->byfile)))
		return NULL;
	*key = (struct byfile_ent){ .path = m->path, .dev = (uint64_t)m->maj << 32 | m->min,
				    .ino = m->ino, .off = ip - m->start + m->pgoff };
	uint64_t h = ((uint64_t)(uintptr_t)key->path * 0xff51afd7ed558ccdull ^ key->off ^
		      key->ino * 0xc4ceb9fe1a85ec53ull ^ key->dev) * 0x9e3779b97f4a7c15ull;
	return &r->byfile[h >> (64 - BYFILE_BITS)];
}

/* Returns 0, 1 (a result not to be cached) or -ENOMEM; cached: through
 * the cache by file and offset. */
static int resolve_user(struct lp_resolver *r, const struct lp_proc *proc, uint64_t ip,
			bool cached, struct lp_frame *out)
{
	const struct lp_map *m = lp_proc_find_map(proc, ip);

	if (!m)
		return 0;
	if (jit_map(m))
		return resolve_jit(r, proc, ip, out);
	struct byfile_ent key, *e = cached && m->path ? byfile_slot(r, m, ip, &key) : NULL;
	if (e && e->path == key.path && e->off == key.off && e->ino == key.ino && e->dev == key.dev) {
		*out = (struct lp_frame){ .ip = ip, .sym = e->sym, .mangled = e->mangled,
					  .dso = e->dso, .symoff = e->symoff, .obj = e->obj,
					  .vaddr = e->vaddr, .fileoff = e->off,
					  .object = e->object };
		return 0;
	}
	int err = resolve_file(r, proc, m, ip, out);
	if (!err && e)
		*e = (struct byfile_ent){ key.path, key.dev, key.ino, key.off, out->sym, out->dso,
					  out->mangled, out->symoff, out->vaddr, out->obj,
					  out->object };
	return err;
}

int lp_resolver_object(struct lp_resolver *r, const struct lp_proc *proc, uint64_t ip,
		       const struct lp_map **map, struct lp_dso **dso)
{
	const struct lp_map *m = proc ? lp_proc_find_map(proc, ip) : NULL;

	*map = m;
	*dso = NULL;
	if (!m)
		return 0;
	if (map_object(r, m, proc->pid))
		return -ENOMEM;
	*dso = r->last.dso;
	return 0;
}

/* A kernel or a user frame, out holding ip and kernel; cached: user
 * frames through the cache by file and offset.  As resolve_user returns. */
static int resolve_any(struct lp_resolver *r, const struct lp_proc *proc, uint64_t ip,
		       bool kernel, bool cached, struct lp_frame *out)
{
	return kernel ? resolve_kernel(r, ip, out) : resolve_user(r, proc, ip, cached, out);
}

/* The generation of the kernel's maps, which key its frames' entries. */
static uint32_t kernel_gen(const struct lp_resolver *r)
{
	return r->procs ? lp_procs_kernel(r->procs)->gen : 0;
}

static struct fcache_ent *cache_slot(struct lp_resolver *r, const struct lp_proc *key,
				     uint64_t ip)
{
	uint64_t h = (ip ^ ((uint64_t)(uintptr_t)key * 0xc2b2ae3d27d4eb4full)) *
		     0x9e3779b97f4a7c15ull;

	return &r->cache[h >> (64 - FCACHE_BITS)];
}

int lp_resolver_frame(struct lp_resolver *r, const struct lp_proc *proc,
		      uint64_t ip, bool kernel, struct lp_frame *out)
{
	const struct lp_proc *key = kernel ? NULL : proc;
	uint32_t pid = key ? key->pid : 0, gen = key ? key->gen : kernel_gen(r);
	struct fcache_ent *e = r->cache_on ? cache_slot(r, key, ip) : NULL;

	*out = (struct lp_frame){ .ip = ip, .kernel = kernel };
	if (e && e->valid && e->ip == ip && e->proc == key && e->kernel == kernel &&
	    e->pid == pid && e->gen == gen) {
		r->hits++;
		out->sym = e->sym;
		out->dso = e->dso;
		out->symoff = e->symoff;
		out->mangled = e->mangled;
		out->obj = e->obj;
		out->vaddr = e->vaddr;
		out->fileoff = e->fileoff;
		out->object = e->object;
		out->ksymbol = e->ksymbol;
		return 0;
	}
	r->misses++;
	int err = resolve_any(r, proc, ip, kernel, r->cache_on, out);
	if (err || !e)
		return err < 0 ? err : 0;
	*e = (struct fcache_ent){ .proc = key, .ip = ip, .pid = pid, .gen = gen,
				  .valid = true, .kernel = kernel, .sym = out->sym,
				  .dso = out->dso, .symoff = out->symoff, .obj = out->obj,
				  .mangled = out->mangled,
				  .vaddr = out->vaddr, .fileoff = out->fileoff,
				  .object = out->object, .ksymbol = out->ksymbol };
	return 0;
}

int lp_resolver_frame_uncached(struct lp_resolver *r, const struct lp_proc *proc,
			       uint64_t ip, bool kernel, struct lp_frame *out)
{
	*out = (struct lp_frame){ .ip = ip, .kernel = kernel };
	int err = resolve_any(r, proc, ip, kernel, false, out);
	return err < 0 ? err : 0;
}

int lp_resolver_expect_build_id(struct lp_resolver *r, const char *path,
				const uint8_t *id, size_t size)
{
	return lp_dsos_expect_build_id(r->dsos, path, id, size);
}

bool lp_resolver_kernel_hidden(const struct lp_resolver *r)
{
	return r->kernel_hidden;
}

void lp_resolver_set_cache(struct lp_resolver *r, bool on)
{
	if (on && !r->cache_on)
		memset(r->cache, 0, FCACHE_SIZE * sizeof *r->cache);
	r->cache_on = on;
}

void lp_resolver_cache_stats(const struct lp_resolver *r, uint64_t *hits,
			     uint64_t *misses)
{
	*hits = r->hits;
	*misses = r->misses;
}
