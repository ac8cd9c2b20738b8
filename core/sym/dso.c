/*
 * dso.c - one object file: its path, build-id, PT_LOAD segments and symbol
 * table, read with libelf.
 *
 * Files are read with ELF_C_READ_MMAP; in-memory images (the vDSO) are
 * copied first, so libelf never touches the caller's pages, which may be
 * read-only.  The ELF handle is closed before returning: a dso keeps only
 * what lookups need.  Symbols are the defined, named STT_FUNC and
 * STT_GNU_IFUNC entries of .symtab and .dynsym, as perf 6.1 reads both
 * (a binary stripped but for a few symbols names the rest from
 * .dynsym); without .symtab, of the separate debug file's .symtab (looked
 * for before .dynsym is read, which it would replace), else of .dynsym;
 * C++ names stay mangled.  Data objects
 * (STT_OBJECT), which perf keeps with the functions, are read only when
 * an address no function holds is looked up (lp_dso_find_object), and
 * only those of the section holding it (struct osec).  The table is reserved
 * once for the section's symbol count.  PLT stubs are added as perf 6.1
 * names them (plt.c), from the object and the ELF its symbols came from;
 * naming them replays perf's loading of every symbol into its tree, so
 * for an object read from a file it is put off until a lookup falls
 * where the stubs can change its answer (lp_plt_span), which most
 * objects never see (docs/performance.md, "Measured choices").  A file's
 * own table of LP_OCACHE_MIN_SYMS functions or more is kept whole, its
 * stubs named, in luaprof's cache (kcache.c) and read from there while
 * the file is unchanged; so is a table from a separate debug file, keyed
 * by the debug file (which its build-id chose) and read from there while
 * that file is unchanged, the object's stubs named too (its build-id,
 * checked, says which object).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sym/sym_int.h"
#include "util/elffile.h"

#define BUILD_ID_MAX 64
#define LP_DEBUG_DIR "/usr/lib/debug"  /* separate debug files, by build-id */
#define MEM_IMAGE_MAX (16u << 20)   /* a larger in-memory image is bogus */

/* An allocated section, whose data objects are read when an address in
 * it is looked up: an object of another section cannot hold it. */
struct osec {
	uint64_t lo, hi;        /* [lo, hi) */
	size_t idx;             /* its index in the file */
	bool read;              /* its objects are in objs */
};

struct seg {
	uint64_t off, vaddr, filesz, memsz;
};

struct lp_dso {
	char *path;
	char *origin;           /* where the object is, when read from a copy */
	uint8_t build_id[BUILD_ID_MAX];
	size_t build_id_size;
	struct seg *segs;
	size_t nr_segs;
	struct lp_symtab *syms;
	bool full_symtab;       /* symbols came from a .symtab */
	char *symsrc;           /* the debug file they came from; NULL: the object */
	struct lp_symtab *objs; /* data objects of the sections read (osecs) */
	struct lp_symtab **objs_old;    /* the objs before, whose symbols were
					 * handed out: freed with the dso */
	size_t nr_objs_old;
	struct osec *osecs;     /* its allocated sections, read on first need */
	size_t nr_osecs;
	bool osecs_read;
	bool objs_none;         /* the file could not be read again */
	bool plt_later;         /* the PLT stubs not named yet: lookups in */
	uint64_t plt_lo, plt_hi;        /* [plt_lo, plt_hi) name them first */
	uint64_t plt_hull;      /* lp_plt_span's end, which plt_widen widens */
	struct lp_kcache cache; /* syms from the cache: its file's mapping (map
				 * NULL: syms read from the object) */
};

/* The object cache of a file being opened: the cache's directory (dir
 * NULL: none) and the file's status. */
struct ocache {
	const char *dir;
	struct stat st;
};

/* What a debug file's path is followed by in the key of the table cached
 * from it for its object (not a path anyone opens). */
#define DEBUG_KEY "\n(symbols of its object)"

/* d's build-id in hex into buf ("" when it has none). */
static const char *build_id_hex(const struct lp_dso *d, char buf[2 * BUILD_ID_MAX + 1])
{
	buf[0] = '\0';
	return d->build_id_size ? lp_build_id_hex(d->build_id, d->build_id_size, buf) : buf;
}

