/*
 * sym_int.h - internal interfaces shared by the symbolizer files (symtab.c,
 * dso.c, dsos.c, kernel.c, resolve.c).  Not part of the public API; unit
 * tests may use it.
 */
#ifndef LP_SYM_INT_H
#define LP_SYM_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "luaprof/sym.h"
#include "sym/sym_core.h"

/* A name arena: strings copied into large chunks, freed all at once.  One
 * allocation per chunk (LP_NAMES_CHUNK bytes unless .chunk says otherwise)
 * of names, not one per name.  A chunk is a bigbuf (bigbuf.h), so chunks
 * of 2 MiB are huge pages: for millions of bytes of names.  Zero-initialize
 * before use. */
#define LP_NAMES_CHUNK 65536

struct lp_names {
	struct lp_names_chunk *head;    /* newest chunk first */
	size_t used, cap;               /* of head */
	size_t chunk;                   /* bytes per chunk; 0: LP_NAMES_CHUNK */
};

/* Copies n bytes of s plus a NUL; NULL when out of memory.  The copy lives
 * until lp_names_free(). */
const char *lp_names_dup(struct lp_names *a, const char *s, size_t n);
void lp_names_free(struct lp_names *a);

/* Like lp_symtab_add_ex(), also recording a tag (a caller-defined small
 * number, 0 by default; the kernel stores its module index there).  At
 * lp_symtab_finish() a sizeless symbol followed by a symbol of a different
 * tag ends at min(next start, page end) instead of the next start, so the
 * last kernel symbol does not swallow the gap up to the first module. */
int lp_symtab_add_tagged(struct lp_symtab *t, const char *name, uint64_t start,
			 uint64_t size, unsigned prio, uint16_t tag);

/* lp_symtab_add_tagged() without copying the name: the table keeps the
 * pointer, so name must stay valid and unchanged until lp_symtab_free()
 * (the caller owns it and frees it after the table).  0 or -ENOMEM. */
int lp_symtab_add_borrowed(struct lp_symtab *t, const char *name, uint64_t start,
			   uint64_t size, unsigned prio, uint16_t tag);

/* Makes room for n more symbols at once, so that adding them allocates
 * nothing more; for a caller that knows (a bound on) the count.  Reserving
 * more than is added costs address space, not memory.  0 or -ENOMEM. */
int lp_symtab_reserve(struct lp_symtab *t, size_t n);

/* Adds a symbol the way perf adds PLT stubs: after the other symbols' ends
 * were settled, so it does not end a sizeless symbol before it (which then
 * still covers the addresses around it); size 0 stays empty.  Global
 * preference among aliases.  name NULL adds a hole instead: lookups that
 * land in [start, start + size) find nothing, though a symbol around it
 * holds it (where perf's own lookup misses that symbol).  Holes count in
 * lp_symtab_count() and appear in lp_symtab_at() with the name "".
 * Returns 0 or -ENOMEM. */
int lp_symtab_add_late(struct lp_symtab *t, const char *name, uint64_t start,
		       uint64_t size);

struct Elf;     /* libelf's Elf */

/* Adds to t (before lp_symtab_finish) the PLT stubs of the object runtime,
 * named "NAME@plt" at their virtual addresses, that perf 6.1 names: perf
 * synthesizes them after the object's other symbols, and where a sizeless
 * symbol it already extended (_init) overlaps a stub, its lookup finds one
 * or the other depending on its tree; that is replayed here from symsrc,
 * the ELF whose symbol table t was filled from (runtime itself, or its
 * separate debug file).  An object without usable PLT sections adds
 * nothing.  Returns 0 or -ENOMEM (t may then hold some of the stubs). */
int lp_plt_add(struct lp_symtab *t, struct Elf *runtime, struct Elf *symsrc);

/* lp_plt_add() with the object read from path (nothing added when it
 * cannot be read). */
