/*
 * ltarget.c - which processes a run follows: luaprof.is_target(id).
 *
 * A run of a command follows it and every process it starts; a run with -p
 * follows those processes and what they start.  Its samples are all of
 * them, unless the events are system-wide (the script's
 * luaprof.setup{all_cpus = true}, which scheduler analyses need to see
 * a thread switched back in, woken, or waiting for a CPU taken by
 * another): then a script asks luaprof.is_target(pid or tid) to keep what
 * concerns its targets.  The set grows with each FORK record whose parent
 * is in it, in time order, before the child's first sample.  A run of the
 * whole system (-a) and a replay follow everything: is_target is always
 * true there.
 */
#include <errno.h>

#include <lauxlib.h>

#include "lp.h"
#include "luaprof/hmap.h"

static bool has(struct lp_hmap *set, uint32_t pid)
{
	return lp_hmap_find(set, &pid, sizeof pid, lp_hash(&pid, sizeof pid), false, NULL) >= 0;
}

static int add(struct lp_hmap *set, uint32_t pid)
{
	int64_t i = lp_hmap_find(set, &pid, sizeof pid, lp_hash(&pid, sizeof pid), true, NULL);
	return i < 0 ? (int)i : 0;
}

int lp_targets_init(struct lp_run *run, const pid_t *pids, size_t n)
{
	if (!(run->targets = lp_hmap_new()))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (add(run->targets, (uint32_t)pids[i]))
			return -ENOMEM;
	return 0;
}

int lp_targets_fork(struct lp_run *run, const struct lp_record *rec)
{
	struct lp_hmap *set = run->targets;
	if (!set || rec->type != PERF_RECORD_FORK || rec->u.task.pid == rec->u.task.ppid ||
	    !has(set, rec->u.task.ppid))
		return 0;
	return add(set, rec->u.task.pid);
}

void lp_targets_free(struct lp_run *run)
{
	lp_hmap_free(run->targets);
	run->targets = NULL;
}

/* luaprof.is_target(id): whether the process id, or the process of the
 * thread id (a tracepoint's prev_pid or next_pid is a thread id), is one
 * the run follows. */
int lp_l_is_target(lua_State *L)
{
	struct lp_run *run = lp_get_run(L);
	lua_Integer id = luaL_checkinteger(L, 1);
	struct lp_hmap *set = run->targets;
	if (!set || id < 0 || id > UINT32_MAX) {
		lua_pushboolean(L, !set);
		return 1;
	}
	struct lp_thread *t = lp_procs_find(run->procs, (uint32_t)id);
	lua_pushboolean(L, has(set, t ? t->pid : (uint32_t)id));
	return 1;
}
