/* Part of include/luaprof/: the core's interface to the layer above it (lua/). */
/*
 * probe.h - probes and PMUs: what the event names uprobe:, uretprobe:,
 * usdt:, mem:, kprobe:, rNNNN and PMU/term=value/ need from the system.
 *
 *   - PMUs (pmu.c): /sys/bus/event_source/devices/PMU: its type, its
 *     format/ files ("config:0-7,21") that say where each term's bits go,
 *     and its events/ aliases ("event=0x3c,umask=0x00").
 *   - Objects (objpath.c, ldcache.c): a probe's PATH, as a file, a program
 *     on $PATH, or a library name found through the dynamic linker's cache
 *     (/etc/ld.so.cache).
 *   - ELF symbols (elfsym.c): a function's file offset (what the uprobe
 *     PMU takes), a variable's address and the load bias of a running
 *     process (auxv's AT_ENTRY against e_entry).
 *   - USDT (usdt.c): the .note.stapsdt notes of an object, their
 *     argument specs ("-4@%edi 8@-16(%rbp) 4@$7") and reading an argument's
 *     value from a sample's user registers, its copy of the user stack, or
 *     the process's memory.
 *
 * Everything here reads outside data (sysfs, ELF files, the linker cache)
 * and trusts none of it: parsers are bounds-checked and fuzzed
 * (tests/fuzz/fuzz_usdt.c, fuzz_ldcache.c, fuzz_pmufmt.c).  Errors come back
 * as -errno; nothing prints.
 */
#ifndef LUAPROF_PROBE_H
#define LUAPROF_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "luaprof/record.h"

/* ---- PMUs (pmu.c) ---------------------------------------------------------------- */

/* Where PMUs are looked for: /sys/bus/event_source/devices by default; a
 * test may point it at a tree of its own (dir is copied; NULL restores the
 * default).  Not thread-safe: call before anything is parsed. */
void lp_pmu_set_root(const char *dir);
const char *lp_pmu_root(void);

/* The perf_event_attr type of PMU (its "type" file).  Returns 0, -ENOENT
 * when there is no such PMU, -EINVAL when the file is not a number. */
int lp_pmu_type(const char *pmu, uint32_t *type);

/* Where a term's value goes: bits of config (word 0), config1, config2 or
 * config3, in ascending order (the value's lowest bit into mask's lowest). */
struct lp_pmu_format {
	unsigned word;          /* 0..3 */
	uint64_t mask;
};

/* Parses the text of a format file: "config:0-7,21", "config1:0-63",
 * "config2:5" (a trailing newline allowed).  Returns 0 or -EINVAL. */
int lp_pmu_format_parse(const char *text, struct lp_pmu_format *out);

/* Places value into f's bits of config[f->word] (config has 4 words).
 * Returns 0, or -ERANGE when value has more bits than f holds. */
int lp_pmu_format_pack(const struct lp_pmu_format *f, uint64_t value, uint64_t config[4]);

/* Reads and parses PMU's format/TERM.  Returns 0, -ENOENT when the PMU has
 * no such term, -EINVAL when its file does not parse. */
int lp_pmu_format(const char *pmu, const char *term, struct lp_pmu_format *out);

/* Reads PMU's events/NAME alias ("event=0x00") into buf (NUL-terminated,
 * its newline dropped).  Returns 0, -ENOENT, or -ENAMETOOLONG. */
int lp_pmu_alias(const char *pmu, const char *name, char *buf, size_t size);

/* Writes the names of PMU's format terms, comma-separated, into buf (for
 * messages).  Returns how many there are (0 when none or unreadable). */
int lp_pmu_terms(const char *pmu, char *buf, size_t size);

/* ---- objects (objpath.c, ldcache.c) ---------------------------------------------- */

/* Finds the object a probe names: a name with a '/' is that file; a bare
 * name is a program on $PATH, else a library name ("libc", "libc.so.6",
 * "libpthread") from the dynamic linker's cache, else the same in the
 * usual library directories.  Writes the path into out.  Returns 0,
 * -ENOENT when nothing is found, -EISDIR/-EACCES for a file that cannot be
 * one, -ENAMETOOLONG. */
int lp_probe_find_object(const char *name, char *out, size_t size);

/* Looks name up in an image of /etc/ld.so.cache (the glibc-ld.so.cache1.1
 * format, alone or after the old ld.so-1.7.0 table): an exact soname
 * ("libc.so.6"), or a bare library name ("libc", "libc.so") for its first
 * x86-64 entry "NAME.so" or "NAME.so.*".  Writes the entry's path into
 * out.  Returns 0, -ENOENT, -EINVAL for an image that is not a cache (or
 * is cut short), -ENAMETOOLONG. */
int lp_ldcache_lookup(const void *cache, size_t size, const char *name, char *out,
		      size_t outsz);

/* ---- ELF symbols (elfsym.c) ------------------------------------------------------ */

struct lp_elf_sym {
	uint64_t vaddr;         /* st_value */
	uint64_t size;          /* st_size */
	uint64_t offset;        /* file offset of vaddr (0 when it has none: .bss) */
	int type;               /* STT_FUNC, STT_OBJECT, STT_GNU_IFUNC, ... */
	bool has_offset;        /* vaddr lies in a PT_LOAD's file bytes */
	bool dyn;               /* the object is ET_DYN (PIE or library): addresses
				   move by the load bias */
};

