/*
 * proc.h - the process model: which threads exist, which process each
 * belongs to, its command name and its memory maps.
 *
 * The model is driven by decoded records (MMAP/MMAP2, COMM, FORK, EXIT) in
 * time order, so a sample is always interpreted against the maps that were
 * live when it was taken, even when the process has exited since.  Processes
 * that existed before a run are seeded once from /proc.  Kernel maps (records
 * with pid -1) go to a separate kernel address space.
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
 * the map); maps copied at fork share it. */
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
};

struct lp_proc {
	uint32_t pid;
	struct lp_map *maps;    /* sorted by start, non-overlapping */
	uint32_t nr_maps, cap_maps;
	uint32_t refs;          /* threads pointing here (+1 while live) */
	uint32_t gen;           /* bumped whenever the maps change */
};

struct lp_thread {
	uint32_t pid, tid;
	char comm[16];
	bool exited;
	struct lp_proc *proc;
};

/* Creates an empty model.  NULL and errno on failure.  Free with
 * lp_procs_free(). */
struct lp_procs *lp_procs_new(void);
void lp_procs_free(struct lp_procs *ps);

/* Applies one decoded record: MMAP/MMAP2 add a map (replacing what it
 * overlaps), COMM renames (exec also drops the old maps), FORK creates the
 * thread and (for a new process) copies the parent's maps, EXIT marks the
 * thread exited.  Other types are ignored.  Returns 0, or -ENOMEM. */
int lp_procs_apply(struct lp_procs *ps, const struct lp_record *r);

/* The thread tid of process pid, created (comm ":<tid>", as perf names
 * unknown threads) when unknown.  NULL only on ENOMEM.  Valid until
 * lp_procs_free(). */
struct lp_thread *lp_procs_thread(struct lp_procs *ps, uint32_t pid, uint32_t tid);

/* The thread tid if known, else NULL. */
struct lp_thread *lp_procs_find(struct lp_procs *ps, uint32_t tid);

/* The kernel's address space (maps from records with pid -1). Never NULL. */
struct lp_proc *lp_procs_kernel(struct lp_procs *ps);

/* The map containing addr, or NULL.  Binary search.  Valid until the next
 * lp_procs_apply() on this model. */
const struct lp_map *lp_proc_find_map(const struct lp_proc *p, uint64_t addr);

/* Seeds process pid from /proc: every thread (with its comm) and, when
 * maps is true, /proc/pid/maps.  Returns 0, -ESRCH when it is gone, or
 * another negative errno. */
int lp_procs_synthesize(struct lp_procs *ps, pid_t pid, bool maps);

/* Visits every thread (order unspecified); stops early when fn returns
 * non-zero and returns that value. */
int lp_procs_each(struct lp_procs *ps, int (*fn)(struct lp_thread *t, void *arg), void *arg);

#endif