/* Takes d's finished table, stubs and all, from the cache when it has a
 * valid one under the name path (d's own file's, or its debug file's
 * with DEBUG_KEY) for the status oc->st and d's build-id; true if it
 * did. */
static bool from_cache(struct lp_dso *d, const char *path, const struct ocache *oc)
{
	char hex[2 * BUILD_ID_MAX + 1];

	if (!oc || !oc->dir || lp_ocache_open(oc->dir, path, &oc->st, &d->cache))
		return false;
	const struct lp_kcache *c = &d->cache;
	struct lp_symsrc from;
	lp_kcache_source(c, &from);
	struct lp_symtab *t = strcmp(c->names + c->mods[0], build_id_hex(d, hex)) ? NULL :
			      lp_symtab_import(c->recs, c->nr_recs, c->names, c->names_len, 1, &from);
	if (!t) {
		lp_kcache_close(&d->cache);
		return false;
	}
	lp_kcache_release(&d->cache);   /* checked: lookups read them again */
	lp_symtab_free(d->syms);
	d->syms = t;
	d->full_symtab = c->full_symtab;
	d->plt_later = false;
	return true;
}

/* Writes d's table, read from symsrc (of status oc->st: the object
 * runtime itself, or its debug file), to the cache under the name path
 * when it is large enough to be worth it; its PLT stubs are named first,
 * as a later lookup among them would (plt_now). */
static void to_cache(struct lp_dso *d, Elf *runtime, Elf *symsrc, const char *path,
		     const struct ocache *oc)
{
	if (!oc || !oc->dir || d->cache.map || lp_symtab_count(d->syms) < LP_OCACHE_MIN_SYMS)
		return;
	if (d->plt_later) {
		d->plt_later = false;
		int err = lp_plt_add(d->syms, runtime, symsrc);        /* ENOMEM: some */
		if (lp_symtab_finish(d->syms) || err)
			return;
	}
	char hex[2 * BUILD_ID_MAX + 1];
	lp_ocache_save(oc->dir, path, &oc->st, d->syms, d->full_symtab,
		       build_id_hex(d, hex));   /* or not */
}

/* After lp_symtab_finish: widens the span the stubs put off can change to
 * what settling them into d's table again can change: the whole of a
 * symbol starting in it (an alias a stub or hole replaces), and up to the
 * next symbol after it (where a sizeless one before it then ends). */
static void plt_widen(struct lp_dso *d)
{
	size_t n = lp_symtab_count(d->syms);
	uint64_t lo = d->plt_lo, hi = d->plt_hull, to = hi > UINT64_MAX - 8192 ? UINT64_MAX : hi + 8192;

	if (!d->plt_later)
		return;
	for (size_t i = 0; i < n; i++) {
		const struct lp_sym *s = lp_symtab_at(d->syms, i);
		if (s->start >= hi) {
			to = s->start;
			break;
		}
		if (s->start >= lo && s->end > to)
			to = s->end;
	}
	d->plt_hi = to > hi ? to : hi;
}

/* The stubs of runtime, with symbols from symsrc: named now, or, when
 * later (d read from a file, which can be read again), their span kept
 * for lp_dso_find. */
static int plt_stubs(struct lp_dso *d, Elf *runtime, Elf *symsrc, bool later)
{
	d->plt_later = false;
	if (!later)
		return lp_plt_add(d->syms, runtime, symsrc);
	lp_plt_span(runtime, symsrc, &d->plt_lo, &d->plt_hull);
	d->plt_hi = d->plt_hull;
	d->plt_later = d->plt_lo < d->plt_hull;
	return 0;
}

/* Takes the first GNU build-id note in data.  True when found. */
static bool note_build_id(struct lp_dso *d, Elf_Data *data)
{
	GElf_Nhdr nh;
	size_t off = 0, name_off, desc_off, next;

	while ((next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		const char *base = data->d_buf;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp(base + name_off, "GNU", 4) && nh.n_descsz > 0) {
			size_t n = nh.n_descsz < BUILD_ID_MAX ? nh.n_descsz : BUILD_ID_MAX;
			memcpy(d->build_id, base + desc_off, n);
			d->build_id_size = n;
			return true;
		}
		off = next;
	}
	return false;
}