/* Finds symbol name in path's .symtab, else .dynsym (a versioned
 * "name@@VER" matches name); among several, a global one first.  Returns
 * 0, -ENOENT (no such symbol), -ENOEXEC (not an ELF file), -errno of
 * open. */
int lp_elf_symbol(const char *path, const char *name, struct lp_elf_sym *out);

/* The file offset of virtual address vaddr in path, through the PT_LOAD
 * segment whose file bytes hold it (vaddr - p_vaddr + p_offset): what a
 * uprobe takes for a symbol found in a separate debug file, whose own
 * segments hold no bytes.  Returns 0, -ENOENT (in no segment's bytes),
 * -ENOEXEC or -errno of open. */
int lp_elf_file_offset(const char *path, uint64_t vaddr, uint64_t *off);

/* Calls fn(name, arg) once for each function (STT_FUNC, defined: never an
 * IFUNC, which uprobes refuse) of path's .symtab and .dynsym whose name,
 * without its @VERSION, matches the fnmatch glob, in table order.  Stops
 * at fn's first non-zero result and returns it; else 0, -ENOEXEC (not an
 * ELF file), -ENOMEM or -errno of open. */
int lp_elf_functions(const char *path, const char *glob,
		     int (*fn)(const char *name, void *arg), void *arg);

/* The load bias of pid's program, whose file is path: where it runs minus
 * its link-time addresses (0 for ET_EXEC), from /proc/PID/auxv's AT_ENTRY
 * and the file's e_entry.  Returns 0 or -errno (-ESRCH: no such process). */
int lp_elf_load_bias(pid_t pid, const char *path, uint64_t *bias);

/* ---- USDT (usdt.c) --------------------------------------------------------------- */

enum lp_usdt_kind {
	LP_USDT_REG = 1,        /* %reg */
	LP_USDT_CONST,          /* $imm */
	LP_USDT_MEM,            /* disp(%reg) */
	LP_USDT_UNSUPPORTED,    /* a form not decoded (sym(%rip), an index
				   register): its value is nil */
};

struct lp_usdt_arg {
	uint8_t kind;           /* enum lp_usdt_kind */
	uint8_t size;           /* 1, 2, 4 or 8 bytes */
	bool is_signed;         /* "-4@...": sign-extended */
	uint8_t reg;            /* perf's x86 register number (PERF_REG_X86_*) */
	uint8_t reg_bytes;      /* the register's width named (%al 1, %eax 4, %rax 8) */
	int64_t value;          /* the constant, or the displacement */
};

#define LP_USDT_MAX_ARGS 12
#define LP_USDT_NAME_MAX 128

struct lp_usdt_probe {
	char provider[LP_USDT_NAME_MAX];
	char name[LP_USDT_NAME_MAX];
	uint64_t pc;            /* link-time address of the probe (base-adjusted) */
	uint64_t pc_offset;     /* its file offset: where the uprobe goes */
	uint64_t sema;          /* the semaphore's address, 0 when none */
	uint64_t sema_offset;   /* its file offset (the uprobe PMU's ref_ctr_offset) */
	int nr_args;
	bool args_bad;          /* the argument string did not parse: no s.args */
	struct lp_usdt_arg args[LP_USDT_MAX_ARGS];
};

/* Parses an argument spec string ("-4@%edi 8@$5 -8@-16(%rbp)") into args
 * (at most max).  An operand of a well-formed but undecoded form
 * (RIP-relative symbols, index registers) is LP_USDT_UNSUPPORTED.  Returns
 * the count, or -EINVAL for a malformed spec (unknown registers, sizes
 * other than 1, 2, 4, 8, more than max arguments). */
int lp_usdt_parse_args(const char *spec, struct lp_usdt_arg *args, int max);

/* Parses one stapsdt note's descriptor (version 3: pc, base, semaphore,
 * then provider, name and argument strings): desc of size bytes.  pc and
 * sema are the note's, not yet adjusted for .stapsdt.base (lp_usdt_each
 * does that).  Returns 0 or -EINVAL. */
int lp_usdt_parse_note(const void *desc, size_t size, struct lp_usdt_probe *out);

/* Calls fn for each USDT probe of the ELF image at buf (size bytes: a whole
 * file), in note order, with addresses adjusted and file offsets found;
 * probes whose note is malformed are skipped.  fn returns 0 to go on,
 * anything else stops the walk and is returned.  Returns 0, -ENOEXEC for
 * an image that is not ELF, or fn's value. */
int lp_usdt_each_mem(const void *buf, size_t size,
		     int (*fn)(const struct lp_usdt_probe *p, void *arg), void *arg);

/* The same for the file at path.  Returns 0, -errno of open, -ENOEXEC, or
 * fn's value. */
int lp_usdt_each(const char *path, int (*fn)(const struct lp_usdt_probe *p, void *arg),
		 void *arg);

/* The value of argument a at sample s of process pid: a register from the
 * sampled user registers; a constant; memory from the sample's copy of the
 * user stack when it lies there, else read from the live process
 * (process_vm_readv; pid <= 0 reads nothing).  The value is truncated to
 * a->size bytes and sign- or zero-extended.  Returns 0, -ENOENT when the
 * register was not sampled, -EFAULT when the memory cannot be read. */
int lp_usdt_arg_value(const struct lp_usdt_arg *a, const struct lp_sample *s, pid_t pid,
		      int64_t *out);

#endif