int lp_plt_add_file(struct lp_symtab *t, const char *path, struct Elf *symsrc);

/* The addresses whose lookups lp_plt_add(t, runtime, symsrc) can change:
 * [*lo, *hi), a hull of the stubs and of the symbols of symsrc perf may
 * find over them, empty (*lo == *hi) when it would add nothing.  Reads
 * the symbol table once, builds no tree: a caller may put the replay off
 * until a lookup falls in the span (dso.c).  Returns 0. */
int lp_plt_span(struct Elf *runtime, struct Elf *symsrc, uint64_t *lo, uint64_t *hi);

/* The tag recorded for a symbol returned by lp_symtab_find()/lp_symtab_at()
 * of the same table. */
uint16_t lp_symtab_tag(const struct lp_symtab *t, const struct lp_sym *s);

/* The i-th symbol in address order (i < lp_symtab_count()), after
 * lp_symtab_finish(); NULL otherwise. */
const struct lp_sym *lp_symtab_at(const struct lp_symtab *t, size_t i);

/* A finished table's entry as a plain record, for a file (kcache.c):
 * lp_symtab_at()'s symbol with its name as an offset into a names blob,
 * and what lookups need besides (see symtab.c). */
struct lp_symtab_rec {
	uint64_t start, end;
	uint32_t name;          /* offset of the name in the names blob */
	int32_t up;             /* nearest earlier entry open at start, or -1 */
	uint16_t tag;
	uint8_t prio;
	uint8_t flags;          /* LP_SYMREC_* */
	uint32_t zero;
};

#define LP_SYMREC_SIZED 1u
#define LP_SYMREC_LATE 2u
#define LP_SYMREC_HOLE 4u

/* Entry i (< lp_symtab_count()) of the finished table t, name left 0 for
 * the caller (the name is lp_symtab_at(t, i)->name).  false when t is
 * not finished or i is past its end. */
bool lp_symtab_rec(const struct lp_symtab *t, size_t i, struct lp_symtab_rec *r);

/* Where an imported table's records and names are read again after the
 * import checked them: the file (fd, which the caller keeps open for
 * the table's life) and their offsets in it.  fd -1: none. */
struct lp_symsrc {
	int fd;
	uint64_t recs_at, names_at;
};

/* A finished table of the n records at recs, their names at names +
 * rec.name (symimport.c).  Records are outside data and are all checked
 * here: names inside names_len bytes (whose last is a NUL), tags below
 * nr_tags, starts in order, each up an earlier entry, no unknown flags.
 * With src (fd >= 0) lookups then read what they need from src's file,
 * and recs and names may go once this returns; without, lookups read
 * them where they lie, and they must outlive the table, unchanged.  The
 * table can't be added to (-EINVAL).  NULL with errno EINVAL for a
 * record that breaks one, or ENOMEM. */
struct lp_symtab *lp_symtab_import(const struct lp_symtab_rec *recs, size_t n,
				   const char *names, size_t names_len, size_t nr_tags,
				   const struct lp_symsrc *src);

/* ---- parsed kallsyms tables in a cache file (kcache.c) ---- */

struct stat;

#define LP_KCACHE_MIN ((uint64_t)1 << 20)      /* smaller files are not cached */

/* Why a kallsyms file does not look whole (lp_kernel_flaw). */
enum lp_kflaw {
	LP_KFLAW_NONE,
	LP_KFLAW_CUT,           /* the last line has no newline */
	LP_KFLAW_NO_STEXT,      /* no _stext among the kernel's own lines */
	LP_KFLAW_NO_ETEXT,      /* no _etext */
	LP_KFLAW_ORDER,         /* the kernel's own lines out of address order */
	LP_KFLAW_MAX = LP_KFLAW_ORDER
};

/* What a cache file stands for: its kallsyms file's identity. */
struct lp_kcache_key {
	uint64_t dev, ino, size, mtime_ns;
};