/* The build-id from a PT_NOTE segment, unless d has one. */
static void phdr_build_id(struct lp_dso *d, Elf *e, const GElf_Phdr *ph)
{
	if (d->build_id_size)
		return;
	Elf_Data *nd = elf_getdata_rawchunk(e, (int64_t)ph->p_offset, ph->p_filesz,
					    ph->p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
	if (nd)
		note_build_id(d, nd);
}

/* The build-id from an SHT_NOTE section, unless d has one. */
static void scn_build_id(struct lp_dso *d, Elf_Scn *scn)
{
	Elf_Data *nd = d->build_id_size ? NULL : elf_getdata(scn, NULL);
	if (nd)
		note_build_id(d, nd);
}

/* PT_LOAD segments, and the build-id from PT_NOTE (present even when the
 * section headers are gone). */
static int read_phdrs(struct lp_dso *d, Elf *e)
{
	size_t n;

	if (elf_getphdrnum(e, &n) || n == 0)
		return 0;
	d->segs = calloc(n, sizeof *d->segs);
	if (!d->segs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(e, (int)i, &ph))
			continue;
		if (ph.p_type == PT_LOAD) {
			d->segs[d->nr_segs++] = (struct seg){ ph.p_offset, ph.p_vaddr,
							      ph.p_filesz, ph.p_memsz };
		} else if (ph.p_type == PT_NOTE) {
			phdr_build_id(d, e, &ph);
		}
	}
	return 0;
}

/* perf's ranks of bindings for aliases (choose_best_symbol): global,
 * then any other but weak (STB_GNU_UNIQUE is not STB_GLOBAL there), then
 * weak. */
static unsigned bind_prio(unsigned bind)
{
	switch (bind) {
	case STB_GLOBAL:
		return LP_SYM_GLOBAL;
	case STB_WEAK:
		return LP_SYM_WEAK;
	default:
		return LP_SYM_LOCAL;
	}
}

/* True for the symbols perf keeps: functions, and named labels (NOTYPE,
 * as assembly entry points such as ld.so's _start are) in code sections. */
static bool wanted(Elf *e, const GElf_Sym *s)
{
	unsigned type = GELF_ST_TYPE(s->st_info);
	if (!s->st_name || s->st_shndx == SHN_UNDEF || s->st_shndx >= SHN_LORESERVE)
		return false;
	if (type == STT_FUNC || type == STT_GNU_IFUNC)
		return true;
	GElf_Shdr sh;
	Elf_Scn *scn = type == STT_NOTYPE ? elf_getscn(e, s->st_shndx) : NULL;
	return scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR);
}

/* Adds the function symbols of one symbol table section. */
static int read_syms(struct lp_dso *d, Elf *e, Elf_Scn *scn)
{
	GElf_Shdr sh;
	Elf_Data *data;
	size_t esz = gelf_fsize(e, ELF_T_SYM, 1, EV_CURRENT);

	if (!gelf_getshdr(scn, &sh) || !(data = elf_getdata(scn, NULL)) || !esz)
		return 0;
	size_t n = data->d_size / esz;
	if (n > 1 && lp_symtab_reserve(d->syms, n - 1))
		return -ENOMEM;
	for (size_t i = 1; i < n; i++) {
		GElf_Sym s;
		if (!gelf_getsym(data, (int)i, &s))
			break;
		if (!wanted(e, &s))
			continue;
		const char *name = elf_strptr(e, sh.sh_link, s.st_name);
		if (!name || !*name)
			continue;
		if (lp_symtab_add_ex(d->syms, name, s.st_value, s.st_size,
				     bind_prio(GELF_ST_BIND(s.st_info))))
			return -ENOMEM;
	}
	return 0;
}

/* The .symtab section of e, or NULL. */
static Elf_Scn *find_symtab(Elf *e)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB && sh.sh_size)
			return scn;
	return NULL;
}

/* lp_dso_load_debug_file(), telling whether the symbols were replaced.
 * runtime: the object's own ELF, for its PLT stubs (NULL: read from
 * d->path); oc: the cache to keep the table in, under key (NULL:
 * none). */
