/*
 * kernel.c - kernel symbols from a kallsyms-format file.
 *
 * Lines are "ffffffff81000000 T _stext" or, for modules (and the kernel's
 * pseudo-modules such as [bpf] and [__builtin__ftrace]),
 * "ffffffffc0201000 t name\t[module]".  Text symbols (t, T, w, W) are kept
 * with the preference global > weak > local for aliases; data symbols are
 * dropped.  Sizes are unknown: a symbol ends where the next one starts,
 * except that the last symbol of the kernel or of a module ends at most at
 * its page end (the symbol tag is the module index).  Zero addresses (what
 * kptr_restrict shows) are skipped; a file with only those is "hidden".
 * Names are cut at 511 bytes (the kernel's limit, KSYM_NAME_LEN - 1), and
 * lines of 1 MiB or more are skipped whole.
 *
 * Whole or cut short: a copy of kallsyms (perf's build-id cache) is a file
 * anything may have cut (a full disk under perf's copyfile, a crash, a
 * hand), and a copy cut after its first lines still places the kernel
 * where the recording has it, naming a handful of frames and leaving the
 * rest unnamed without a word.  So the parse also tells whether the file
 * looks whole (lp_kernel_flaw): its last line ends with a newline, and
 * the kernel's own lines (those without a module) hold _stext and _etext,
 * the bounds of the kernel's text, in address order as the kernel lists
 * them (scripts/kallsyms sorts its table).  A copy cut between whole lines
 * after _etext, in the modules, is not told from one with fewer modules:
 * only module frames can then go unnamed.  The callers choose what to do;
 * the replay's is resolve.c's.
 *
 * /proc/kallsyms has 100-200k lines (5 MB or more).  It is read in 64 KiB
 * pieces and parsed in place, with no per-line stdio or allocation; names
 * are copied into 2 MiB huge-page chunks and the table is reserved once
 * from the file size (see bigbuf.h: page faults, one per 4 KiB page, were
 * most of the cost).  kallsyms lists the kernel in address order, so the
 * table's finish is linear.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "luaprof/luaprof.h"
#include "sym/sym_int.h"

#define KALLSYMS_GUESS ((size_t)8 << 20)        /* /proc/kallsyms has no size */
#define READ_SIZE ((size_t)64 << 10)
#define MAX_LINE ((size_t)1 << 20)              /* longer lines are skipped */
#define NAMES_CHUNK ((size_t)2 << 20)           /* a huge page */
#define MAX_NAME 511
#define MIN_LINE 20             /* about the shortest real line: sizes the table */
#define MAX_MODS 65535

struct lp_kernel {
	struct lp_symtab *syms;
	const char **mods;      /* [0] "[kernel.kallsyms]", [tag] "[module]" */
	size_t nr_mods, cap_mods;
	struct lp_names names;  /* symbol and module names */
	bool hidden;
	enum lp_kflaw flaw;
	struct lp_kcache cache; /* a table from the cache: its names' mapping */
};

struct kparse {
	size_t lines, nonzero;
	/* whether the file looks whole (see lp_kernel_flaw) */
	bool cut;               /* the last line has no newline */
	bool stext, etext, unsorted;
	uint64_t stext_addr, etext_addr, last_core;
	/* The last symbol read, added once the next one tells its size. */
	bool pending;
	uint64_t pend_addr;
	unsigned pend_prio;
	int pend_tag;
	const char *pend_name;
};

/* Adds the pending symbol, sized up to next_addr when that follows it in
 * the same object, else sizeless.  This is perf's order for kallsyms: ends
 * are fixed up before aliases are settled, so of aliases at one address
 * only the last listed gets a size, and perf's preference for a sized
 * symbol makes it the one kept. */
static int flush_pending(struct lp_kernel *k, struct kparse *st, uint64_t next_addr, int next_tag)
{
	if (!st->pending)
		return 0;
	st->pending = false;
	uint64_t size = next_tag == st->pend_tag && next_addr > st->pend_addr ?
			next_addr - st->pend_addr : 0;
	return lp_symtab_add_borrowed(k->syms, st->pend_name, st->pend_addr, size, st->pend_prio,
				      (uint16_t)st->pend_tag);
}