/* A cache file's contents, borrowed from its mapping (map, map_len: from
 * lp_kcache_open, NULL from lp_kcache_parse). */
struct lp_kcache {
	const struct lp_symtab_rec *recs;
	size_t nr_recs;
	const uint32_t *mods;   /* nr_mods offsets into names; [0] the kernel's */
	size_t nr_mods;
	const char *names;
	size_t names_len;
	bool hidden;
	bool full_symtab;       /* an object's table: from a .symtab */
	enum lp_kflaw flaw;     /* the kallsyms file's, as parsed */
	void *map;
	size_t map_len;
	int fd;                 /* the file, open while map is */
};

/* The cache's directory, into buf (size bytes): $XDG_CACHE_HOME/luaprof
 * (an absolute XDG_CACHE_HOME), else $HOME/.cache/luaprof; false when
 * neither is set or the name does not fit. */
bool lp_kcache_dir(char *buf, size_t size);

/* Whether a kallsyms file of status st is one cached: a regular file of
 * LP_KCACHE_MIN bytes or more. */
bool lp_kcache_wants(const struct stat *st);

/* The key of a kallsyms file of status st. */
void lp_kcache_key_of(const struct stat *st, struct lp_kcache_key *key);

/* Checks the cache file image (len bytes, 8-byte aligned) and describes
 * it in *out; the records themselves are left to lp_symtab_import.  0,
 * -ESTALE when it stands for another file than key's, or -EINVAL. */
int lp_kcache_parse(const void *image, size_t len, const struct lp_kcache_key *key,
		    struct lp_kcache *out);

/* Maps and checks the cache file, in the cache directory dir, of the
 * kallsyms file path of status src.  0 (release with lp_kcache_close), or
 * -errno: -ENOENT when there is none or the file is not one cached, -ESTALE
 * when path changed since, -EINVAL for a file that is not a valid one of
 * this user's. */
int lp_kcache_open(const char *dir, const char *path, const struct stat *src,
		   struct lp_kcache *out);
void lp_kcache_close(struct lp_kcache *c);

/* Where lp_symtab_import reads c's records and names again: its file,
 * open until lp_kcache_close (fd -1 for a cache only parsed). */
void lp_kcache_source(const struct lp_kcache *c, struct lp_symsrc *src);

/* Lets the pages of the mapped cache file go from this process's memory
 * (its resident set): they are read again from the file when touched.
 * For after lp_symtab_import has checked the records, which lookups then
 * read from the file (lp_kcache_source).  The file is never written in
 * place (a new one is renamed over it), so what is read is what was
 * checked. */
void lp_kcache_release(struct lp_kcache *c);

/* Writes the finished table t of kallsyms file path (status src), with
 * its nr_mods module names (tags index them), hidden flag and flaw, as the
 * cache file in dir, making the directories as needed.  0, or -errno:
 * -EINVAL for a file not cached, -EPERM when a directory is not this
 * user's (or a link); nothing is left behind on failure. */
int lp_kcache_save(const char *dir, const char *path, const struct stat *src,
		   const struct lp_symtab *t, const char *const *mods, size_t nr_mods,
		   bool hidden, enum lp_kflaw flaw);

/* ---- object files' symbol tables in the same cache (kcache.c) ----
 *
 * The finished table of an object file whose symbols come from the file
 * itself (.symtab, else .dynsym and MiniDebugInfo, with the PLT stubs
 * named), in DIR/objects/, the same layout as a kallsyms table's under
 * its own magic, the same trust and staleness rules: it stands for the
 * file at path while the file's device, inode, size and modification
 * time are those it records.  full_symtab: lp_dso_has_symtab's answer. */

/* The smallest table cached: smaller ones are read in microseconds. */
#define LP_OCACHE_MIN_SYMS 1000

/* lp_kcache_parse() for an object's cache file image. */
int lp_ocache_parse(const void *image, size_t len, const struct lp_kcache_key *key,
		    struct lp_kcache *out);

