-- offcpu.lua: where threads wait.  The time each thread spends switched
-- out (asleep, blocked, or runnable but waiting for a CPU), by the state it
-- left in and by the stack where it blocked, like BCC's offcputime.
--
--   luaprof run offcpu -- ./prog           (or -p PID, or -a -d 5)
--   luaprof run offcpu --folded > off.folded && luaprof run flamegraph ...
--
-- From sched:sched_switch with call stacks: a thread's switch out (it is
-- prev_pid) is sampled in that thread, so its stack is where it blocked;
-- its switch back in (next_pid), seen on whichever CPU runs it next, ends
-- the interval.  The events are system-wide so that those switches back in
-- are seen; only the run's own threads are counted (luaprof.is_target).
-- The kernel's switch records (on_switch) end the waits whose switch back
-- in sched_switch left out (a kernel may record none from an idle CPU).

local opt = luaprof.options{
  description = "off-CPU time by thread, state and blocking stack (sched_switch), like BCC offcputime",
  help = [[Prints the time off the CPU per thread and state (sleeping: S,
uninterruptible: D, runnable: preempted and waiting for a CPU), then the
stacks that waited longest, leaf first, with their total time.  --folded
writes "comm;root;...;leaf MICROSECONDS" lines instead (--out=FILE, or
stdout); luaprof run flamegraph --offcpu draws them as a flame graph.]],
  { "min-block", "integer", 1, "leave out waits shorter than this, in microseconds "
    .. "(BCC offcputime's --min-block-time)" },
  { "states", "list", {}, "only these states (letters: S, D, R, ...); default all",
    choices = { "R", "S", "D", "T", "t", "X", "Z", "P", "I" } },
  { "limit", "integer", 10, "stacks to print (and twice as many thread rows)", min = 0 },
  { "folded", "boolean", false, "print folded stacks weighted in microseconds instead" },
  { "out", "string", "-", "where --folded writes (- for stdout)" },
}
luaprof.setup{ events = { "sched:sched_switch" }, call_graph = true, all_cpus = true }

local sched = require "sched"
local wanted = {}
for _, l in ipairs(opt.states) do wanted[l] = true end

local by_thread = {}            -- tid -> state letter -> { comm, pid, tid, state, n, ns, max }
local by_stack = luaprof.map()  -- folded stack -> ns

local off = sched.offcpu{
  keep = function(s) return s.folded end,
  on_back = function(o, t)
    local ns = t - o.time
    local letter = sched.state(o.state):sub(1, 1)
    if ns < opt["min-block"] * 1000 or (next(wanted) and not wanted[letter]) then return end
    local states = by_thread[o.tid]
    if not states then
      states = {}
      by_thread[o.tid] = states
    end
    local r = states[letter]
    if not r then
      r = { comm = o.comm, pid = o.pid, tid = o.tid, state = sched.state_name(o.state), n = 0, ns = 0, max = 0 }
      states[letter] = r
    end
    r.n, r.ns, r.max = r.n + 1, r.ns + ns, math.max(r.max, ns)
    by_stack:add(o.data, ns)
  end,
}

on_event = { ["sched:sched_switch"] = function(s) off:switch(s) end }
-- The kernel's switch records (on_switch asks for them): a switch back in
-- that sched_switch left out ends the wait there.
function on_switch(t) off:switch_record(t) end

local function print_stacks()
  local fmt = luaprof.fmt
  print(string.format("\n# the %d stacks that waited longest (leaf first), like BCC offcputime", opt.limit))
  for folded, ns in by_stack:sorted("value", opt.limit) do
    local frames = {}
    for f in folded:gmatch("[^;]+") do frames[#frames + 1] = f end
    for i = #frames, 2, -1 do print("    " .. frames[i]) end
    print(string.format("    -                %s", frames[1]))
    print(string.format("        %s\n", fmt.ns(ns)))
  end
end

function on_end()
  if opt.folded then
    local us = luaprof.map()
    for folded, ns in by_stack:sorted() do us:add(folded, (ns + 500) // 1000) end
    luaprof.folded.write(opt.out, us)
    return
  end
  local rows = {}
  local list = {}
  for _, states in pairs(by_thread) do
    for _, r in pairs(states) do list[#list + 1] = r end
  end
  table.sort(list, function(a, b) return a.ns > b.ns end)
  local fmt = luaprof.fmt
  local waits, total = 0, 0
  for i, r in ipairs(list) do
    waits, total = waits + r.n, total + r.ns
    if i <= opt.limit * 2 then
      rows[i] = { r.comm, r.pid, r.tid, r.state, r.n, fmt.ns(r.ns), fmt.ns(r.ns // r.n), fmt.ns(r.max) }
    end
  end
  print(string.format("# time off the CPU per thread and state: %d waits, %d ns in all", waits, total))
  fmt.print_table(rows, { headers = { "COMM", "PID", "TID", "STATE", "WAITS", "TOTAL", "AVERAGE", "LONGEST" } })
  if off.missed > 0 then
    print(string.format("# %d %s back in had no sched_switch: those waits end at the "
                        .. "thread's switch record (or, in a recording without them, its next "
                        .. "switch out)", off.missed, off.missed == 1 and "switch" or "switches"))
  end
  print_stacks()
end
