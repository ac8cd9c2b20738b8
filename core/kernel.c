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
 *
 * /proc/kallsyms has 100-200k lines: it is read with 1 MiB read()s and
 * parsed in place, with no per-line stdio or allocation (names go to the
 * symbol table's arena).
 */
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "luaprof/luaprof.h"
#include "sym_int.h"

#define KALLSYMS_BUF (1u << 20)
#define MAX_MODS 65535

struct lp_kernel {
	struct lp_symtab *syms;
	const char **mods;      /* [0] "[kernel.kallsyms]", [tag] "[module]" */
	size_t nr_mods, cap_mods;
	struct lp_names names;
	bool hidden;
};

struct kparse {
	size_t lines, nonzero;
	bool skip;              /* discarding the rest of an over-long line */
	/* The last symbol read, added once the next one tells its size. */
	bool pending;
	uint64_t pend_addr;
	unsigned pend_prio;
	int pend_tag;
	char pend_name[512];
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
	return lp_symtab_add_tagged(k->syms, st->pend_name, st->pend_addr, size, st->pend_prio,
				    (uint16_t)st->pend_tag);
}

void lp_kernel_free(struct lp_kernel *k)
{
	if (!k)
		return;
	lp_symtab_free(k->syms);
	lp_names_free(&k->names);
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

static const char *parse_hex(const char *p, const char *end, uint64_t *v)
{
	const char *s = p;
	uint64_t x = 0;

	for (; p < end; p++) {
		unsigned c = (unsigned char)*p, lc = c | 0x20;
		if (c - '0' < 10)
			x = x << 4 | (c - '0');
		else if (lc - 'a' < 6)
			x = x << 4 | (lc - 'a' + 10);
		else
			break;
	}
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

/* One line [p, end) (no newline; the buffer is writable). 0 or -ENOMEM. */
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
		*tab = '\0';
	} else {
		*end = '\0';
	}
	if (tag < 0 || !*name)
		return tag < 0 ? -ENOMEM : 0;
	int rc = flush_pending(k, st, addr, tag);
	snprintf(st->pend_name, sizeof st->pend_name, "%s", name);
	st->pend_addr = addr;
	st->pend_prio = prio;
	st->pend_tag = tag;
	st->pending = true;
	return rc;
}

/* Parses the complete lines of buf[0, len); returns how many bytes were
 * consumed.  Sets *err on ENOMEM. */
static size_t parse_lines(struct lp_kernel *k, char *buf, size_t len,
			  struct kparse *st, int *err)
{
	char *p = buf, *end = buf + len, *nl;

	while (!*err && (nl = memchr(p, '\n', (size_t)(end - p)))) {
		if (!st->skip)
			*err = parse_line(k, p, nl, st);
		st->skip = false;
		p = nl + 1;
	}
	return (size_t)(p - buf);
}

static int read_kallsyms(struct lp_kernel *k, int fd, struct kparse *st)
{
	char *buf = malloc(KALLSYMS_BUF + 1);   /* +1: a NUL after a last line */
	size_t have = 0;
	int err = 0;

	if (!buf)
		return -ENOMEM;
	while (!err) {
		ssize_t n = read(fd, buf + have, KALLSYMS_BUF - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		have += (size_t)n;
		size_t used = parse_lines(k, buf, have, st, &err);
		if (n == 0) {           /* EOF: a last line without newline */
			if (!err && used < have && !st->skip)
				err = parse_line(k, buf + used, buf + have, st);
			break;
		}
		memmove(buf, buf + used, have - used);
		have -= used;
		if (have == KALLSYMS_BUF) {     /* a line longer than the buffer */
			have = 0;
			st->skip = true;
		}
	}
	free(buf);
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
	int err = k ? read_kallsyms(k, fd, &st) : -ENOMEM;
	close(fd);
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
