/* Part of include/luaprof/: the core's interface to the layer above it (lua/). */
/*
 * sym.h - symbol tables, object files and the address -> name resolver.
 *
 *  lp_symtab   a sorted array of [start, end) -> name, searched by binary
 *              search; built once per object.
 *  lp_dso      one object file (ELF on disk, or the vDSO image in memory):
 *              its path, build-id, PT_LOAD segments and symbol table.
 *  lp_dsos     the cache of objects, keyed by path and inode, so that each
 *              object is opened and its symbols read once per run, however
 *              many processes map it.
 *  lp_kernel   kernel symbols from /proc/kallsyms (with modules).
 *  lp_resolver turns (thread, ip) into an lp_frame using the process model.
 */
#ifndef LUAPROF_SYM_H
#define LUAPROF_SYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lp_procs;
struct lp_proc;
struct lp_map;

struct lp_sym {
	uint64_t start, end;    /* [start, end) */
	const char *name;       /* owned by the table */
};

struct lp_symtab;

/* An empty table.  NULL and errno on failure. */
struct lp_symtab *lp_symtab_new(void);
void lp_symtab_free(struct lp_symtab *t);

/* Adds a symbol (name is copied).  size 0 means "unknown": the end becomes
 * the next symbol's start at lp_symtab_finish(), as perf does.  Returns 0,
 * -ENOMEM, or -EINVAL for a table made from records (lp_symtab_import),
 * which takes no more. */
int lp_symtab_add(struct lp_symtab *t, const char *name, uint64_t start, uint64_t size);

/* Preference of a symbol among aliases at one address (higher wins), as
 * perf's choose_best_symbol: any non-weak symbol over a weak one, then a
 * global over a local. */
enum lp_sym_prio { LP_SYM_WEAK = 1, LP_SYM_LOCAL = 2, LP_SYM_GLOBAL = 3 };

/* lp_symtab_add() with a preference (enum lp_sym_prio or any value up to
 * 255; lp_symtab_add() uses 0) for choosing among aliases. */
int lp_symtab_add_ex(struct lp_symtab *t, const char *name, uint64_t start,
		     uint64_t size, unsigned prio);

/* Sorts the table and settles aliases: of several symbols at one address the
 * one kept is chosen as perf does (a sized one over a sizeless one, then the
 * higher preference, then fewer leading underscores, then the longer name,
 * then the one added first).  Call once after the last add.  Returns 0 or
 * -ENOMEM (the table then stays unfinished).
 *
 * A sizeless symbol ends where the next kept symbol starts; the last one
 * (having no next) ends at roundup(start, 4096) + 4096, as perf's
 * symbols__fixup_end does.  Symbols may nest or overlap: lp_symtab_find()
 * returns, of those containing addr, the one with the greatest start.
 * Adding after finish is allowed; finish must then be called again. */
int lp_symtab_finish(struct lp_symtab *t);

/* The symbol containing addr, or NULL.  Only after lp_symtab_finish() (NULL
 * before).  Binary search; never allocates.  count is the number of symbols
 * kept (after aliases were settled, once finished). */
const struct lp_sym *lp_symtab_find(const struct lp_symtab *t, uint64_t addr);
size_t lp_symtab_count(const struct lp_symtab *t);

/* As lp_symtab_find(), but a sizeless symbol found (an ELF label: a jump
 * target inside a function, a JIT builtin's return point) gives way to the
 * innermost sized symbol that contains addr too, the function around it.
 * For ELF tables, where size 0 means a label; kallsyms' derived sizes make
 * no such distinction.  perf's own pick between the two depends on the
 * shape of its red-black tree (docs/perf-differences.md). */
const struct lp_sym *lp_symtab_find_sized(const struct lp_symtab *t, uint64_t addr);

/* lp_symtab_find (sized false) or lp_symtab_find_sized, and in [*lo, *hi)
 * the addresses around addr given the same answer (empty when a cached
 * table's record could not be read again: an answer not to be kept).
 * A table keeps the ranges its lookups answered (ranges.h) and answers
 * from them next: lookups change its state behind the const pointer, so
 * one thread at a time (as every lookup of core/sym).  Finishing a table
 * again forgets them. */