static bool debug_file_syms(struct lp_dso *d, const char *path, Elf *runtime,
			    const struct ocache *oc, const char *key)
{
	int fd;
	Elf *e;
	bool replaced = false;

	if (lp_elf_open(path, 0, &fd, &e))
		return false;
	Elf_Scn *scn = find_symtab(e);
	struct lp_symtab *keep = d->syms;
	bool later = d->plt_later;
	uint64_t lo = d->plt_lo, hi = d->plt_hi, hull = d->plt_hull;
	if (scn && (d->syms = lp_symtab_new())) {
		if (read_syms(d, e, scn) ||
		    (runtime ? plt_stubs(d, runtime, e, true)
			     : (d->plt_later = false, lp_plt_add_file(d->syms, d->path, e))) ||
		    lp_symtab_finish(d->syms)) {
			lp_symtab_free(d->syms);
			d->syms = keep;
			d->plt_later = later, d->plt_lo = lo, d->plt_hi = hi, d->plt_hull = hull;
		} else {
			plt_widen(d);
			lp_symtab_free(keep);
			d->full_symtab = replaced = true;
			free(d->symsrc);
			d->symsrc = strdup(path);       /* NULL: objects from d itself */
			if (runtime && oc)
				to_cache(d, runtime, e, key, oc);
		}
	} else {
		d->syms = keep;
	}
	lp_elf_close(fd, e);
	return replaced;
}

void lp_dso_load_debug_file(struct lp_dso *d, const char *path)
{
	debug_file_syms(d, path, NULL, NULL, NULL);
}

/* Takes the symbols of the object's separate debug file, when there is
 * one (lp_debug_file_find: debuglink, build-id directory, perf's cache),
 * with the PLT stubs of runtime, the object itself: from the cache
 * directory oc->dir when it holds them for that file as it is now (oc
 * NULL: no cache); true if it did. */
static bool load_debug_syms(struct lp_dso *d, Elf *runtime, const struct ocache *oc)
{
	char path[PATH_MAX];
	if (!lp_debug_file_find(lp_dso_origin(d), runtime, d->build_id, d->build_id_size, path,
				sizeof path))
		return false;
	/* keyed by the file in this role: opened as an object of its own,
	 * it has a table of its own (no PLT stubs), under its own name */
	char key[PATH_MAX + sizeof DEBUG_KEY];
	struct ocache doc = { .dir = oc ? oc->dir : NULL };
	if (doc.dir && (stat(path, &doc.st) ||
			(size_t)snprintf(key, sizeof key, "%s" DEBUG_KEY, path) >= sizeof key))
		doc.dir = NULL;
	if (from_cache(d, key, &doc)) {
		free(d->symsrc);
		d->symsrc = strdup(path);       /* NULL: objects from d itself */
		return true;
	}
	return debug_file_syms(d, path, runtime, &doc, key);
}

int lp_dso_set_origin(struct lp_dso *d, const char *path)
{
	int fd;
	Elf *e;
	if (!(d->origin = strdup(path)))
		return -ENOMEM;
	if (!d->full_symtab && !lp_elf_open(d->path, 0, &fd, &e)) {
		load_debug_syms(d, e, NULL);
		lp_elf_close(fd, e);
	}
	return 0;
}

/* Adds the functions of the object's MiniDebugInfo (which .dynsym lacks);
 * 0 or -ENOMEM. */
static int read_minidebug(struct lp_dso *d, Elf *e)
{
	void *image;
	Elf *mini = lp_minidebug_open(e, &image);
	Elf_Scn *scn = mini ? find_symtab(mini) : NULL;
	int rc = scn ? read_syms(d, mini, scn) : 0;
	if (scn && !rc)
		d->full_symtab = true;
	if (mini)
		elf_end(mini);
	free(image);
	return rc;
}

/* Symbols (.symtab and .dynsym, else the debug file's when try_debug,
 * else .dynsym) with the PLT stubs perf names, given the table they came from; and, if
 * the segments had none, the build-id from note sections.  try_debug: e
 * is the file at d->path (stubs may be named later), whose own symbols
 * are taken from the cache oc when it has them. */