void lp_kernel_free(struct lp_kernel *k)
{
	if (!k)
		return;
	lp_symtab_free(k->syms);
	lp_names_free(&k->names);
	lp_kcache_close(&k->cache);
	free(k->mods);
	free(k);
}

static struct lp_kernel *kernel_new(void)
{
	struct lp_kernel *k = calloc(1, sizeof *k);

	if (!k)
		return NULL;
	k->cap_mods = 16;
	k->names.chunk = NAMES_CHUNK;
	k->mods = malloc(k->cap_mods * sizeof *k->mods);
	k->syms = lp_symtab_new();
	if (!k->mods || !k->syms) {
		lp_kernel_free(k);
		errno = ENOMEM;
		return NULL;
	}
	k->mods[k->nr_mods++] = "[kernel.kallsyms]";
	return k;
}

/* The tag of module mod (n bytes, no brackets), added when new.  Lines come
 * grouped by module, so the newest module is tried first.  -1 on ENOMEM. */
static int module_tag(struct lp_kernel *k, const char *mod, size_t n)
{
	char buf[256];

	if (n > sizeof buf - 3)
		n = sizeof buf - 3;
	for (size_t i = k->nr_mods; i-- > 1;)
		if (!strncmp(k->mods[i] + 1, mod, n) && k->mods[i][n + 1] == ']' &&
		    k->mods[i][n + 2] == '\0')
			return (int)i;
	if (k->nr_mods > MAX_MODS)
		return 0;
	if (k->nr_mods == k->cap_mods) {
		const char **m = realloc(k->mods, 2 * k->cap_mods * sizeof *m);
		if (!m)
			return -1;
		k->mods = m;
		k->cap_mods *= 2;
	}
	buf[0] = '[';
	memcpy(buf + 1, mod, n);
	buf[n + 1] = ']';
	const char *name = lp_names_dup(&k->names, buf, n + 2);
	if (!name)
		return -1;
	k->mods[k->nr_mods] = name;
	return (int)k->nr_mods++;
}