/* lp_kcache_open() for the object file path of status src (any regular
 * file); out->full_symtab is set. */
int lp_ocache_open(const char *dir, const char *path, const struct stat *src,
		   struct lp_kcache *out);

/* lp_kcache_save() for the object file path of status src: t finished,
 * with every PLT stub it will ever have; build_id the file's, in hex ("":
 * none), kept as the table's one module name, which a reader compares
 * with the file's (a file rewritten in place within the clock's tick
 * keeps its status).  0 or -errno as there. */
int lp_ocache_save(const char *dir, const char *path, const struct stat *src,
		   const struct lp_symtab *t, bool full_symtab, const char *build_id);

/* lp_kernel_load() through the cache in dir (NULL: none): the table cached
 * for path when there is a valid one, else parsed and then cached (a
 * cache that cannot be read or written is passed over). */
struct lp_kernel *lp_kernel_load_cached(const char *path, const char *dir, bool *hidden);

/* Why the kallsyms file k was loaded from does not look whole, in a few
 * words ("it ends in the middle of a line (cut short)"), or NULL when it
 * does: its last line ends with a newline, and the kernel's own lines hold
 * _stext and _etext in address order (kernel.c).  A static string. */
const char *lp_kernel_flaw(const struct lp_kernel *k);

/* The symbol table of a dso (borrowed), its PLT stubs in it (read now
 * when put off: lp_dso_find). */
const struct lp_symtab *lp_dso_symtab(struct lp_dso *d);

/* Whether the dso's symbols came from a .symtab (its own or its debug
 * file's), rather than from .dynsym alone. */
bool lp_dso_has_symtab(const struct lp_dso *d);

/* Whether the dso's symbols were read from luaprof's cache of them (the
 * object's own, or its debug file's: dso.c). */
bool lp_dso_from_cache(const struct lp_dso *d);

/* Replaces the dso's symbols by the .symtab of the ELF file at path (a
 * separate debug file of the same build-id: its addresses are the
 * object's).  Any failure, or a file without .symtab, keeps what the dso
 * had. */
void lp_dso_load_debug_file(struct lp_dso *d, const char *path);

/* The data object (STT_OBJECT symbol) of d holding vaddr, or NULL: perf
 * keeps objects in its symbol tables with functions, and names a frame at
 * such an address after it (a guessed return address in .bss).  Read on
 * the first call, from the file d's symbols came from (.symtab, else
 * .dynsym); valid until lp_dso_free. */
const struct lp_sym *lp_dso_find_object(struct lp_dso *d, uint64_t vaddr);

/* lp_dso_find_object, and in [*lo, *hi) the addresses around vaddr given
 * the same answer: within the section holding vaddr, once its objects
 * are read (empty when vaddr is in no section or they can't be read). */
const struct lp_sym *lp_dso_find_object_span(struct lp_dso *d, uint64_t vaddr, uint64_t *lo,
					     uint64_t *hi);

/* For a dso read from a copy (perf's build-id cache): path is where the
 * object is on this machine (under the symfs directory), from which its
 * .gnu_debuglink file is looked for, as perf's DSO_BINARY_TYPE__DEBUGLINK
 * does from the object's own name; symbols are taken from the debug file
 * found when d has no .symtab, and path is kept (lp_dso_origin).  0, or
 * -ENOMEM (d unchanged). */
int lp_dso_set_origin(struct lp_dso *d, const char *path);

/* ---- separate debug files (debugfile.c) ---- */

/* The CRC-32 .gnu_debuglink uses (zlib's), continuing crc over n bytes. */
uint32_t lp_debuglink_crc(uint32_t crc, const void *data, size_t n);

/* Parses a .gnu_debuglink section's contents (size bytes): a file name (no
 * '/'), NUL-padded to 4 bytes, then its CRC-32.  Copies the name into name
 * (n bytes) and the CRC into *crc.  0, or -EINVAL for a malformed section
 * or a name that does not fit. */