static int read_scns(struct lp_dso *d, Elf *e, bool try_debug, const struct ocache *oc)
{
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB && !symtab)
			symtab = scn;
		else if (sh.sh_type == SHT_DYNSYM && !dynsym)
			dynsym = scn;
		else if (sh.sh_type == SHT_NOTE)
			scn_build_id(d, scn);
	}
	d->full_symtab = symtab != NULL;
	if (!symtab && try_debug && load_debug_syms(d, e, oc))
		return 0;       /* .dynsym would only be replaced */
	if (from_cache(d, d->path, oc))
		return 0;
	/* perf's tables: .symtab, then .dynsym (which has what a partial
	 * .symtab lacks: a binary stripped but for a few symbols) */
	if ((symtab && read_syms(d, e, symtab)) || (dynsym && read_syms(d, e, dynsym)))
		return -ENOMEM;
	if (!symtab && try_debug && read_minidebug(d, e))
		return -ENOMEM;
	return plt_stubs(d, e, e, try_debug);
}

/* The dso of an ELF image; try_debug: symbols from a separate debug file
 * when the image has no .symtab; oc: the cache of the file's own symbols,
 * or NULL. */
static struct lp_dso *dso_from_elf(const char *name, Elf *e, bool try_debug,
				   const struct ocache *oc)
{
	GElf_Ehdr eh;

	if (elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh) ||
	    (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)) {
		errno = ENOEXEC;
		return NULL;
	}
	struct lp_dso *d = calloc(1, sizeof *d);
	if (!d)
		goto nomem;
	d->path = strdup(name);
	d->syms = lp_symtab_new();
	if (!d->path || !d->syms || read_phdrs(d, e) || read_scns(d, e, try_debug, oc) ||
	    (!d->cache.map && lp_symtab_finish(d->syms)))
		goto nomem;
	plt_widen(d);
	return d;
nomem:
	lp_dso_free(d);
	errno = ENOMEM;
	return NULL;
}

struct lp_dso *lp_dso_open(const char *path)
{
	int fd;
	Elf *e;
	int rc = lp_elf_open(path, LP_ELF_REGULAR, &fd, &e);

	if (rc) {
		errno = -rc;
		return NULL;
	}
	char dir[PATH_MAX];
	struct ocache oc = { .dir = lp_kcache_dir(dir, sizeof dir) ? dir : NULL };
	if (fstat(fd, &oc.st))
		oc.dir = NULL;
	struct lp_dso *d = dso_from_elf(path, e, true, &oc);
	int err = errno;
	if (d && !d->symsrc)    /* a debug file's table was cached by its name */
		to_cache(d, e, e, path, &oc);
	lp_elf_close(fd, e);
	if (!d)
		errno = err;
	return d;
}

/* The build-id alone: PT_NOTE segments first, then SHT_NOTE sections. */
static void read_build_id(struct lp_dso *d, Elf *e)
{
	size_t n = 0;
	if (elf_getphdrnum(e, &n))
		n = 0;
	for (size_t i = 0; i < n && !d->build_id_size; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_NOTE)
			phdr_build_id(d, e, &ph);
	}
	Elf_Scn *scn = NULL;
	while (!d->build_id_size && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_NOTE)
			scn_build_id(d, scn);
	}
}

size_t lp_elf_build_id(const char *path, uint8_t *id, size_t max)
{
	struct lp_dso d = { 0 };
	int fd;
	Elf *e;
	if (lp_elf_open(path, LP_ELF_REGULAR, &fd, &e))
		return 0;
	read_build_id(&d, e);
	lp_elf_close(fd, e);
	size_t n = d.build_id_size < max ? d.build_id_size : max;
	memcpy(id, d.build_id, n);
	return n;
}

struct lp_dso *lp_dso_open_mem(const char *name, const void *image, size_t size)
{
	if (!image || size < sizeof(Elf64_Ehdr) || size > MEM_IMAGE_MAX) {
		errno = ENOEXEC;
		return NULL;
	}
	char *copy = malloc(size);
	if (!copy)
		return NULL;
	memcpy(copy, image, size);
	Elf *e = lp_elf_mem(copy, size);
	struct lp_dso *d = NULL;
	int err = ENOEXEC;
	if (e) {
		d = dso_from_elf(name, e, false, NULL);
		err = errno;
		elf_end(e);
	}
	free(copy);
	if (!d)
		errno = err;
	return d;
}