const struct lp_sym *lp_symtab_find_span(const struct lp_symtab *t, uint64_t addr, bool sized,
					 uint64_t *lo, uint64_t *hi);

struct lp_dso;

/* Reads the object at path: build-id, PT_LOAD segments, symbols from
 * .symtab; without one, from the .symtab of the separate debug file of its
 * build-id (/usr/lib/debug/.build-id/NN/REST.debug), else from .dynsym.
 * A readable file with no symbols gives a dso with an empty table.  NULL
 * and errno (ENOENT, ENOEXEC for a non-ELF file, ...) on failure. */
struct lp_dso *lp_dso_open(const char *path);

/* The same from an ELF image in memory (the vDSO); the image is read during
 * the call only.  name is copied and becomes the dso's path. */
struct lp_dso *lp_dso_open_mem(const char *name, const void *image, size_t size);
void lp_dso_free(struct lp_dso *d);

const char *lp_dso_path(const struct lp_dso *d);

/* Where the object is on this machine (under --symfs): its path, or for a
 * dso read from a copy (perf's build-id cache) the object's own place,
 * where its separate debug file is looked for beside it (borrowed). */
const char *lp_dso_origin(const struct lp_dso *d);

/* Build-id bytes (borrowed, valid until lp_dso_free) and their count; 0 when
 * the object has none. */
size_t lp_dso_build_id(const struct lp_dso *d, const uint8_t **id);

/* The build-id of the ELF file at path, from its notes alone (no symbols
 * are read, so it costs far less than lp_dso_open()).  Copies up to max
 * bytes into id and returns how many there were; 0 when the file cannot
 * be opened, is not ELF or has no build-id. */
size_t lp_elf_build_id(const char *path, uint8_t *id, size_t max);

/* Converts a file offset (map pgoff + ip - map start) to the ELF virtual
 * address used by the symbol table, through the PT_LOAD segment containing
 * it.  Returns 0, or -ENOENT when no segment contains it. */
int lp_dso_file_to_vaddr(const struct lp_dso *d, uint64_t off, uint64_t *vaddr);

/* lp_dso_file_to_vaddr, and in [*lo, *hi) the file offsets around off
 * converted by the same segment (by the same difference): only off when
 * it is in a segment's zero-filled tail.  -ENOENT (and [off, off)) when
 * no segment holds off. */
int lp_dso_file_span(const struct lp_dso *d, uint64_t off, uint64_t *vaddr, uint64_t *lo,
		     uint64_t *hi);

/* The symbol at ELF virtual address vaddr, or NULL: the function around
 * it rather than a sizeless label inside (lp_symtab_find_sized).  The
 * first lookup near the object's PLT names its stubs first (reading the
 * file again), so d is not const. */
const struct lp_sym *lp_dso_find(struct lp_dso *d, uint64_t vaddr);

/* lp_dso_find, and in [*lo, *hi) the addresses around vaddr given the
 * same answer (lp_symtab_find_span's, short of the PLT stubs while they
 * are not named yet). */
const struct lp_sym *lp_dso_find_span(struct lp_dso *d, uint64_t vaddr, uint64_t *lo, uint64_t *hi);

struct lp_dsos;

/* An empty cache (lp_dsos_free), or NULL with errno ENOMEM. */
struct lp_dsos *lp_dsos_new(void);
void lp_dsos_free(struct lp_dsos *c);

/* The object for a map: opened on first use, cached afterwards (a failure is
 * cached too, as NULL, so a missing file costs one open).  "[vdso]" is read
 * from this process's own vDSO image (the same kernel provides it to every
 * process).  Returns NULL for anonymous, special or unreadable mappings
 * ("", "//anon", "[heap]", "[stack]", "[anon:...]", "/dev/...", paths ending
 * in " (deleted)", ...).  The dso is owned by the cache. */
struct lp_dso *lp_dsos_get(struct lp_dsos *c, const struct lp_map *m);

