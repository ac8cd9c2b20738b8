-- wallclock.lua: where each thread's wall-clock time goes: on the CPU
-- (cpu-clock samples) or off it, asleep, blocked, or runnable but waiting
-- for a CPU (sched:sched_switch).  Timer samples alone see only threads
-- that run; this adds the time they did not.
--
--   luaprof run wallclock -- ./prog        (or -p PID, or -a -d 5)
--
-- On-CPU time is each sample's period (cpu-clock's is in nanoseconds);
-- off-CPU time runs from a thread's switch out to its switch back in
-- (the sched helper).  Both events are system-wide so that the switches back
-- in are seen; the threads shown are the run's own (luaprof.is_target).
-- When sched_switch leaves a switch back in out, the kernel's switch
-- record (on_switch) ends the wait instead, or else the thread's first
-- sample after it (at most one sample period late).
-- The CPU table gives every CPU's samples and the share the idle task had:
-- system-wide, cpu-clock samples each CPU whether it runs anything or not.

local opt = luaprof.options{
  description = "on-CPU samples and off-CPU time per thread, and each CPU's idle share",
  help = [[Per thread: its wall time (on the CPU plus off it), and the shares
spent on the CPU, sleeping (S), blocked (D, uninterruptible: I/O, page
faults), runnable (switched out with work to do, waiting for a CPU), and
otherwise.  Then per CPU: samples and the idle task's share of them.]],
  { "limit", "integer", 20, "threads to print", min = 0 },
  { "cpus", "boolean", true, "print each CPU's samples and idle share" },
}
luaprof.setup{ events = { "cpu-clock", "sched:sched_switch" }, all_cpus = true }

local sched, fmt = require "sched", luaprof.fmt
local threads = {}      -- tid -> { comm, pid, tid, on (ns), off = { state name -> ns } }
local cpus = {}         -- cpu -> { n = samples, idle = samples of the idle task }
local last = 0          -- the latest event's time

local function thread(tid, pid, comm)
  local t = threads[tid]
  if not t then
    t = { tid = tid, pid = pid, on = 0, off = {} }
    threads[tid] = t
  end
  t.comm = comm
  return t
end

local off = sched.offcpu{
  on_back = function(o, t)
    local th = thread(o.tid, o.pid, o.comm)
    local state = sched.state_name(o.state)
    th.off[state] = (th.off[state] or 0) + (t - o.time)
  end,
}

on_event = {
  ["sched:sched_switch"] = function(s)
    last = s.time
    off:switch(s)
  end,
  ["cpu-clock"] = function(s)
    last = s.time
    local cpu = s.cpu
    if cpu then
      local c = cpus[cpu] or { n = 0, idle = 0 }
      cpus[cpu] = c
      c.n = c.n + 1
      if s.pid == 0 then c.idle = c.idle + 1 end
    end
    if s.pid ~= 0 and luaprof.is_target(s.pid) then
      local th = thread(s.tid, s.pid, s.comm)
      th.on = th.on + s.period
      off:running(s.tid, s.time)        -- back in, if its switch in was missed
    end
  end,
}

function on_switch(t) off:switch_record(t) end

local columns = { "sleeping", "uninterruptible", "runnable" }

function on_end()
  off:finish(last)                      -- threads still out: until the end
  local list = {}
  for _, t in pairs(threads) do
    t.wall = t.on
    for _, ns in pairs(t.off) do t.wall = t.wall + ns end
    if t.wall > 0 then list[#list + 1] = t end
  end
  table.sort(list, function(a, b) return a.wall > b.wall end)
  local rows = {}
  for i = 1, math.min(opt.limit, #list) do
    local t = list[i]
    local row, other = { t.comm, t.pid, t.tid, fmt.ns(t.wall), fmt.pct(t.on, t.wall) }, t.wall - t.on
    for _, state in ipairs(columns) do
      row[#row + 1] = fmt.pct(t.off[state] or 0, t.wall)
      other = other - (t.off[state] or 0)
    end
    row[#row + 1] = fmt.pct(other, t.wall)
    rows[i] = row
  end
  print("# wall-clock time per thread: on the CPU (samples) and off it (switched out, by state)")
  fmt.print_table(rows, { headers = { "COMMAND", "PID", "TID", "WALL", "ON-CPU", "SLEEPING",
                                      "BLOCKED", "RUNNABLE", "OTHER" } })
  if off.missed > 0 then
    print(string.format("# %d %s back in had no sched_switch: those waits end at the thread's "
                        .. "switch record (or, without one, its next sample)", off.missed,
                        off.missed == 1 and "switch" or "switches"))
  end
  if not opt.cpus or not next(cpus) then return end
  local ids = {}
  for cpu in pairs(cpus) do ids[#ids + 1] = cpu end
  table.sort(ids)
  rows = {}
  for i, cpu in ipairs(ids) do
    rows[i] = { cpu, cpus[cpu].n, fmt.pct(cpus[cpu].idle, cpus[cpu].n) }
  end
  print("\n# cpu-clock samples per CPU, and the idle task's share")
  fmt.print_table(rows, { headers = { "CPU", "SAMPLES", "IDLE" } })
end
