/* Part of include/luaprof/: the core's interface to the layer above it (lua/). */
/*
 * proc.h - the process model: which threads exist, which process each
 * belongs to, its command name and its memory maps.
 *
 * The model is driven by decoded records (MMAP/MMAP2, COMM, FORK, EXIT) in
 * time order, so a sample is always interpreted against the maps that were
 * live when it was taken, even when the process has exited since.  Processes
 * that existed before a run are read once from /proc as the records perf
 * record synthesizes for them.  Kernel maps (records with pid -1) go to a
 * separate kernel address space.
 */
#ifndef LUAPROF_PROC_H
#define LUAPROF_PROC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct lp_record;
struct lp_procs;

/* One mapping.  path is interned by the lp_procs that owns the map and lives
 * as long as it.  dso is a slot for the symbolizer (NULL until it resolves
 * the map); maps copied at fork share it.  hit is set by lp_procs_hit() when
 * a sample lands in the map; the pieces of a split map and the copies made
 * at fork keep it.  ksymbol marks a kernel map a KSYMBOL record made (a
 * BPF program's code, a trampoline): path is then the name of the one
 * symbol it holds, which starts at start. */
struct lp_map {
	uint64_t start, end;    /* [start, end) */
	uint64_t pgoff;         /* file offset of start */
	uint32_t maj, min;
	uint64_t ino;
	uint32_t prot, flags;
	uint8_t build_id[20];
	uint8_t build_id_size;
	const char *path;
	void *dso;
	bool hit;
	bool ksymbol;
};

struct lp_proc {
	uint32_t pid;
	struct lp_map *maps;    /* sorted by start, non-overlapping */
	uint32_t nr_maps, cap_maps;
	uint32_t refs;          /* threads pointing here (+1 while live) */
	uint32_t gen;           /* changes whenever the maps change, its own
				 * or the kernel's; never the same for two
				 * processes, so (proc, gen) keys a cache of
				 * its frames, user and kernel, even if the
				 * struct is reused */
	uint32_t slot;          /* its index in the model's list (proc.c) */
};

struct lp_thread {
	uint32_t pid, tid;
	char comm[16];
	bool exited;
	uint64_t exit_time;     /* of its last EXIT record */
	uint32_t dead;          /* its entries in the model's FIFO of exits (proc.c) */
	struct lp_proc *proc;
};

/* How long (on the records' clock) an exited thread is kept, so that the
 * samples taken as it exited, and those of the other CPUs ordered after
 * its EXIT, still find it and its process's maps: perf's samples can
 * follow a task's EXIT record by a scheduling slice (at most 0.34 ms in
 * the system-wide recordings of the tests; none in a per-task one, whose
 * events end at the EXIT).  After that the thread is freed at the next
 * EXIT record, and its process with its last thread: a run on a machine
 * that forks hundreds of processes a second keeps only the last second's
 * exited ones (a build of this project, 2,000 processes in 10 s: 3 MB
 * less at the peak than with 10 s). */
#define LP_PROCS_EXIT_KEEP_NS 1000000000ull

/* Creates an empty model.  NULL and errno on failure.  Free with
 * lp_procs_free(). */
struct lp_procs *lp_procs_new(void);
void lp_procs_free(struct lp_procs *ps);

/* Applies one decoded record: MMAP/MMAP2 add a map (replacing what it
 * overlaps), KSYMBOL adds a kernel map named after the symbol (replacing
 * what it overlaps) or, unregistering, removes the KSYMBOL map at its
 * address, COMM renames (an exec keeps the old maps, as perf does: the
 * new image's MMAPs replace what they overlap), FORK creates the
 * thread and (for a new process) copies the parent's maps unless misc has
 * PERF_RECORD_MISC_FORK_EXEC (perf's mark on forks synthesized from /proc),
 * EXIT marks the thread exited, and frees the threads that exited more than
 * LP_PROCS_EXIT_KEEP_NS before it (unless a FORK made their tid live again),
 * with each process whose last thread that was.  Other types are ignored.
 * Returns 0, or -ENOMEM. */
int lp_procs_apply(struct lp_procs *ps, const struct lp_record *r);

/* The thread tid of process pid, created (comm ":<tid>", as perf names
 * unknown threads) when unknown.  NULL only on ENOMEM.  Valid until
 * lp_procs_free(), or until an EXIT record LP_PROCS_EXIT_KEEP_NS after
 * its own frees it (so: for the handling of the current record). */
struct lp_thread *lp_procs_thread(struct lp_procs *ps, uint32_t pid, uint32_t tid);

/* The thread tid if known, else NULL. */
struct lp_thread *lp_procs_find(struct lp_procs *ps, uint32_t tid);

/* The kernel's address space (maps from records with pid -1, and from
 * KSYMBOL records).  Never NULL.  Its gen changes with its maps, and then
 * every process's too. */
struct lp_proc *lp_procs_kernel(struct lp_procs *ps);