/* Replaying a recording: path (a map's path, or "[vdso]") had build-id id
 * (size 1..20 bytes, as perf.data holds it) when it was recorded.  From
 * then on lp_dsos_get() reads that object only from a file with this
 * build-id: perf's build-id cache ($PERF_BUILDID_DIR, then ~/.debug), then
 * the path itself; symbols from its .symtab, else from a separate debug
 * file of the build-id.  When no file has it, lp_dsos_get() returns NULL
 * for it (its frames go unnamed) and one LP_WARN line names the object and
 * both build-ids.  Objects without an entry are opened by path as before;
 * objects already opened are not reopened.  A later entry for the same
 * path replaces an earlier one; an id of zeros (perf's "none") is
 * ignored.  Returns 0, -EINVAL (no path, size 0 or over 20) or -ENOMEM. */
int lp_dsos_expect_build_id(struct lp_dsos *c, const char *path, const uint8_t *id,
			    size_t size);

/* The build-id of the object map m names, as lp_dsos_get() would find it
 * but reading nothing else: [vdso] from this process's image, a file with
 * lp_elf_build_id(), nothing for anonymous, special, device or deleted
 * maps.  Copies up to max bytes into id and returns how many; 0 when there
 * is none. */
size_t lp_map_build_id(const struct lp_map *m, uint8_t *id, size_t max);

struct lp_kernel;

/* Loads kernel symbols from a kallsyms-format file (normally
 * "/proc/kallsyms"), module symbols included.  *hidden is set when the file
 * is readable but every address is 0 (kptr_restrict): the table is then
 * empty.  NULL and errno when the file cannot be read. */
struct lp_kernel *lp_kernel_load(const char *path, bool *hidden);
void lp_kernel_free(struct lp_kernel *k);

/* The kernel symbol at addr, and the object name it belongs to
 * ("[kernel.kallsyms]" or "[module]", borrowed; dso may be NULL).  NULL (and
 * *dso NULL) when unknown.  Only text symbols (t/T/w/W) are kept; sizes are
 * unknown, so a symbol ends at the next one, or at its page end when the
 * next one belongs to another object. */
const struct lp_sym *lp_kernel_find(const struct lp_kernel *k, uint64_t addr,
				    const char **dso);

/* lp_kernel_find, and in [*lo, *hi) the addresses around addr given the
 * same answer (lp_symtab_find_span's). */
const struct lp_sym *lp_kernel_find_span(const struct lp_kernel *k, uint64_t addr,
					 const char **dso, uint64_t *lo, uint64_t *hi);

/* The addresses of the kernel symbols names[0..n) (the kernel's, not a
 * module's) in the kallsyms-format file path, which is read only as far as
 * the last of them: addrs[i] is the address of the first line naming
 * names[i], 0 when there is none or it reads 0 (kptr_restrict).  Returns
 * how many were found, or -errno when the file cannot be read. */
int lp_kallsyms_lookup(const char *path, const char *const *names, uint64_t *addrs, size_t n);

/* The running kernel's build-id: the GNU build-id note of path, a file of
 * ELF notes (NULL: "/sys/kernel/notes", which perf reads for
 * [kernel.kallsyms]).  Copies up to max bytes into id and returns how many
 * there were; 0 and errno (ENOENT: no such note) when there is none or the
 * file cannot be read. */
size_t lp_kernel_build_id(const char *path, uint8_t *id, size_t max);

struct lp_record;

/* Hands fn a KSYMBOL record (PERF_RECORD_KSYMBOL_TYPE_BPF) for each
 * function of each BPF program loaded now, as perf record synthesizes
 * them when it starts: the address and length of its JIT'd code and the
 * kernel's name for it ("bpf_prog_TAG_NAME", as its own KSYMBOL records
 * and /proc/kallsyms name it).  Records are decoded only (data NULL, no
 * trailer, time 0) and borrowed for the call.  The programs are read with
 * bpf(2), which needs CAP_SYS_ADMIN: without it there are none; a
 * program that goes meanwhile is left out.  Stops at the first non-zero
 * return of fn and returns it; otherwise 0, or -ENOMEM. */
int lp_bpf_scan(int (*fn)(const struct lp_record *r, void *arg), void *arg);

