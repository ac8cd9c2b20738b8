/*
 * evprobe.c - probes and watchpoints as event names:
 *
 *   uprobe:PATH:FUNCTION[+OFFSET]   the uprobe PMU at the function's file
 *   uretprobe:PATH:FUNCTION         offset (its format/retprobe bit set for
 *                                   the return); user registers sampled
 *   usdt:PATH:PROVIDER:NAME         a uprobe at each site of the probe's
 *                                   .note.stapsdt notes, the semaphore (if
 *                                   any) as the PMU's ref_ctr_offset
 *   kprobe:FUNCTION[+OFFSET]        the kprobe PMU, where the kernel has one
 *   kretprobe:FUNCTION
 *   mem:ADDRESS[/LEN][:rwx]         the breakpoint PMU (HW_BREAKPOINT_*)
 *   mem:SYMBOL[/LEN][:rwx]          ... at a variable of the launched program
 *                                   (lp_event_list_resolve)
 *
 * PATH is a file, a program on $PATH or a library name (probe.h).  Each
 * hit is one sample (period 1, as tracepoints) unless the run sets -F or
 * -c.  The event keeps the name it was given.  A run whose events are
 * inherited opens its uprobes as tracefs events instead (evdyn.c: the
 * kernel cannot copy a PMU uprobe to a new thread).
 */
#include <errno.h>
#include <elf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/hw_breakpoint.h>

#include "live/evparse.h"
#include "luaprof/err.h"
#include "luaprof/luaprof.h"
#include "luaprof/probe.h"

struct probe_pmu {
	uint32_t type;
	struct lp_pmu_format ret, ref;
	bool has_ref;
};

static int oom(void)
{
	return lp_err(-ENOMEM, "out of memory");
}

/* The uprobe or kprobe PMU: its type and the bits of retprobe and
 * ref_ctr_offset. */
static int probe_pmu(const char *pmu, const char *item, struct probe_pmu *p)
{
	int rc = lp_pmu_type(pmu, &p->type);
	if (rc == -ENOENT)
		return lp_err(rc, "cannot place '%s': this kernel has no %s PMU (%s/%s is "
			      "missing)%s", LP_SHOW(item), pmu, lp_pmu_root(), pmu,
			      !strcmp(pmu, "kprobe") ?
			      ": kprobes are not available here" : ": uprobes need Linux 4.17 or later");
	if (rc || lp_pmu_format(pmu, "retprobe", &p->ret)) {
		lp_err(rc ? rc : -EINVAL, "cannot place '%s': the %s PMU's type or format/retprobe "
		       "in %s does not read", LP_SHOW(item), pmu, lp_pmu_root());
		return rc ? rc : -EINVAL;
	}
	p->has_ref = lp_pmu_format(pmu, "ref_ctr_offset", &p->ref) == 0;
	return 0;
}

/* A new probe event named item, sampled at every hit. */
static struct lp_event_spec *new_probe(struct lp_event_list *l, const char *item,
				       const struct probe_pmu *pmu, int kind, bool ret)
{
	struct lp_event_spec *e = lp_evparse_push(l);
	if (!e)
		return NULL;
	if (!(e->name = strdup(item))) {
		l->n--;
		return NULL;
	}
	uint64_t config[4] = { 0 };
	if (ret)
		lp_pmu_format_pack(&pmu->ret, 1, config);
	e->type = pmu->type;
	e->config = config[0];
	e->probe = (uint8_t)kind;
	e->rate = LP_RATE_DEFAULT;
	e->use_period = true;
	e->period = 1;
	return e;
}

/* "NAME+OFFSET": the name alone in buf, the offset in *off. */
static int split_offset(const char *s, char *buf, size_t size, uint64_t *off)
{
	const char *plus = strchr(s, '+');
	size_t n = plus ? (size_t)(plus - s) : strlen(s);
	char *end;
	*off = 0;
	if (!n || n >= size)
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (plus) {
		errno = 0;
		*off = strtoull(plus + 1, &end, 0);
		if (errno || end == plus + 1 || *end)
			return -EINVAL;
	}
	return 0;
}