int lp_debuglink_parse(const void *data, size_t size, char *name, size_t n, uint32_t *crc);

/* path rooted in the symfs directory (lp_sym_set_symfs), into buf; false
 * when it does not fit. */
bool lp_symfs_path(const char *path, char *buf, size_t size);

/* The ELF of an object's MiniDebugInfo (.gnu_debugdata: an xz-compressed
 * ELF holding a .symtab of the functions .dynsym lacks), decompressed into
 * *image (the caller elf_end()s the ELF, then frees *image).  NULL when e
 * has none or it is not a valid xz stream of an ELF. */
struct Elf *lp_minidebug_open(struct Elf *e, void **image);

/* The ELF image in an xz stream (size bytes): decompressed into a new
 * buffer (*out, *out_size; the caller frees it), at most max bytes.  0,
 * -EINVAL (not xz, corrupt, or larger than max) or -ENOMEM. */
int lp_xz_decode(const void *data, size_t size, size_t max, void **out, size_t *out_size);

/* ---- JIT symbol files (perfmap.c) ---- */

/* Parses one line of a /tmp/perf-PID.map (len bytes, no NUL needed):
 * "START SIZE name", START and SIZE hex (0x optional).  *name points into
 * line (name_len bytes, the line end left out).  0, or -EINVAL. */
int lp_perfmap_parse_line(const char *line, size_t len, uint64_t *start, uint64_t *size,
			  const char **name, size_t *name_len);

/* A perf map's symbols as perf holds them (jitsyms.c): every line, in
 * the file's order, overlapping ones too, in a model of perf's tree. */
struct lp_jitsyms;

/* An empty table; NULL on ENOMEM. */
struct lp_jitsyms *lp_jitsyms_new(void);
void lp_jitsyms_free(struct lp_jitsyms *j);

/* Adds [start, start + size) named by name's len bytes (copied), after
 * every symbol added before it, as perf's symbols__insert.  0, -EINVAL (the
 * range wraps, or 2^31 symbols) or -ENOMEM. */
int lp_jitsyms_add(struct lp_jitsyms *j, const char *name, size_t len, uint64_t start,
		   uint64_t size);

/* perf's symbols__find: the first symbol on the way down the tree from its
 * root whose range holds addr (a sizeless one holds its start), or NULL.
 * The pointer is valid until the next lp_jitsyms_add. */
const struct lp_sym *lp_jitsyms_find(const struct lp_jitsyms *j, uint64_t addr);

/* The symbols in the order they were added: count, and the i-th (NULL
 * past the end; valid until the next lp_jitsyms_add). */
size_t lp_jitsyms_count(const struct lp_jitsyms *j);
const struct lp_sym *lp_jitsyms_at(const struct lp_jitsyms *j, size_t i);

/* Adds every well-formed line of text (len bytes) to t, in order.  0 or
 * -ENOMEM. */
int lp_perfmap_add_text(struct lp_jitsyms *t, const char *text, size_t len);

struct lp_perfmaps;

struct lp_perfmaps *lp_perfmaps_new(void);
void lp_perfmaps_free(struct lp_perfmaps *pm);

/* The function of process pid's perf map (/tmp/perf-PID.map) containing
 * addr, or NULL; *file is set to the map file's name (borrowed until
 * lp_perfmaps_free).  The file is read on first use, and again (what was
 * appended since) when addr is not in it, at most every 10 ms. */
const struct lp_sym *lp_perfmap_find(struct lp_perfmaps *pm, uint32_t pid, uint64_t addr,
				     const char **file);

/* ---- names (demangle.c) ---- */

/* Whether name looks mangled: C++ and Rust legacy "_Z...", Rust v0 "_R...". */
bool lp_is_mangled(const char *name);

/* ---- build-ids (buildid.c) ---- */

#define LP_BUILD_ID_SIZE 20     /* the most perf.data holds */