/* Hands fn an MMAP record for each module of the modules file path
 * ("/proc/modules"), as perf record synthesizes the kernel's module maps:
 * pid -1, misc PERF_RECORD_MISC_KERNEL, [address, address + size),
 * offset 0, file name "[NAME]".  Lines that do not read as a module's,
 * and modules at address 0 (hidden by kptr_restrict), are skipped; a file
 * that cannot be opened has none.  Records are decoded only (data NULL,
 * no trailer) and borrowed for the call.  Stops at the first non-zero
 * return of fn and returns it; otherwise 0, or -ENOMEM. */
int lp_kernel_modules_scan(const char *path, int (*fn)(const struct lp_record *r, void *arg),
			   void *arg);

/* lp_kernel_modules_scan of the file's len bytes at buf. */
int lp_kernel_modules_parse(const char *buf, size_t len,
			    int (*fn)(const struct lp_record *r, void *arg), void *arg);

/* Adds the object a recording names name, with build-id id (n bytes, 1 to
 * 20), to perf's build-id cache as perf record 6.1 does: in the directory
 * lp_bidcache_dir() names (DIR), one stat when it is there already, else
 *   DIR/NAME/HEX/elf       the object (realpath of name): a hard link, or a
 *                          copy (mode 0755) where the file system refuses
 *   DIR/NAME/HEX/debug     its separate debug file, when
 *                          /usr/lib/debug/.build-id has one (likewise)
 *   DIR/[vdso]/HEX/vdso    this process's vDSO image (mode 0600, 0755
 *                          when DIR is not on /tmp's file system, as perf)
 *   DIR/[kernel.kallsyms]/HEX/kallsyms   a copy of /proc/kallsyms (0755)
 *   DIR/.build-id/NN/REST  a relative symlink to ../../NAME/HEX, made last,
 *                          so a reader that finds it finds whole files
 * (a kallsyms copy older than this boot counts as absent and is replaced;
 * HEX: the build-id in hex, NN/REST: the same cut after two digits;
 * directories 0755).  Copies are written to a temporary file renamed into
 * place.  What is linked or copied has the build-id id, else nothing is
 * kept.  Returns 1 when added, 0 when cached already; -ESTALE when this
 * machine no longer has the object with that build-id (the file is gone or
 * changed, kallsyms hidden or another kernel running: nothing is written);
 * -EINVAL for a bad n; -EPERM when the cache directory (or, not there yet,
 * the directory it would be made in) is not the effective user's own, or
 * is a symbolic link: nothing is written into another user's files;
 * -ELOOP when a directory inside the cache on the way is a symbolic link
 * or another user's: nothing is written through it, out of the cache; any
 * other -errno means the cache directory cannot be written (-ENOENT:
 * neither PERF_BUILDID_DIR nor HOME is set). */
int lp_bidcache_add(const char *name, const uint8_t *id, size_t n);

/* The cache directory lp_bidcache_add() fills, into buf (size bytes):
 * $PERF_BUILDID_DIR when set, else $HOME/.debug.  false when neither is
 * set. */
bool lp_bidcache_dir(char *buf, size_t size);

/* One resolved address. Strings are borrowed from the resolver's caches
 * and live until lp_resolver_free(). */
struct lp_frame {
	uint64_t ip;
	const char *sym;        /* NULL when unknown; C++ and Rust names demangled */
	const char *mangled;    /* the symbol's own name when sym is demangled */
	const char *dso;        /* NULL when unknown */
	uint64_t symoff;        /* ip - symbol start */
	bool kernel;
	bool object;            /* sym is a data object's (perf report: NAME+0xOFF) */
	bool ksymbol;           /* a kernel frame in code a KSYMBOL record registered
				 * (a BPF program): sym and dso are its name, and
				 * perf places it at symoff in its own map */
	const struct lp_dso *obj;       /* the object file ip was looked up in */
	uint64_t vaddr;                 /* ip as an ELF address of obj */
	uint64_t fileoff;               /* a user ip's offset in the file mapped there
					 * (ip - map start + map offset, perf's map_ip:
					 * what perf script prints), 0 outside file maps */
	uint64_t same_lo, same_hi;      /* the addresses [same_lo, same_hi) around ip
					 * in its map named alike (sym, mangled, dso,
					 * obj; symoff, vaddr, fileoff move with ip):
					 * known when ip was looked up in a file's
					 * symbols (always so by
					 * lp_resolver_frame_uncached), else empty */
};