size_t lp_dso_mem_size(const void *image)
{
	const Elf64_Ehdr *eh = image;
	const unsigned char native = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ?
				     ELFDATA2LSB : ELFDATA2MSB;

	if (!image || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != native)
		return 0;
	uint64_t size = eh->e_ehsize;
	uint64_t sh_end = eh->e_shoff + (uint64_t)eh->e_shnum * eh->e_shentsize;
	uint64_t ph_end = eh->e_phoff + (uint64_t)eh->e_phnum * eh->e_phentsize;
	size = sh_end > size ? sh_end : size;
	size = ph_end > size ? ph_end : size;
	if (eh->e_phentsize != sizeof(Elf64_Phdr) || size > MEM_IMAGE_MAX)
		return size > MEM_IMAGE_MAX ? 0 : size;
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(const void *)
			       ((const char *)image + eh->e_phoff);
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		uint64_t end = ph[i].p_offset + ph[i].p_filesz;
		size = end > size ? end : size;
	}
	return size > MEM_IMAGE_MAX ? 0 : size;
}

void lp_dso_free(struct lp_dso *d)
{
	if (!d)
		return;
	lp_symtab_free(d->syms);
	lp_symtab_free(d->objs);
	for (size_t i = 0; i < d->nr_objs_old; i++)
		lp_symtab_free(d->objs_old[i]);
	free(d->objs_old);
	free(d->osecs);
	lp_kcache_close(&d->cache);
	free(d->symsrc);
	free(d->segs);
	free(d->origin);
	free(d->path);
	free(d);
}

const char *lp_dso_path(const struct lp_dso *d)
{
	return d->path;
}

const char *lp_dso_origin(const struct lp_dso *d)
{
	return d->origin ? d->origin : d->path;
}

size_t lp_dso_build_id(const struct lp_dso *d, const uint8_t **id)
{
	*id = d->build_id;
	return d->build_id_size;
}

/* The segment of d whose bytes convert file offset off (its file bytes
 * first; then a segment's zero-filled tail, memsz, which a mapping can
 * reach on the page after the last file byte), and in *pass which of the
 * two held it; NULL when none does. */
static const struct seg *seg_of(const struct lp_dso *d, uint64_t off, int *pass)
{
	for (*pass = 0; *pass < 2; ++*pass) {
		for (size_t i = 0; i < d->nr_segs; i++) {
			const struct seg *s = &d->segs[i];
			uint64_t len = *pass ? s->memsz : s->filesz;
			if (off >= s->off && off - s->off < len)
				return s;
		}
	}
	return NULL;
}

int lp_dso_file_to_vaddr(const struct lp_dso *d, uint64_t off, uint64_t *vaddr)
{
	int pass;
	const struct seg *s = seg_of(d, off, &pass);
	if (!s)
		return -ENOENT;
	*vaddr = s->vaddr + (off - s->off);
	return 0;
}

int lp_dso_file_span(const struct lp_dso *d, uint64_t off, uint64_t *vaddr, uint64_t *lo,
		     uint64_t *hi)
{
	int pass;
	const struct seg *s = seg_of(d, off, &pass);
	*lo = *hi = off;
	if (!s)
		return -ENOENT;
	*vaddr = s->vaddr + (off - s->off);
	if (pass)               /* a zero-filled tail: the offset alone */
		return 0;
	*lo = s->off;
	*hi = s->off + s->filesz;
	/* the file bytes of a segment before it, which convert them first */
	for (const struct seg *e = d->segs; e < s; e++) {
		if (off < e->off)
			*hi = e->off < *hi ? e->off : *hi;
		else if (e->off + e->filesz > *lo)
			*lo = e->off + e->filesz;
	}
	return 0;
}

/* Names the stubs put off (plt_stubs): reads the object, and the file its
 * symbols came from, again and settles the table with them.  Nothing is
 * added when a file cannot be read or the object is no longer the one
 * loaded (another build-id). */
