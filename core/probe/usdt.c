/*
 * usdt.c - USDT probes (<sys/sdt.h>, "stapsdt" notes) and their arguments.
 *
 * Each probe site is one ELF note of type 3, owner "stapsdt", in
 * .note.stapsdt.  Its descriptor holds three addresses (the probe's pc, the
 * link-time address of .stapsdt.base, the semaphore or 0), then three
 * strings: provider, name and the argument specs.  When the object has a
 * .stapsdt.base section, pc moves by its address minus the note's base (a
 * prelinked object), as libbpf does.  A probe's uprobe goes at the file
 * offset of pc; its semaphore, when it has one, is the uprobe PMU's
 * reference counter at the semaphore's file offset (ref_ctr_offset): the
 * kernel raises it while the probe is attached, so the program's
 * PROBE_ENABLED() tests see it.
 *
 * Argument specs are GNU as operands with a size: "-4@%edi" (a signed
 * 4-byte register), "8@$42" (a constant), "-8@-16(%rbp)" (memory at a
 * register plus a displacement), separated by spaces.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>
#include <asm/perf_regs.h>

#include <elf.h>
#include <gelf.h>
#include <libelf.h>

#include "luaprof/probe.h"
#include "probe/probe_int.h"
#include "util/elffile.h"

#define NT_STAPSDT 3

/* ---- argument specs --------------------------------------------------------------- */

struct reg_name {
	const char *names[4];   /* 8, 4, 2, 1 bytes wide */
	uint8_t reg;
};

static const struct reg_name regs[] = {
	{ { "rax", "eax", "ax", "al" }, PERF_REG_X86_AX },
	{ { "rbx", "ebx", "bx", "bl" }, PERF_REG_X86_BX },
	{ { "rcx", "ecx", "cx", "cl" }, PERF_REG_X86_CX },
	{ { "rdx", "edx", "dx", "dl" }, PERF_REG_X86_DX },
	{ { "rsi", "esi", "si", "sil" }, PERF_REG_X86_SI },
	{ { "rdi", "edi", "di", "dil" }, PERF_REG_X86_DI },
	{ { "rbp", "ebp", "bp", "bpl" }, PERF_REG_X86_BP },
	{ { "rsp", "esp", "sp", "spl" }, PERF_REG_X86_SP },
	{ { "rip", NULL, NULL, NULL }, PERF_REG_X86_IP },
	{ { "r8", "r8d", "r8w", "r8b" }, PERF_REG_X86_R8 },
	{ { "r9", "r9d", "r9w", "r9b" }, PERF_REG_X86_R9 },
	{ { "r10", "r10d", "r10w", "r10b" }, PERF_REG_X86_R10 },
	{ { "r11", "r11d", "r11w", "r11b" }, PERF_REG_X86_R11 },
	{ { "r12", "r12d", "r12w", "r12b" }, PERF_REG_X86_R12 },
	{ { "r13", "r13d", "r13w", "r13b" }, PERF_REG_X86_R13 },
	{ { "r14", "r14d", "r14w", "r14b" }, PERF_REG_X86_R14 },
	{ { "r15", "r15d", "r15w", "r15b" }, PERF_REG_X86_R15 },
};

/* "%name" at *p (n characters of name): the register and its width. */
static int parse_reg(const char *p, size_t n, struct lp_usdt_arg *a)
{
	static const uint8_t widths[4] = { 8, 4, 2, 1 };
	for (size_t i = 0; i < sizeof regs / sizeof *regs; i++)
		for (int w = 0; w < 4; w++)
			if (regs[i].names[w] && strlen(regs[i].names[w]) == n &&
			    !strncmp(regs[i].names[w], p, n)) {
				a->reg = regs[i].reg;
				a->reg_bytes = widths[w];
				return 0;
			}
	return -EINVAL;
}

/* A signed decimal or 0x hexadecimal number; *end after it. */
static int parse_num(const char *p, const char **end, int64_t *v)
{
	char *e;
	errno = 0;
	bool neg = *p == '-';
	unsigned long long u = strtoull(p + (neg || *p == '+'), &e, 0);
	if (errno || e == p + (neg || *p == '+') || !isdigit((unsigned char)p[neg || *p == '+']))
		return -EINVAL;
	*v = neg ? (int64_t)(0 - u) : (int64_t)u;
	*end = e;
	return 0;
}

/* The register name after '%' up to a delimiter in stop. */
static int reg_at(const char *p, const char *stop, const char **end, struct lp_usdt_arg *a)
{
	if (*p != '%')
		return -EINVAL;
	size_t n = strcspn(p + 1, stop);
	*end = p + 1 + n;
	return parse_reg(p + 1, n, a);
}

/* Whether [p, end) is a symbol, maybe with an offset: "counter",
 * "buf+16", "_ZN3foo3barE-8" (what GNU as writes for RIP-relative and
 * absolute operands). */