static int object_error(int rc, const char *name, const char *item)
{
	if (rc == -ENOENT)
		lp_err(rc, "cannot find '%s' for '%s': no such file%s", LP_SHOW(name),
		       LP_SHOW(item), strchr(name, '/') ? "" : ", program on $PATH, or library in "
		       "the dynamic linker's cache (give a path: ./prog, "
		       "/usr/lib/x86_64-linux-gnu/libz.so.1)");
	else
		lp_err(rc, "cannot use '%s' for '%s': %s", LP_SHOW(name), LP_SHOW(item),
		       strerror(-rc));
	return rc;
}

/* ---- uprobes -------------------------------------------------------------------- */

/* The file offset of func+off in path, checked. */
static int function_offset(const char *path, const char *func, uint64_t off, const char *item,
			   uint64_t *out)
{
	struct lp_elf_sym sym;
	int rc = lp_elf_symbol(path, func, &sym);
	if (rc == -ENOEXEC)
		return lp_err(rc, "cannot place '%s': %s is not an ELF file",
			      LP_SHOW(item), LP_SHOW(path));
	if (rc == -ENOENT)
		return lp_err(rc, "no function '%s' in %s (for '%s'; its functions: "
			      "nm -D --defined-only %s, or nm if it has a symbol table)",
			      LP_SHOW(func), LP_SHOW(path), LP_SHOW(item), LP_SHOW(path));
	if (rc)
		return lp_err(rc, "cannot read %s: %s", LP_SHOW(path), strerror(-rc));
	if (sym.type == STT_GNU_IFUNC)
		return lp_err(-EINVAL, "'%s' in %s is an IFUNC resolver, which runs once at "
			      "load: probe the implementation it picks instead (for '%s')",
			      LP_SHOW(func), LP_SHOW(path), LP_SHOW(item));
	if (sym.type != STT_FUNC || !sym.has_offset)
		return lp_err(-EINVAL, "'%s' in %s is not a function (for '%s')",
			      LP_SHOW(func), LP_SHOW(path), LP_SHOW(item));
	if (off && sym.size && off >= sym.size)
		return lp_err(-EINVAL, "offset %llu is past the end of '%s' (%llu bytes) in "
			      "'%s'", (unsigned long long)off, LP_SHOW(func),
			      (unsigned long long)sym.size, LP_SHOW(item));
	*out = sym.offset + off;
	return 0;
}

/* "PATH:LAST": path and the text after the last colon. */
static int split_last(const char *s, char *path, size_t size, const char **last)
{
	const char *colon = strrchr(s, ':');
	if (!colon || colon == s || !colon[1] || (size_t)(colon - s) >= size)
		return -EINVAL;
	memcpy(path, s, (size_t)(colon - s));
	path[colon - s] = '\0';
	*last = colon + 1;
	return 0;
}

static int add_uprobe(struct lp_event_list *l, const char *item, const char *rest, bool ret)
{
	char name[PATH_MAX], path[PATH_MAX], func[256];
	const char *last;
	uint64_t off, at = 0;
	struct probe_pmu pmu;
	if (split_last(rest, name, sizeof name, &last) || split_offset(last, func, sizeof func, &off) ||
	    (ret && off))
		return lp_err(-EINVAL, "bad event '%s': a uprobe is uprobe:PATH:FUNCTION[+OFFSET] "
			      "or uretprobe:PATH:FUNCTION", LP_SHOW(item));
	int rc = probe_pmu("uprobe", item, &pmu);
	if (!rc && (rc = lp_probe_find_object(name, path, sizeof path)))
		return object_error(rc, name, item);
	if (rc || (rc = function_offset(path, func, off, item, &at)))
		return rc;
	struct lp_event_spec *e = new_probe(l, item, &pmu, ret ? LP_PROBE_URETPROBE : LP_PROBE_UPROBE,
					    ret);
	if (!e || !(e->probe_str = strdup(path))) {
		lp_evparse_truncate(l, l->n - (e != NULL));
		return oom();
	}
	e->config2 = at;
	e->regs_user = LP_PROBE_REGS_MASK;
	return 0;
}

/* ---- USDT ----------------------------------------------------------------------- */

struct usdt_add {
	struct lp_event_list *l;
	const char *item, *path, *provider, *name;
	const struct probe_pmu *pmu;
	int rc;
	size_t found;
	char others[256];       /* some of the object's probes, for the message */
};