static void plt_now(struct lp_dso *d)
{
	int fd, sfd = -1;
	Elf *e, *se = NULL;
	struct lp_dso now = { 0 };

	d->plt_later = false;
	if (lp_elf_open(d->path, 0, &fd, &e))
		return;
	read_build_id(&now, e);
	if (now.build_id_size == d->build_id_size &&
	    !memcmp(now.build_id, d->build_id, d->build_id_size) &&
	    (!d->symsrc || !lp_elf_open(d->symsrc, 0, &sfd, &se))) {
		lp_plt_add(d->syms, e, se ? se : e);    /* ENOMEM: some of them */
		lp_symtab_finish(d->syms);
	}
	if (se)
		lp_elf_close(sfd, se);
	lp_elf_close(fd, e);
}

const struct lp_sym *lp_dso_find_span(struct lp_dso *d, uint64_t vaddr, uint64_t *lo, uint64_t *hi)
{
	if (d->plt_later && vaddr >= d->plt_lo && vaddr < d->plt_hi)
		plt_now(d);
	const struct lp_sym *s = lp_symtab_find_span(d->syms, vaddr, true, lo, hi);
	/* the stubs not named yet: a lookup among them names them first,
	 * which can change what the addresses around them are given */
	if (d->plt_later && vaddr < d->plt_lo && *hi > d->plt_lo)
		*hi = d->plt_lo;
	else if (d->plt_later && vaddr >= d->plt_hi && *lo < d->plt_hi)
		*lo = d->plt_hi;
	return s;
}

const struct lp_sym *lp_dso_find(struct lp_dso *d, uint64_t vaddr)
{
	uint64_t lo, hi;
	return lp_dso_find_span(d, vaddr, &lo, &hi);
}

/* The allocated section of d holding vaddr, or NULL. */
static struct osec *osec_of(struct lp_dso *d, uint64_t vaddr)
{
	for (size_t i = 0; i < d->nr_osecs; i++)
		if (vaddr >= d->osecs[i].lo && vaddr < d->osecs[i].hi)
			return &d->osecs[i];
	return NULL;
}

/* Notes e's allocated sections in d->osecs; 0 or -ENOMEM. */
static int read_osecs(struct lp_dso *d, Elf *e)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t n = 0;

	while ((scn = elf_nextscn(e, scn)))
		n++;
	if (n && !(d->osecs = calloc(n, sizeof *d->osecs)))
		return -ENOMEM;
	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC) && sh.sh_size &&
		    sh.sh_addr <= UINT64_MAX - sh.sh_size)
			d->osecs[d->nr_osecs++] = (struct osec){
				.lo = sh.sh_addr, .hi = sh.sh_addr + sh.sh_size, .idx = elf_ndxscn(scn) };
	return 0;
}

/* Whether section idx of d had its objects read. */
static bool osec_read(const struct lp_dso *d, size_t idx)
{
	for (size_t i = 0; i < d->nr_osecs; i++)
		if (d->osecs[i].idx == idx)
			return d->osecs[i].read;
	return false;
}

struct objects_arg {
	const struct lp_dso *d;
	struct lp_symtab *t;
	Elf *e;
	size_t strndx;
};

/* lp_elf_each_sym's callback of read_objects. */
static int add_object(void *arg, size_t i, const GElf_Sym *sym)
{
	const struct objects_arg *a = arg;
	const char *name;

	(void)i;
	if (GELF_ST_TYPE(sym->st_info) != STT_OBJECT || !sym->st_name ||
	    !osec_read(a->d, sym->st_shndx) || !(name = elf_strptr(a->e, a->strndx, sym->st_name)))
		return 0;
	return lp_symtab_add_ex(a->t, name, sym->st_value, sym->st_size,
				bind_prio(GELF_ST_BIND(sym->st_info))) ? -ENOMEM : 0;
}

/* Adds to t the data objects (STT_OBJECT, named) of the symbol table scn
 * of e (opened with fd) that belong to a section of d marked read: read
 * a window at a time (lp_elf_each_sym), as most of a large table is
 * functions.  0 or -ENOMEM; a table that can't be read whole gives the
 * objects before the fault. */