static bool symbolic(const char *p, const char *end)
{
	if (p == end || !(isalpha((unsigned char)*p) || *p == '_' || *p == '.'))
		return false;
	while (p < end && (isalnum((unsigned char)*p) || *p == '_' || *p == '.' || *p == '$'))
		p++;
	if (p < end && (*p == '+' || *p == '-'))
		for (p++; p < end && isxdigit((unsigned char)*p); p++)
			;
	return p == end;
}

/* One operand (after "SIZE@"), which must end at end. */
static int parse_operand(const char *p, const char *end, struct lp_usdt_arg *a)
{
	const char *q;
	if (*p == '%') {
		a->kind = LP_USDT_REG;
		return reg_at(p, " ", &q, a) || q != end ? -EINVAL : 0;
	}
	if (*p == '$') {
		if (p + 1 == end)
			return -EINVAL;
		a->kind = LP_USDT_CONST;
		if (!parse_num(p + 1, &q, &a->value) && q == end)
			return 0;
		a->kind = LP_USDT_UNSUPPORTED;          /* $symbol */
		return symbolic(p + 1, end) ? 0 : -EINVAL;
	}
	a->value = 0;
	q = p;
	if (*p != '(' && parse_num(p, &q, &a->value)) {
		const char *paren = memchr(p, '(', (size_t)(end - p));
		a->kind = LP_USDT_UNSUPPORTED;          /* symbol(%rip), symbol+4(%rip) */
		return symbolic(p, paren ? paren : end) ? 0 : -EINVAL;
	}
	const char *r;
	if (*q != '(' || end[-1] != ')')
		return -EINVAL;
	a->kind = LP_USDT_MEM;
	if (reg_at(q + 1, ",) ", &r, a))
		return -EINVAL;
	if (*r == ',' || a->reg == PERF_REG_X86_IP)
		a->kind = LP_USDT_UNSUPPORTED;          /* an index register, or %rip */
	else if (r + 1 != end)
		return -EINVAL;
	return 0;
}

/* "[-]SIZE@OPERAND", or an operand alone (old sdt.h: 8 bytes). */
static int parse_one(const char *p, const char *end, struct lp_usdt_arg *a)
{
	memset(a, 0, sizeof *a);
	a->size = 8;
	const char *at = memchr(p, '@', (size_t)(end - p));
	if (at) {
		int64_t sz;
		const char *q;
		if (parse_num(p, &q, &sz) || q != at)
			return -EINVAL;
		a->is_signed = sz < 0;
		sz = sz < 0 ? -sz : sz;
		if (sz != 1 && sz != 2 && sz != 4 && sz != 8)
			return -EINVAL;
		a->size = (uint8_t)sz;
		p = at + 1;
	}
	return p < end ? parse_operand(p, end, a) : -EINVAL;
}

int lp_usdt_parse_args(const char *spec, struct lp_usdt_arg *args, int max)
{
	int n = 0;
	for (const char *p = spec;;) {
		while (*p == ' ')
			p++;
		if (!*p)
			return n;
		const char *end = p;
		/* a space ends an operand, but not inside "(...)" */
		for (int depth = 0; *end && (*end != ' ' || depth); end++)
			depth += (*end == '(') - (*end == ')');
		if (n >= max || parse_one(p, end, &args[n]))
			return -EINVAL;
		n++;
		p = end;
	}
}

/* ---- notes ------------------------------------------------------------------------ */

static int copy_name(char *dst, const char *s)
{
	size_t n = strlen(s);
	if (!n || n >= LP_USDT_NAME_MAX)
		return -EINVAL;
	memcpy(dst, s, n + 1);
	return 0;
}

int lp_usdt_parse_note(const void *desc, size_t size, struct lp_usdt_probe *out)
{
	const char *d = desc, *end = d + size;
	uint64_t base;
	memset(out, 0, sizeof *out);
	if (size < 3 * 8 + 3)
		return -EINVAL;
	memcpy(&out->pc, d, 8);
	memcpy(&base, d + 8, 8);
	memcpy(&out->sema, d + 16, 8);
	const char *prov = d + 24, *name, *args;
	if (!(name = memchr(prov, '\0', (size_t)(end - prov))) || ++name >= end ||
	    !(args = memchr(name, '\0', (size_t)(end - name))) || ++args >= end ||
	    !memchr(args, '\0', (size_t)(end - args)))
		return -EINVAL;
	if (copy_name(out->provider, prov) || copy_name(out->name, name))
		return -EINVAL;
	int n = lp_usdt_parse_args(args, out->args, LP_USDT_MAX_ARGS);
	out->nr_args = n < 0 ? 0 : n;
	out->args_bad = n < 0;
	/* the note's base, kept in pc_offset until lp_usdt_each adjusts pc */
	out->pc_offset = base;
	return 0;
}

/* Adjusts p (fresh from its note) and finds its file offsets; false when
 * the pc lies in no segment's file bytes. */