/* The user stack a probe's memory arguments need: displacements from the
 * stack pointer exactly; from any other register (the frame pointer of
 * -O0 code, mostly) 2 KiB, beyond which process_vm_readv reads them. */
static uint32_t usdt_stack(const struct lp_usdt_probe *p)
{
	uint64_t need = 0;
	for (int i = 0; i < p->nr_args; i++) {
		const struct lp_usdt_arg *a = &p->args[i];
		if (a->kind != LP_USDT_MEM)
			continue;
		uint64_t n = a->reg == 7 && a->value >= 0 ? (uint64_t)a->value + a->size : 2048;
		if (n > need)
			need = n;
	}
	return need > LP_DWARF_STACK_MAX ? LP_DWARF_STACK_MAX : (uint32_t)((need + 7) & ~7ull);
}

static int usdt_site(const struct lp_usdt_probe *p, void *arg)
{
	struct usdt_add *u = arg;
	size_t len = strlen(u->others);
	if (strcmp(p->provider, u->provider) || strcmp(p->name, u->name)) {
		if (len + strlen(p->provider) + strlen(p->name) + 3 < sizeof u->others &&
		    !strstr(u->others, p->name))
			snprintf(u->others + len, sizeof u->others - len, "%s%s:%s", len ? ", " : "",
				 p->provider, p->name);
		return 0;
	}
	if (p->sema && !u->pmu->has_ref)
		return u->rc = -EOPNOTSUPP;
	struct lp_event_spec *e = new_probe(u->l, u->item, u->pmu, LP_PROBE_USDT, false);
	if (!e)
		return u->rc = -ENOMEM;
	uint64_t config[4] = { e->config };
	if (p->sema)
		lp_pmu_format_pack(&u->pmu->ref, p->sema_offset, config);
	e->config = config[0];
	e->config2 = p->pc_offset;
	e->regs_user = LP_DWARF_REGS_MASK;
	e->stack_user = usdt_stack(p);
	e->probe_str = strdup(u->path);
	e->usdt = malloc(sizeof *e->usdt);
	if (!e->probe_str || !e->usdt)
		return u->rc = -ENOMEM;
	*e->usdt = *p;
	u->found++;
	return 0;
}

static int usdt_error(const struct usdt_add *u, int rc)
{
	if (rc == -ENOMEM)
		return oom();
	if (rc == -EOPNOTSUPP)
		lp_err(rc, "'%s' has a semaphore, and this kernel's uprobe PMU has no "
		       "ref_ctr_offset to raise it (Linux 4.20 or later)", LP_SHOW(u->item));
	else if (rc == -ENOEXEC)
		lp_err(rc, "cannot place '%s': %s is not an ELF file", LP_SHOW(u->item),
		       LP_SHOW(u->path));
	else if (rc)
		lp_err(rc, "cannot read %s: %s", LP_SHOW(u->path), strerror(-rc));
	else if (*u->others)
		lp_err(-ENOENT, "no USDT probe '%s:%s' in %s (it has %s)",
		       LP_SHOW(u->provider), LP_SHOW(u->name), LP_SHOW(u->path), u->others);
	else
		lp_err(-ENOENT, "no USDT probe '%s:%s' in %s: it has no USDT probes "
		       "(.note.stapsdt)", LP_SHOW(u->provider), LP_SHOW(u->name),
		       LP_SHOW(u->path));
	return rc ? rc : -ENOENT;
}

static int add_usdt(struct lp_event_list *l, const char *item, const char *rest)
{
	char both[PATH_MAX], name[PATH_MAX], path[PATH_MAX], provider[LP_USDT_NAME_MAX];
	const char *probe, *prov;
	struct probe_pmu pmu;
	if (split_last(rest, both, sizeof both, &probe) ||
	    split_last(both, name, sizeof name, &prov) ||
	    snprintf(provider, sizeof provider, "%s", prov) >= (int)sizeof provider)
		return lp_err(-EINVAL, "bad event '%s': a USDT probe is "
			      "usdt:PATH:PROVIDER:NAME", LP_SHOW(item));
	int rc = probe_pmu("uprobe", item, &pmu);
	if (!rc && (rc = lp_probe_find_object(name, path, sizeof path)))
		return object_error(rc, name, item);
	if (rc)
		return rc;
	size_t first = l->n;
	struct usdt_add u = { l, item, path, provider, probe, &pmu, 0, 0, "" };
	rc = lp_usdt_each(path, usdt_site, &u);
	if (!rc)
		rc = u.rc;
	if (rc || !u.found) {
		lp_evparse_truncate(l, first);
		return usdt_error(&u, rc);
	}
	return 0;
}

