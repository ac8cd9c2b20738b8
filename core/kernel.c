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
 * /proc/kallsyms has 100-200k lines (5 MB or more): the whole file is read
 * into one huge-page buffer (bigbuf.h) that the lp_kernel keeps, and the
 * names stay there, NUL-terminated in place: no per-line stdio, allocation
 * or copy.  kallsyms lists the kernel in address order, so the table's
 * finish is linear.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "luaprof/luaprof.h"
#include "bigbuf.h"
#include "sym_int.h"

#define KALLSYMS_GUESS ((size_t)8 << 20)        /* /proc/kallsyms has no size */
#define MAX_LINE ((size_t)1 << 20)              /* longer lines are skipped */
#define MAX_NAME 511
#define MIN_LINE 20             /* about the shortest real line: sizes the table */
#define MAX_MODS 65535

struct lp_kernel {
	struct lp_symtab *syms;
	const char **mods;      /* [0] "[kernel.kallsyms]", [tag] "[module]" */
	size_t nr_mods, cap_mods;
	struct lp_names names;
	char *text;             /* the file; symbol names point into it */
	size_t text_cap;        /* its bigbuf capacity */
	bool hidden;
};

struct kparse {
	size_t lines, nonzero;
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
	lp_bigbuf_free(k->text, k->text_cap);
	free(k->mods);
	free(k);
}

static struct lp_kernel *kernel_new(void)
{
	struct lp_kernel *k = calloc(1, sizeof *k);

	if (!k)
		return NULL;
	k->cap_mods = 16;
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

/* One line [p, end) of k->text, without its newline; *end is writable (a
 * newline or the byte after the file).  The name is NUL-terminated in
 * place and becomes the pending symbol.  0 or -ENOMEM. */
static int parse_line(struct lp_kernel *k, char *p, char *end, struct kparse *st)
{
	uint64_t addr;
	const char *q = parse_hex(p, end, &addr);

	if (!q || end - q < 4 || q[0] != ' ' || q[2] != ' ')
		return 0;
	st->lines++;
	if (addr)
		st->nonzero++;
	unsigned prio = type_prio(q[1]);
	if (!addr || !prio)
		return 0;
	char *name = p + (q - p) + 3, *tab = memchr(name, '\t', (size_t)(end - name));
	int tag = 0;
	if (tab) {
		char *mod = tab + 1, *close = memchr(mod, ']', (size_t)(end - mod));
		if (mod < end && *mod == '[' && close)
			tag = module_tag(k, mod + 1, (size_t)(close - mod - 1));
		end = tab;
	}
	*(end - name > MAX_NAME ? name + MAX_NAME : end) = '\0';
	if (tag < 0 || !*name)
		return tag < 0 ? -ENOMEM : 0;
	int rc = flush_pending(k, st, addr, tag);
	st->pend_name = name;
	st->pend_addr = addr;
	st->pend_prio = prio;
	st->pend_tag = tag;
	st->pending = true;
	return rc;
}

/* Reads the whole file into k->text: returns its length, or -errno. */
static ssize_t read_all(struct lp_kernel *k, int fd)
{
	struct stat sb;
	size_t len = 0, want = KALLSYMS_GUESS;

	if (!fstat(fd, &sb) && S_ISREG(sb.st_mode) && sb.st_size > 0)
		want = (size_t)sb.st_size + 4096;      /* + room to see EOF */
	for (;;) {
		void *text = k->text;
		/* +1: a NUL after a last line without newline */
		if (len + 1 >= k->text_cap &&
		    lp_bigbuf_reserve(&text, &k->text_cap, len + 1 < want ? want : 2 * len))
			return -ENOMEM;
		k->text = text;
		ssize_t n = read(fd, k->text + len, k->text_cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return (ssize_t)len;
		len += (size_t)n;
	}
}

/* Parses k->text[0, len), which has a writable byte after its end.  The
 * table is reserved once for len / MIN_LINE symbols, more than a real
 * kallsyms has: untouched room costs address space only, and a file of
 * shorter lines just makes the table grow. */
static int parse_text(struct lp_kernel *k, size_t len, struct kparse *st)
{
	char *p = k->text, *end = p + len;
	int err = 0;

	if (lp_symtab_reserve(k->syms, len / MIN_LINE + 1))
		return -ENOMEM;
	while (!err && p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if ((size_t)(nl - p) < MAX_LINE)
			err = parse_line(k, p, nl, st);
		p = nl + 1;
	}
	return err;
}

struct lp_kernel *lp_kernel_load(const char *path, bool *hidden)
{
	struct kparse st = { 0 };
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (hidden)
		*hidden = false;
	if (fd < 0)
		return NULL;
	struct lp_kernel *k = kernel_new();
	ssize_t len = k ? read_all(k, fd) : -ENOMEM;
	close(fd);
	int err = len < 0 ? (int)len : parse_text(k, (size_t)len, &st);
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
	if (k->hidden)
		lp_log(LP_WARN, "sym: %s: all addresses are 0 (kernel.kptr_restrict?)", path);
	if (hidden)
		*hidden = k->hidden;
	return k;
}

const struct lp_sym *lp_kernel_find(const struct lp_kernel *k, uint64_t addr,
				    const char **dso)
{
	const struct lp_sym *s = lp_symtab_find(k->syms, addr);

	if (dso)
		*dso = s ? k->mods[lp_symtab_tag(k->syms, s)] : NULL;
	return s;
}

const struct lp_symtab *lp_kernel_symtab(const struct lp_kernel *k)
{
	return k->syms;
}