/* Whether MMAP records gave the kernel maps (its text, its modules), as a
 * recording has them: perf places kernel addresses in those maps only.
 * A live run's model has none, KSYMBOL maps at most. */
bool lp_procs_kernel_recorded(const struct lp_procs *ps);

/* The map containing addr, or NULL.  Binary search.  Valid until the next
 * lp_procs_apply() on this model. */
const struct lp_map *lp_proc_find_map(const struct lp_proc *p, uint64_t addr);

/* Marks the map sample r (a decoded PERF_RECORD_SAMPLE) landed in, as
 * perf record marks the objects it writes build-ids for: only the sample's
 * ip counts, not its callchain (perf 6.1).  Its cpumode (r->misc) chooses
 * the address space: user samples look in the process of thread tid when
 * it is known under pid, else in the process of pid's main thread (as
 * lp_procs_thread() would file the sample, but nothing is created); kernel
 * samples look in the kernel's maps; guest and hypervisor samples in none.
 * Returns the map when r is the first sample in it (its hit flag was clear
 * and is now set), else NULL (already hit, or no map there).  The map is
 * valid until the next lp_procs_apply().  One hash lookup and one binary
 * search; never allocates. */
const struct lp_map *lp_procs_hit(struct lp_procs *ps, const struct lp_record *r);

/* What lp_procfs_scan reports besides each thread's COMM. */
enum {
	LP_SCAN_MAPS = 1,       /* an MMAP2 per executable map */
	LP_SCAN_FORK = 2,       /* a FORK before each COMM, as perf record -a writes */
};

typedef int (*lp_scan_fn)(const struct lp_record *r, void *arg);

/* Reads process pid (a thread id stands for its process) from /proc once
 * and hands fn the records perf record synthesizes for a process that
 * existed before the run, in perf's order: [FORK,] COMM of the main thread,
 * then [MMAP2 of each executable map,] then [FORK,] COMM of every other
 * thread.  Records are decoded only (data NULL, no trailer, time 0) and
 * borrowed for the call.  FORKs carry PERF_RECORD_MISC_FORK_EXEC (the
 * process's maps are its own, not copies of the parent's); the main thread
 * forks from the parent process, the others from the main thread.  MMAP2s
 * have misc PERF_RECORD_MISC_USER, the device and inode, prot and flags of
 * the maps line, and "//anon" for a map without a file, as perf writes it.
 * Threads that exit during the scan are left out.  Stops at the first
 * non-zero return of fn and returns it; otherwise 0, -ESRCH when pid is
 * gone, or another negative errno. */
int lp_procfs_scan(pid_t pid, unsigned flags, lp_scan_fn fn, void *arg);

/* Seeds the model with process pid: lp_procfs_scan's records (with maps
 * when maps is true, without FORKs) applied with lp_procs_apply().  Returns
 * as lp_procfs_scan does. */
int lp_procs_synthesize(struct lp_procs *ps, pid_t pid, bool maps);

/* Visits every thread (order unspecified); stops early when fn returns
 * non-zero and returns that value, else 0.  Fails in no other way. */
int lp_procs_each(struct lp_procs *ps, int (*fn)(struct lp_thread *t, void *arg), void *arg);

/* Reads the NUL-terminated string at addr in live process pid (procmem.c)
 * into buf (size bytes, at least 1): at most size - 1 bytes, always
 * NUL-terminated, stopping at the string's NUL or at the first byte that
 * cannot be read.  Returns 0 with *len, -EFAULT when not even the first
 * byte can be read, -ESRCH when the process is gone, -EINVAL for pid <= 0
 * or a NULL address.  A system call per 256 bytes or page. */
int lp_proc_read_str(pid_t pid, uint64_t addr, char *buf, size_t size, size_t *len);

/* Strings of read-only file mappings (filestr.c): a string literal of a
 * process, read from the object's file, exact whether or not the process
 * still runs (see capture.h).  Holds a few open files. */
struct lp_filestr;

/* An empty reader, or NULL with errno.  Free with lp_filestr_free. */
struct lp_filestr *lp_filestr_new(void);
/* Closes its files and frees it.  Accepts NULL. */
void lp_filestr_free(struct lp_filestr *fs);

/* The NUL-terminated string at addr in process p (pid: its id, for
 * /proc/PID/root while it lives; 0 when unknown) when addr lies in a
 * never-written segment (a PT_LOAD without PF_W) of an object p maps,
 * found from the maps of p the model holds (each object's load bias):
 * read from the file into buf (size bytes, at least 2), at most size - 1
 * bytes, NUL-terminated.  Returns 0 with *len, -ENOENT when addr is in no
 * such segment, -ERANGE when the string does not end within it, -EIO, or
 * -EINVAL.  The file must be the one mapped (same inode); a pread per
 * call, and the program headers of an object read once. */
int lp_filestr_read(struct lp_filestr *fs, const struct lp_proc *p, pid_t pid, uint64_t addr,
		    char *buf, size_t size, size_t *len);

#endif