/* ---- kprobes -------------------------------------------------------------------- */

static int add_kprobe(struct lp_event_list *l, const char *item, const char *rest, bool ret)
{
	char func[256];
	uint64_t off;
	struct probe_pmu pmu;
	if (split_offset(rest, func, sizeof func, &off) || strchr(func, ':') || (ret && off))
		return lp_err(-EINVAL, "bad event '%s': a kprobe is kprobe:FUNCTION[+OFFSET] "
			      "or kretprobe:FUNCTION", LP_SHOW(item));
	int rc = probe_pmu("kprobe", item, &pmu);
	if (rc)
		return rc;
	struct lp_event_spec *e = new_probe(l, item, &pmu, ret ? LP_PROBE_KRETPROBE : LP_PROBE_KPROBE,
					    ret);
	if (!e || !(e->probe_str = strdup(func))) {
		lp_evparse_truncate(l, l->n - (e != NULL));
		return oom();
	}
	e->config2 = off;
	return 0;
}

/* ---- watchpoints ---------------------------------------------------------------- */

/* "r", "w", "x", "rw" (any order): HW_BREAKPOINT_* bits; 0 when bad. */
static uint32_t access_bits(const char *s)
{
	uint32_t b = 0;
	for (; *s; s++) {
		uint32_t bit = *s == 'r' ? HW_BREAKPOINT_R : *s == 'w' ? HW_BREAKPOINT_W :
			       *s == 'x' ? HW_BREAKPOINT_X : 0;
		if (!bit || (b & bit))
			return 0;
		b |= bit;
	}
	return (b & HW_BREAKPOINT_X) && b != HW_BREAKPOINT_X ? 0 : b;
}