static int read_objects(const struct lp_dso *d, struct lp_symtab *t, Elf *e, int fd,
			Elf_Scn *scn)
{
	GElf_Shdr sh;
	if (!gelf_getshdr(scn, &sh))
		return 0;
	struct objects_arg a = { d, t, e, sh.sh_link };
	return lp_elf_each_sym(e, fd, scn, add_object, &a) == -ENOMEM ? -ENOMEM : 0;
}

/* Keeps d->objs, about to be replaced, until d is freed: the symbols
 * found in it stay valid (lp_dso_find_object).  0 or -ENOMEM. */
static int retire_objects(struct lp_dso *d)
{
	if (!d->objs)
		return 0;
	struct lp_symtab **v = realloc(d->objs_old, (d->nr_objs_old + 1) * sizeof *v);
	if (!v)
		return -ENOMEM;
	d->objs_old = v;
	v[d->nr_objs_old++] = d->objs;
	d->objs = NULL;
	return 0;
}

/* Makes d->objs the objects of every section marked read, after marking
 * the one holding vaddr (reading the sections first, once); objs stays
 * as it was when vaddr is in no allocated section or its objects were
 * read.  0, or -1 when the file can't be read again: then no object is
 * ever looked up (d->objs_none). */
static int load_objects(struct lp_dso *d, uint64_t vaddr)
{
	int fd;
	Elf *e;
	struct osec *o;

	if (d->path[0] == '[' || lp_elf_open(d->symsrc ? d->symsrc : d->path, 0, &fd, &e))
		return -1;
	int err = d->osecs_read ? 0 : read_osecs(d, e);
	d->osecs_read = !err;
	if (err || !(o = osec_of(d, vaddr)) || o->read) {
		lp_elf_close(fd, e);
		return err ? -1 : 0;
	}
	o->read = true;
	Elf_Scn *scn[2];
	int n = lp_elf_sym_tables(e, scn);      /* as the functions */
	struct lp_symtab *t = n ? lp_symtab_new() : NULL;
	for (int i = 0; t && !err && i < n; i++)
		err = read_objects(d, t, e, fd, scn[i]);
	if (t && (err || lp_symtab_finish(t))) {
		lp_symtab_free(t);
		t = NULL;
	}
	if (t && !retire_objects(d))
		d->objs = t;
	else            /* out of memory: this section's objects unnamed */
		lp_symtab_free(t);
	lp_elf_close(fd, e);
	return 0;
}

const struct lp_sym *lp_dso_find_object_span(struct lp_dso *d, uint64_t vaddr, uint64_t *lo,
					     uint64_t *hi)
{
	struct osec *o = NULL;

	*lo = *hi = vaddr;
	if (d->objs_none)
		return NULL;
	if (d->osecs_read && !(o = osec_of(d, vaddr)))
		return NULL;
	if ((!o || !o->read) && load_objects(d, vaddr)) {
		d->objs_none = true;
		return NULL;
	}
	/* the section's objects are all read now: what a later read (of
	 * another section's) adds lies outside it */
	if (!(o = osec_of(d, vaddr)) || !o->read)
		return NULL;
	const struct lp_sym *s = NULL;
	if (d->objs)
		s = lp_symtab_find_span(d->objs, vaddr, true, lo, hi);
	else
		*lo = 0, *hi = UINT64_MAX;
	*lo = *lo > o->lo ? *lo : o->lo;
	*hi = *hi < o->hi ? *hi : o->hi;
	return s;
}

const struct lp_sym *lp_dso_find_object(struct lp_dso *d, uint64_t vaddr)
{
	uint64_t lo, hi;
	return lp_dso_find_object_span(d, vaddr, &lo, &hi);
}

const struct lp_symtab *lp_dso_symtab(struct lp_dso *d)
{
	if (d->plt_later)
		plt_now(d);
	return d->syms;
}

bool lp_dso_has_symtab(const struct lp_dso *d)
{
	return d->full_symtab;
}

bool lp_dso_from_cache(const struct lp_dso *d)
{
	return d->cache.map != NULL;
}
