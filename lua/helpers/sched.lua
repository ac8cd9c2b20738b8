-- sched, a helper of the shipped scripts (require "sched"; no public
-- module): reading the scheduler's tracepoints (sched:sched_switch,
-- sched:sched_wakeup) for off-CPU, wall-clock and wake-up analyses.
--
--   sched.state(prev_state)   the letters ps and perf print: "R", "R+"
--                             (preempted), "S", "D", "T", "t", "X", "Z",
--                             "P", "I", several joined by "|"
--   sched.state_name(prev_state)  in words: "runnable" (preempted: waiting
--                             for a CPU), "sleeping", "uninterruptible", ...
--   local off = sched.offcpu{ keep = fn(s), filter = fn(tid), on_back = fn(o, t) }
--   off:switch(s)             feed every sched:sched_switch sample (s)
--   off:running(tid, t)       tid was seen running at t (a sample of it):
--                             ends its wait there if its switch back in
--                             was not recorded
--   off:switch_record(t)      feed on_switch's records (t): a switch in
--                             ends the thread's wait as off:running does
--   off:finish(t)             the threads still switched out at the end:
--                             on_back for each, as if back in at time t
--
-- offcpu follows each thread from its switch out (prev_pid) to its switch
-- back in (next_pid) and then calls on_back(o, t_in) with o = { tid=,
-- pid=, comm=, time= (the switch out), state= (prev_state), data= (what
-- keep(s) returned for the switch-out sample: its stack, say), missed= },
-- so the time off the CPU is t_in - o.time.  o is the thread's own table,
-- reused for its next wait: copy what you keep of it.  The switch-out sample is
-- taken in the thread that leaves, so s.stack there is where it blocked.
-- filter(tid) chooses the threads (default: luaprof.is_target, the run's
-- own processes when the events are system-wide).
--
-- The kernel can leave a switch back in out of sched_switch: on some machines
-- no switch from one CPU's idle task is recorded, for perf as for luaprof,
-- so a thread woken on that idle CPU is never seen to come back, while
-- the kernel's switch records (PERF_RECORD_SWITCH) have it.  Such a wait
-- ends, in order of preference, at the thread's switch record (a script
-- defining on_switch gets them: pass each to off:switch_record), at its
-- first sample after it ran again (off:running, at most a sample period
-- late), or else at its next switch out.  That interval has o.missed =
-- true and is counted in off.missed.

local M = {}

-- prev_state's letters, as this kernel's sched_switch format prints them
-- (luaprof.task_state); TASK_REPORT_MAX is the bit above them that marks a
-- preempted, still runnable task.
local words = { S = "sleeping", D = "uninterruptible", T = "stopped", t = "traced",
                X = "dead", Z = "zombie", P = "parked", I = "idle" }
M.TASK_REPORT_MAX = luaprof.const.TASK_REPORT_MAX

local state_of, name_of = {}, {}        -- caches: a run sees few distinct values

function M.state(st)
  local l = state_of[st]
  if not l then
    l = luaprof.task_state(st)
    state_of[st] = l
  end
  return l
end

function M.state_name(st)
  local n = name_of[st]
  if not n then
    local l = M.state(st)
    n = l:sub(1, 1) == "R" and "runnable" or words[l] or l
    name_of[st] = n
  end
  return n
end

local Off = {}
Off.__index = Off

function M.offcpu(opts)
  opts = opts or {}
  return setmetatable({
    keep = opts.keep, filter = opts.filter or luaprof.is_target,
    on_back = opts.on_back or function() end,
    out = {}, free = {}, missed = 0,
  }, Off)
end

function Off:switch(s)
  local f = s.args
  local t, next_tid, prev_tid = s.time, f.next_pid, f.prev_pid
  local o = self.out[next_tid]
  if o then
    self.out[next_tid] = nil
    self.on_back(o, t)
  end
  if prev_tid == 0 or not self.filter(prev_tid) then return end
  o = self.out[prev_tid]
  if o then                     -- its switch back in was not recorded
    o.missed = true
    self.missed = self.missed + 1
    self.on_back(o, t)
  end
  o = self.free[prev_tid]       -- one table per thread, reused
  if not o then
    o = { tid = prev_tid }
    self.free[prev_tid] = o
  end
  o.pid, o.comm, o.time, o.state, o.missed = s.pid, f.prev_comm, t, f.prev_state, false
  o.data = self.keep and self.keep(s)
  self.out[prev_tid] = o
end

function Off:running(tid, t)
  local o = self.out[tid]
  if o and t > o.time then
    self.out[tid] = nil
    o.missed = true
    self.missed = self.missed + 1
    self.on_back(o, t)
  end
end

function Off:switch_record(t)
  if not t.out then self:running(t.tid, t.time) end
end

function Off:finish(t)
  local tids = {}
  for tid in pairs(self.out) do tids[#tids + 1] = tid end
  table.sort(tids)
  for _, tid in ipairs(tids) do
    local o = self.out[tid]
    self.out[tid] = nil
    if t > o.time then self.on_back(o, t) end
  end
end

return M