/* Whether an object whose build-id is have (hn bytes) is the one recorded
 * with want (wn bytes).  Equal bytes, or, as perf allows for files written
 * without the size flag, want being have padded with zeros to 20 bytes.
 * An empty id matches nothing. */
bool lp_build_id_equal(const uint8_t *want, size_t wn, const uint8_t *have, size_t hn);

/* Lower-case hex of the first min(n, 20) bytes into buf (at least 41
 * bytes); returns buf. */
char *lp_build_id_hex(const uint8_t *id, size_t n, char *buf);


struct stat;

/* Whether a file of status st was last written since this machine booted
 * (a cached kallsyms older than that has another boot's addresses). */
bool lp_since_boot(const struct stat *st);

/* The idx-th directory of perf's build-id cache, into buf (size bytes):
 * $PERF_BUILDID_DIR (when set), then $HOME/.debug (when HOME is set and
 * not the same); false when there is no idx-th.  perf record fills the
 * first. */
bool lp_build_id_cache_dir(unsigned idx, char *buf, size_t size);

/* The idx-th candidate in perf's build-id cache for the object with build-id
 * id: DIR/.build-id/NN/REST/base ("elf", "debug", "vdso", "kallsyms"), or
 * DIR/.build-id/NN/REST itself when that is a file (the old layout); DIR
 * is $PERF_BUILDID_DIR (idx 0, when set), then $HOME/.debug.  Writes the
 * name into buf (size bytes) whether the file exists or not; returns false
 * when there is no idx-th cache directory. */
bool lp_build_id_cache_file(const uint8_t *id, size_t n, const char *base, unsigned idx,
			    char *buf, size_t size);

/* ---- the recording's build-ids by path (bidtab.c) ---- */

struct lp_bid_want {
	char *path;             /* owned by the table */
	uint8_t id[LP_BUILD_ID_SIZE];
	uint8_t size;
	bool warned;            /* the mismatch has been reported */
	size_t seq;             /* order of addition */
};

struct lp_bidtab;

/* An empty table; NULL (errno ENOMEM) on failure. */
struct lp_bidtab *lp_bidtab_new(void);
void lp_bidtab_free(struct lp_bidtab *t);

/* Records that path had build-id id (size 1..20 bytes; path copied); a later
 * entry for the same path replaces an earlier one.  Returns 0, -EINVAL
 * (no path, bad size) or -ENOMEM.  Invalidates pointers from lp_bidtab_find. */
int lp_bidtab_add(struct lp_bidtab *t, const char *path, const uint8_t *id, size_t size);

/* The entry of path (borrowed until the next add or free), or NULL. */
struct lp_bid_want *lp_bidtab_find(struct lp_bidtab *t, const char *path);

/* Number of distinct paths. */
size_t lp_bidtab_count(struct lp_bidtab *t);

/* ---- objects of a recording (bidfind.c) ---- */

/* Opens the object a recording names path with build-id w, from the first
 * file that has that build-id, in perf's order: perf's build-id cache, then
 * the object on this machine (path, or this process's vDSO for "[vdso]",
 * opened as lp_dsos_open_local does).  Symbols come from the file's
 * .symtab, else from a separate debug file: its debuglink file beside
 * path (a copy from the cache keeps path as its origin), then of the
 * build-id (/usr/lib/debug/.build-id/, then the cache's "debug").  When no file has
 * it, returns NULL (errno ENOENT or ENOMEM) and, the first time for w,
 * logs one LP_WARN line naming the object and both build-ids. */
struct lp_dso *lp_dso_open_recorded(const char *path, struct lp_bid_want *w);

/* Where a recording had the kernel: its reference symbol (name, e.g.
 * "_text") at addr, from the kernel map perf record writes
 * ("[kernel.kallsyms]_text", pgoff = that address). */
struct lp_kref {
	const char *name;
	uint64_t addr;
};

