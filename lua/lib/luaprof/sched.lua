-- luaprof.sched: reading the scheduler's tracepoints (sched:sched_switch,
-- sched:sched_wakeup) for off-CPU, wall-clock and wake-up analyses.
--
--   sched.state(prev_state)   the letters ps and perf print: "R", "R+"
--                             (preempted), "S", "D", "T", "t", "X", "Z",
--                             "P", "I", several joined by "|"
--   sched.state_name(prev_state)  in words: "runnable" (preempted: waiting
--                             for a CPU), "sleeping", "uninterruptible", ...
--   local off = sched.offcpu{ keep = fn(s), filter = fn(tid), on_back = fn(o, t) }
--   off:switch(s)             feed every sched:sched_switch sample (s)
--   off:finish(t)             the threads still switched out at the end:
--                             on_back for each, as if back in at time t
--
-- offcpu follows each thread from its switch out (prev_pid) to its switch
-- back in (next_pid) and then calls on_back(o, t_in) with o = { tid=,
-- pid=, comm=, time= (the switch out), state= (prev_state), data= (what
-- keep(s) returned for the switch-out sample: its stack, say), missed= },
-- so the time off the CPU is t_in - o.time.  The switch-out sample is
-- taken in the thread that leaves, so s.stack there is where it blocked.
-- filter(tid) chooses the threads (default: luaprof.is_target, the run's
-- own processes when the events are system-wide).  A thread switched out
-- again without its switch back in recorded (the kernel leaves some out:
-- on these machines, switches from a few tasks of their own are never
-- recorded, with perf as with luaprof) is taken to have been off until
-- then: that interval has o.missed = true and is counted in off.missed.

local M = {}

-- prev_state's bits, as the kernel's sched_switch format prints them
-- (TASK_REPORT; the bit above them marks a preempted, still runnable task).
local letters = { "S", "D", "T", "t", "X", "Z", "P", "I" }
local words = { S = "sleeping", D = "uninterruptible", T = "stopped", t = "traced",
                X = "dead", Z = "zombie", P = "parked", I = "idle" }
M.TASK_REPORT_MAX = 0x100

function M.state(st)
  local bits = st & (M.TASK_REPORT_MAX - 1)
  if bits == 0 then return st & M.TASK_REPORT_MAX ~= 0 and "R+" or "R" end
  local out = {}
  for i, l in ipairs(letters) do
    if bits & (1 << (i - 1)) ~= 0 then out[#out + 1] = l end
  end
  return table.concat(out, "|")
end

function M.state_name(st)
  local l = M.state(st)
  if l:sub(1, 1) == "R" then return "runnable" end
  return words[l] or l
end

local Off = {}
Off.__index = Off

function M.offcpu(opts)
  opts = opts or {}
  return setmetatable({
    keep = opts.keep, filter = opts.filter or luaprof.is_target,
    on_back = opts.on_back or function() end,
    out = {}, missed = 0,
  }, Off)
end

function Off:switch(s)
  local f = s.fields
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
  self.out[prev_tid] = { tid = prev_tid, pid = s.pid, comm = f.prev_comm, time = t,
                         state = f.prev_state, data = self.keep and self.keep(s) }
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