/* Hex digit values plus one; 0 for a byte that is not a hex digit. */
static const uint8_t hex_digit[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5,
	['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

static const char *parse_hex(const char *p, const char *end, uint64_t *v)
{
	const char *s = p;
	uint64_t x = 0;
	unsigned d;

	for (; p < end && (d = hex_digit[(unsigned char)*p]); p++)
		x = x << 4 | (d - 1);
	*v = x;
	return p == s ? NULL : p;
}

static unsigned type_prio(char type)
{
	switch (type) {
	case 'T': return LP_SYM_GLOBAL;
	case 'W': return LP_SYM_WEAK;
	case 't': case 'w': return LP_SYM_LOCAL;
	default: return 0;      /* not code */
	}
}

/* Notes a line of the kernel's own (no module) at addr named name (n
 * bytes), for lp_kernel_flaw: its text bounds, and the address order. */
static void note_core(struct kparse *st, uint64_t addr, const char *name, size_t n)
{
	if (!addr)
		return;         /* kptr_restrict's zeros */
	if (addr < st->last_core)
		st->unsorted = true;
	st->last_core = addr;
	if (n == 6 && !memcmp(name, "_stext", 6) && !st->stext)
		st->stext = true, st->stext_addr = addr;
	else if (n == 6 && !memcmp(name, "_etext", 6) && !st->etext)
		st->etext = true, st->etext_addr = addr;
}

/* One line [p, end) without its newline; its name becomes the pending
 * symbol.  0 or -ENOMEM. */
static int parse_line(struct lp_kernel *k, const char *p, const char *end, struct kparse *st)
{
	uint64_t addr;
	const char *q = parse_hex(p, end, &addr);

	if (!q || end - q < 4 || q[0] != ' ' || q[2] != ' ')
		return 0;
	st->lines++;
	if (addr)
		st->nonzero++;
	const char *name = q + 3, *tab = memchr(name, '\t', (size_t)(end - name));
	if (!tab)
		note_core(st, addr, name, (size_t)(end - name));
	unsigned prio = type_prio(q[1]);
	if (!addr || !prio)
		return 0;
	int tag = 0;
	if (tab) {
		const char *mod = tab + 1, *close = memchr(mod, ']', (size_t)(end - mod));
		if (mod < end && *mod == '[' && close)
			tag = module_tag(k, mod + 1, (size_t)(close - mod - 1));
		end = tab;
	}
	size_t len = (size_t)(end - name) > MAX_NAME ? MAX_NAME : (size_t)(end - name);
	if (tag < 0 || !len || !*name)
		return tag < 0 ? -ENOMEM : 0;
	const char *copy = lp_names_dup(&k->names, name, len);
	if (!copy)
		return -ENOMEM;
	int rc = flush_pending(k, st, addr, tag);
	st->pend_name = copy;
	st->pend_addr = addr;
	st->pend_prio = prio;
	st->pend_tag = tag;
	st->pending = true;
	return rc;
}

/* Parses the complete lines of buf[0, len); returns how many bytes were
 * consumed.  *skip: the first line is the end of an over-long one. */
static size_t parse_lines(struct lp_kernel *k, const char *buf, size_t len,
			  struct kparse *st, bool *skip, int *err)
{
	const char *p = buf, *end = buf + len, *nl;

	while (!*err && (nl = memchr(p, '\n', (size_t)(end - p)))) {
		if (!*skip)
			*err = parse_line(k, p, nl, st);
		*skip = false;
		p = nl + 1;
	}
	return (size_t)(p - buf);
}

/* The symbol table's room: about one symbol per MIN_LINE bytes of the
 * file (its size, or a guess for /proc), more than a real kallsyms has.
 * Untouched room costs address space only, and shorter lines just make
 * the table grow. */
static int reserve_table(struct lp_kernel *k, int fd)
{
	struct stat sb;
	size_t size = KALLSYMS_GUESS;

	if (!fstat(fd, &sb) && S_ISREG(sb.st_mode) && sb.st_size > 0)
		size = (size_t)sb.st_size;
	return lp_symtab_reserve(k->syms, size / MIN_LINE + 1);
}

/* Reads and parses the file, READ_SIZE bytes at a time; a line longer than
 * the buffer grows it, up to MAX_LINE, where the line is skipped. */
static int read_kallsyms(struct lp_kernel *k, int fd, struct kparse *st)
{
	size_t cap = READ_SIZE, have = 0;
	char *buf = malloc(cap);
	bool skip = false;
	int err = reserve_table(k, fd);

	if (!buf)
		err = -ENOMEM;
	while (!err) {
		ssize_t n = read(fd, buf + have, cap - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		have += (size_t)n;
		size_t used = parse_lines(k, buf, have, st, &skip, &err);
		if (n == 0) {           /* EOF: a last line without newline */
			st->cut = used < have || skip;
			if (!err && used < have && !skip)
				err = parse_line(k, buf + used, buf + have, st);
			break;
		}
		memmove(buf, buf + used, have - used);
		have -= used;
		if (have == cap && cap < MAX_LINE) {     /* a long line: more room */
			char *b = realloc(buf, 2 * cap);
			if (!b)
				err = -ENOMEM;
			else
				buf = b, cap *= 2;
		} else if (have == cap) {               /* MAX_LINE or longer */
			have = 0;
			skip = true;
		}
	}
	free(buf);
	return err;
}

/* The table cached in dir for path (status src), or NULL. */
static struct lp_kernel *from_cache(const char *dir, const char *path, const struct stat *src)
{
	struct lp_kernel *k = calloc(1, sizeof *k);

	if (!k || lp_kcache_open(dir, path, src, &k->cache)) {
		free(k);
		return NULL;
	}
	const struct lp_kcache *c = &k->cache;
	struct lp_symsrc from;
	bool ok = (k->mods = malloc(c->nr_mods * sizeof *k->mods)) != NULL;
	k->nr_mods = k->cap_mods = c->nr_mods;
	for (size_t i = 0; ok && i < c->nr_mods; i++) {     /* copied: the mapping is let go */
		const char *m = c->names + c->mods[i];
		ok = (k->mods[i] = lp_names_dup(&k->names, m, strlen(m))) != NULL;
	}
	lp_kcache_source(c, &from);
	k->syms = ok ? lp_symtab_import(c->recs, c->nr_recs, c->names, c->names_len, c->nr_mods,
					&from) : NULL;
	k->hidden = c->hidden;
	k->flaw = c->flaw;
	if (!k->syms) {
		lp_kernel_free(k);
		return NULL;
	}
	lp_kcache_release(&k->cache);   /* checked: lookups read them again */
	return k;
}

/* Parses the kallsyms file open as fd; NULL with errno on failure. */
static struct lp_kernel *parse_file(int fd)
{
	struct kparse st = { 0 };
	struct lp_kernel *k = kernel_new();
	int err = k ? read_kallsyms(k, fd, &st) : -ENOMEM;

	if (!err)
		err = flush_pending(k, &st, 0, -1);
	if (!err)
		err = lp_symtab_finish(k->syms);
	if (err) {
		lp_kernel_free(k);
		errno = -err;
		return NULL;
	}
	k->hidden = st.lines > 0 && st.nonzero == 0;
	k->flaw = st.cut ? LP_KFLAW_CUT : !st.stext ? LP_KFLAW_NO_STEXT :
		  !st.etext ? LP_KFLAW_NO_ETEXT :
		  st.unsorted || st.etext_addr < st.stext_addr ? LP_KFLAW_ORDER : LP_KFLAW_NONE;
	return k;
}

struct lp_kernel *lp_kernel_load_cached(const char *path, const char *dir, bool *hidden)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat src;
	struct lp_kernel *k = NULL;

	if (hidden)
		*hidden = false;
	if (fd < 0)
		return NULL;
	bool cacheable = dir && !fstat(fd, &src) && lp_kcache_wants(&src);
	if (cacheable)
		k = from_cache(dir, path, &src);
	if (!k && (k = parse_file(fd)) && cacheable)
		lp_kcache_save(dir, path, &src, k->syms, k->mods, k->nr_mods, k->hidden, k->flaw);
	int err = errno;
	close(fd);
	if (!k) {
		errno = err;    /* parse_file's */
		return NULL;
	}
	if (k->hidden)
		lp_log(LP_WARN, "sym: %s: all addresses are 0 (kernel.kptr_restrict?)", LP_SHOW(path));
	if (hidden)
		*hidden = k->hidden;
	return k;
}

struct lp_kernel *lp_kernel_load(const char *path, bool *hidden)
{
	return lp_kernel_load_cached(path, NULL, hidden);
}

const char *lp_kernel_flaw(const struct lp_kernel *k)
{
	switch (k->flaw) {
	case LP_KFLAW_CUT: return "it ends in the middle of a line (cut short)";
	case LP_KFLAW_NO_STEXT: return "it has no _stext line (the kernel's text is not there)";
	case LP_KFLAW_NO_ETEXT: return "it has no _etext line (cut short inside the kernel's symbols)";
	case LP_KFLAW_ORDER: return "the kernel's symbols are not in address order";
	default: return NULL;
	}
}

const struct lp_sym *lp_kernel_find_span(const struct lp_kernel *k, uint64_t addr,
					 const char **dso, uint64_t *lo, uint64_t *hi)
{
	const struct lp_sym *s = lp_symtab_find_span(k->syms, addr, false, lo, hi);

	if (dso)
		*dso = s ? k->mods[lp_symtab_tag(k->syms, s)] : NULL;
	return s;
}

const struct lp_sym *lp_kernel_find(const struct lp_kernel *k, uint64_t addr,
				    const char **dso)
{
	uint64_t lo, hi;
	return lp_kernel_find_span(k, addr, dso, &lo, &hi);
}

const struct lp_symtab *lp_kernel_symtab(const struct lp_kernel *k)
{
	return k->syms;
}