/* The kallsyms file for a recording made on the kernel with build-id w,
 * which put the kernel at ref (NULL: unknown), into buf when it is a file
 * of perf's cache:
 *  - the copy in perf's cache that puts ref->name at ref->addr, when the
 *    running kernel is another, or the copy is from this boot, or dflt
 *    (/proc/kallsyms) does not put it there (a recording of another boot);
 *  - else dflt, the running kernel's, when its /sys/kernel/notes build-id
 *    matches or cannot be read;
 *  - else any copy of the build-id in perf's cache;
 *  - else NULL, after one LP_WARN line (the first time for w). */
const char *lp_kallsyms_recorded(struct lp_bid_want *w, const struct lp_kref *ref,
				 const char *dflt, char *buf, size_t size);

/* After the copy lp_kallsyms_recorded chose was found not whole (why:
 * lp_kernel_flaw's words): one LP_WARN line says it is not used and what
 * stands in, which is returned: dflt when the running kernel is the
 * recorded one and dflt puts ref where the recording has it (the same
 * boot; ref NULL: not checked), else NULL (the frames stay unnamed). */
const char *lp_kallsyms_refused(struct lp_bid_want *w, const struct lp_kref *ref,
				const char *dflt, const char *copy, const char *why);

/* ---- objects as this machine has them (dsolocal.c) ---- */

/* Whether a map's path is the vDSO's, "[vdso]". */
bool lp_map_path_is_vdso(const char *path);

/* Whether a map's path can name a file worth opening: false for anonymous
 * and special maps ("", "//anon", "[heap]", ...), devices, SysV shared
 * memory and "(deleted)" files. */
bool lp_map_path_is_file(const char *path);

/* This process's vDSO image as an object named "[vdso]"; NULL (logged at
 * LP_DEBUG) when the process has no usable one. */
struct lp_dso *lp_dso_open_vdso(void);

/* The object at path as this machine has it, no build-id check: the file,
 * or this process's vDSO image for "[vdso]"; NULL (errno) for special,
 * anonymous and deleted mappings and for files that cannot be read. */
struct lp_dso *lp_dsos_open_local(const char *path);

/* ---- the kernel, the object cache, the resolver (kernel.c, dsos.c,
 * resolve.c) ---- */

/* The kernel's symbol table (borrowed), for counting and iteration. */
const struct lp_symtab *lp_kernel_symtab(const struct lp_kernel *k);

/* lp_dsos_get() that also returns the cache's own copy of the map's path
 * (*name, valid until lp_dsos_free(); NULL when the map has no path) so a
 * caller can name frames of objects that could not be opened.  Returns 0,
 * or -ENOMEM when the cache entry could not be made (*dso and *name NULL). */
int lp_dsos_lookup(struct lp_dsos *c, const struct lp_map *m,
		   struct lp_dso **dso, const char **name);

/* lp_dsos_lookup() for a map of process pid: a file the map's path does
 * not reach in this mount namespace is opened through /proc/PID/root (when
 * its device and inode match the map's).  pid 0: lp_dsos_lookup(). */
int lp_dsos_lookup_pid(struct lp_dsos *c, const struct lp_map *m, uint32_t pid,
		       struct lp_dso **dso, const char **name);

/* The recorded build-id entry of path (borrowed until the next
 * lp_dsos_expect_build_id), or NULL. */
struct lp_bid_want *lp_dsos_expected(struct lp_dsos *c, const char *path);

/* Number of objects (successful or not) the cache has tried to open. */
size_t lp_dsos_count(const struct lp_dsos *c);

/* Turns the resolver's frame cache on (the default) or off, for
 * measurements; hits/misses count lp_resolver_frame() calls since creation. */
void lp_resolver_set_cache(struct lp_resolver *r, bool on);
void lp_resolver_cache_stats(const struct lp_resolver *r, uint64_t *hits,
			     uint64_t *misses);

#endif