/* name demangled (C++, Rust legacy and v0, and NAME@plt of either): with
 * params, with its parameter lists and qualifiers as c++filt prints it
 * (as frames are named); without, as perf prints it.  Returns a malloc'd
 * string, or NULL when name is not mangled or cannot be demangled. */
char *lp_demangle_name(const char *name, bool params);

struct lp_resolver;

/* A resolver over a process model.  kallsyms is the kernel symbol file
 * (NULL: "/proc/kallsyms"; it is loaded on first kernel address).  Objects
 * are opened on first use.  NULL and errno on failure. */
struct lp_resolver *lp_resolver_new(struct lp_procs *procs, const char *kallsyms);
void lp_resolver_free(struct lp_resolver *r);

/* Resolves ip as seen by process proc (NULL: unknown process; kernel
 * addresses still resolve).  kernel says the address is a kernel one (from
 * the sample's cpumode or callchain context).  Always fills out (unknown
 * parts NULL); returns 0, or a negative errno only on allocation failure. */
int lp_resolver_frame(struct lp_resolver *r, const struct lp_proc *proc,
		      uint64_t ip, bool kernel, struct lp_frame *out);

/* lp_resolver_frame without the resolver's caches of frames (neither
 * looked in nor filled): for a caller with caches of its own that missed,
 * where the resolver's, keyed alike, would mostly miss too (the folded
 * names' ids, lfoldids.c: two fewer cache misses per new frame). */
int lp_resolver_frame_uncached(struct lp_resolver *r, const struct lp_proc *proc,
			       uint64_t ip, bool kernel, struct lp_frame *out);

/* Reads the kernel's symbols now, not at the first kernel address: a live
 * run does it before its events start, since reading /proc/kallsyms takes
 * long enough for a busy machine's samples to fill the rings unread.
 * Does nothing when they were read (or tried) before.  Returns 0 (a file
 * that cannot be read is logged once, as at the first address), or
 * -ENOMEM. */
int lp_resolver_load_kernel(struct lp_resolver *r);

/* The map of proc containing the user address ip (*map NULL when none),
 * and the object file it is read from, as lp_resolver_frame() chooses it
 * (*dso NULL when it could not be opened; owned by the resolver).  Returns
 * 0, or -ENOMEM. */
int lp_resolver_object(struct lp_resolver *r, const struct lp_proc *proc, uint64_t ip,
		       const struct lp_map **map, struct lp_dso **dso);

/* Replaying a recording: lp_dsos_expect_build_id() for the resolver's
 * objects.  For "[kernel.kallsyms]" (the recording's kernel entry), when
 * the resolver reads the default /proc/kallsyms: the kallsyms copy in
 * perf's build-id cache is read instead when it places the kernel where
 * the recording's kernel map ("[kernel.kallsyms]_text" in the process
 * model) does and is from this boot (a plain file, several times faster
 * to read); else the running kernel's build-id (/sys/kernel/notes) is
 * compared, and on a mismatch any cached copy of the recorded kernel is
 * read; with no copy, kernel frames keep the dso "[kernel.kallsyms]" but
 * no symbol, after one LP_WARN line.  Call before the first lp_resolver_frame() (addresses
 * already resolved keep their names).  Returns as lp_dsos_expect_build_id. */
int lp_resolver_expect_build_id(struct lp_resolver *r, const char *path,
				const uint8_t *id, size_t size);

/* True when kernel symbols were asked for and kallsyms hides addresses. */
bool lp_resolver_kernel_hidden(const struct lp_resolver *r);

/* Roots every lookup of object files and debug files in dir, as perf's
 * --symfs: /usr/lib/x.so is read as DIR/usr/lib/x.so (NULL or "": no
 * root).  Process-wide; set before anything is opened.  0, or
 * -ENAMETOOLONG. */
int lp_sym_set_symfs(const char *dir);
const char *lp_sym_symfs(void);          /* "" when unset */

/* Allows (the default) or forbids asking debuginfod servers for debug
 * files; they are asked only when DEBUGINFOD_URLS is set too.  lp_sym_debuginfod()
 * tells whether they are to be asked. */
void lp_sym_set_debuginfod(bool on);
bool lp_sym_debuginfod(void);

#endif