static bool settle(Elf *e, struct lp_usdt_probe *p, bool have_base, uint64_t base_addr)
{
	uint64_t note_base = p->pc_offset;
	if (have_base && note_base)
		p->pc += base_addr - note_base;
	if (!lp_elf_vaddr_offset(e, p->pc, &p->pc_offset))
		return false;
	if (p->sema && !lp_elf_vaddr_offset(e, p->sema, &p->sema_offset))
		p->sema = p->sema_offset = 0;   /* nowhere to count: as if none */
	return true;
}

static int walk(Elf *e, int (*fn)(const struct lp_usdt_probe *p, void *arg), void *arg)
{
	GElf_Shdr sh, bsh;
	Elf_Scn *scn = lp_elf_section(e, ".note.stapsdt", LP_ELF_ANY_TYPE, &sh);
	bool have_base = lp_elf_section(e, ".stapsdt.base", LP_ELF_ANY_TYPE, &bsh) != NULL;
	Elf_Data *d = scn && sh.sh_type == SHT_NOTE ? elf_getdata(scn, NULL) : NULL;
	struct lp_usdt_probe *p = d ? malloc(sizeof *p) : NULL;
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;
	int rc = 0;
	while (!rc && p && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type != NT_STAPSDT || nh.n_namesz != sizeof "stapsdt" ||
		    memcmp((const char *)d->d_buf + name_off, "stapsdt", sizeof "stapsdt"))
			continue;
		if (!lp_usdt_parse_note((const char *)d->d_buf + desc_off, nh.n_descsz, p) &&
		    settle(e, p, have_base, bsh.sh_addr))
			rc = fn(p, arg);
	}
	free(p);
	return d && !p ? -ENOMEM : rc;
}

/* walk() on an image libelf read as ELF (e, ended here), or -ENOEXEC. */
static int walk_elf(Elf *e, int (*fn)(const struct lp_usdt_probe *p, void *arg), void *arg)
{
	GElf_Ehdr eh;
	int rc = e && gelf_getehdr(e, &eh) ? walk(e, fn, arg) : -ENOEXEC;
	if (e)
		elf_end(e);
	return rc;
}

int lp_usdt_each_mem(const void *buf, size_t size,
		     int (*fn)(const struct lp_usdt_probe *p, void *arg), void *arg)
{
	return walk_elf(lp_elf_mem(buf, size), fn, arg);
}

int lp_usdt_each(const char *path, int (*fn)(const struct lp_usdt_probe *p, void *arg),
		 void *arg)
{
	int fd;
	Elf *e;
	int rc = lp_elf_open(path, 0, &fd, &e);
	if (rc)
		return rc;
	rc = walk_elf(e, fn, arg);
	close(fd);
	return rc;
}

/* ---- values ----------------------------------------------------------------------- */

/* Reads n bytes at addr: from the sample's stack copy when they lie in
 * it, else from the process. */
static int read_mem(const struct lp_sample *s, pid_t pid, uint64_t addr, void *buf, size_t n)
{
	uint64_t sp;
	if (s->user_stack && !lp_sample_reg(s, PERF_REG_X86_SP, &sp) && addr >= sp &&
	    addr - sp <= s->user_stack_dyn_size && s->user_stack_dyn_size - (addr - sp) >= n &&
	    s->user_stack_dyn_size <= s->user_stack_size) {
		memcpy(buf, (const char *)s->user_stack + (addr - sp), n);
		return 0;
	}
	if (pid <= 0)
		return -EFAULT;
	struct iovec local = { buf, n }, remote = { (void *)(uintptr_t)addr, n };
	return process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)n ? 0 : -EFAULT;
}

/* v truncated to size bytes, sign- or zero-extended. */
static int64_t extend(uint64_t v, unsigned size, bool is_signed)
{
	if (size >= 8)
		return (int64_t)v;
	unsigned shift = 64 - 8 * size;
	return is_signed ? (int64_t)(v << shift) >> shift : (int64_t)((v << shift) >> shift);
}

int lp_usdt_arg_value(const struct lp_usdt_arg *a, const struct lp_sample *s, pid_t pid,
		      int64_t *out)
{
	uint64_t v = 0;
	switch (a->kind) {
	case LP_USDT_CONST:
		*out = extend((uint64_t)a->value, a->size, a->is_signed);
		return 0;
	case LP_USDT_REG:
		if (lp_sample_reg(s, a->reg, &v))
			return -ENOENT;
		v = a->reg_bytes < 8 ? v & ((1ull << (8 * a->reg_bytes)) - 1) : v;
		break;
	case LP_USDT_MEM: {
		uint64_t base;
		if (lp_sample_reg(s, a->reg, &base))
			return -ENOENT;
		if (read_mem(s, pid, base + (uint64_t)a->value, &v, a->size))
			return -EFAULT;
		break;
	}
	default:
		return -ENOENT;
	}
	*out = extend(v, a->size, a->is_signed);
	return 0;
}