static bool is_symbol(const char *s)
{
	if (!*s || !(*s == '_' || *s == '.' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.$") ==
	       strlen(s);
}

static int add_watch(struct lp_event_list *l, const char *item, const char *rest)
{
	char where[256];
	const char *colon = strchr(rest, ':');
	size_t n = colon ? (size_t)(colon - rest) : strlen(rest);
	uint32_t bits = colon ? access_bits(colon + 1) : HW_BREAKPOINT_RW;
	uint64_t addr = 0, len = 0;
	char *slash, *end;
	if (n && n < sizeof where)
		memcpy(where, rest, n);
	where[n < sizeof where ? n : 0] = '\0';
	if ((slash = strchr(where, '/'))) {
		*slash = '\0';
		len = strtoull(slash + 1, &end, 0);
		if (*end || (len != 1 && len != 2 && len != 4 && len != 8))
			bits = 0;
	}
	bool sym = is_symbol(where);
	if (!sym && *where) {
		errno = 0;
		addr = strtoull(where, &end, 0);
		if (errno || *end || !addr)
			bits = 0;
	}
	if (!bits || !*where || (len && addr % len))
		return lp_err(-EINVAL, "bad watchpoint '%s': it is mem:ADDRESS[/LEN][:ACCESS] or "
			      "mem:VARIABLE[/LEN][:ACCESS], LEN 1, 2, 4 or 8 (aligned), ACCESS r, w, "
			      "rw or x", LP_SHOW(item));
	struct lp_event_spec *e = lp_evparse_push(l);
	if (!e || !(e->name = strdup(item)) || (sym && !(e->probe_str = strdup(where)))) {
		lp_evparse_truncate(l, l->n - (e != NULL));
		return oom();
	}
	e->type = PERF_TYPE_BREAKPOINT;
	e->bp_type = bits;
	e->config1 = addr;
	/* perf's defaults: a long for execution, 4 bytes for data; a
	 * variable's from its size (lp_event_list_resolve) */
	e->config2 = len ? len : sym ? 0 : bits == HW_BREAKPOINT_X ? sizeof(long) : 4;
	e->probe = LP_PROBE_WATCH;
	e->rate = LP_RATE_DEFAULT;
	e->use_period = true;
	e->period = 1;
	e->sample_type = PERF_SAMPLE_ADDR;
	return 0;
}

/* The watch length for a variable of size bytes (0: unknown, taken as
 * 4) at vaddr: the largest of 8, 4, 2, 1 that fits in it and divides its
 * address. */
static uint64_t watch_len(uint64_t size, uint64_t vaddr)
{
	uint64_t len = 8;
	while (len > 1 && (len > (size ? size : 4) || vaddr % len))
		len /= 2;
	return len;
}

static int resolve_one(struct lp_event_spec *e, const char *path, pid_t pid)
{
	struct lp_elf_sym sym;
	int rc = lp_elf_symbol(path, e->probe_str, &sym);
	if (rc == -ENOENT)
		return lp_err(rc, "no variable '%s' in %s (for '%s')",
			      LP_SHOW(e->probe_str), LP_SHOW(path), LP_SHOW(e->name));
	if (rc)
		return lp_err(rc, "cannot read %s for '%s': %s", LP_SHOW(path),
			      LP_SHOW(e->name),
			      rc == -ENOEXEC ? "not an ELF file" : strerror(-rc));
	if (sym.type != STT_OBJECT)
		return lp_err(-EINVAL, "'%s' in %s is %s, not a variable: mem: watches a "
			      "global variable (mem:NAME) or an address (mem:0xADDRESS)",
			      LP_SHOW(e->probe_str), LP_SHOW(path),
			      sym.type == STT_FUNC || sym.type == STT_GNU_IFUNC ?
			      "a function" : sym.type == STT_TLS ? "thread-local" : "no data object");
	if (!e->config2)
		e->config2 = watch_len(sym.size, sym.vaddr);
	if (sym.vaddr % e->config2)
		return lp_err(-EINVAL, "'%s' in %s is not aligned to %llu bytes: give a length "
			      "that divides its address (mem:%s/1)", LP_SHOW(e->probe_str),
			      LP_SHOW(path), (unsigned long long)e->config2,
			      LP_SHOW(e->probe_str));
	uint64_t bias = 0;
	e->reloc = sym.dyn && pid <= 0;
	if (sym.dyn && pid > 0 && (rc = lp_elf_load_bias(pid, path, &bias)))
		return lp_err(rc, "cannot find where process %d loaded %s: %s", (int)pid,
			      LP_SHOW(path), strerror(-rc));
	e->config1 = sym.vaddr + bias;
	return 0;
}

int lp_event_list_resolve(struct lp_event_list *l, const char *path, pid_t pid)
{
	for (size_t i = 0; i < l->n; i++) {
		struct lp_event_spec *e = &l->v[i];
		if (e->probe != LP_PROBE_WATCH || !e->probe_str || e->config1)
			continue;
		int rc = resolve_one(e, path, pid);
		if (rc)
			return rc;
	}
	return 0;
}

bool lp_event_list_needs_bias(const struct lp_event_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].reloc)
			return true;
	return false;
}

int lp_evparse_probe(struct lp_event_list *l, const char *item)
{
	static const struct {
		const char *prefix;
		int kind;
	} forms[] = {
		{ "uprobe:", LP_PROBE_UPROBE }, { "uretprobe:", LP_PROBE_URETPROBE },
		{ "usdt:", LP_PROBE_USDT }, { "kprobe:", LP_PROBE_KPROBE },
		{ "kretprobe:", LP_PROBE_KRETPROBE }, { "mem:", LP_PROBE_WATCH },
	};
	for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
		size_t n = strlen(forms[i].prefix);
		if (strncmp(item, forms[i].prefix, n))
			continue;
		const char *rest = item + n;
		switch (forms[i].kind) {
		case LP_PROBE_UPROBE: case LP_PROBE_URETPROBE:
			return add_uprobe(l, item, rest, forms[i].kind == LP_PROBE_URETPROBE);
		case LP_PROBE_USDT: return add_usdt(l, item, rest);
		case LP_PROBE_WATCH: return add_watch(l, item, rest);
		default:
			return add_kprobe(l, item, rest, forms[i].kind == LP_PROBE_KRETPROBE);
		}
	}
	return -ENOENT;
}
