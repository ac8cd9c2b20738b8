-- sched-migration.lua: each CPU's runqueue over time, from task switches,
-- migrations and wake-ups; a port of perf's sched-migration.py.  The
-- original draws the time slices in a wxPython window; this prints them:
-- one line per slice (its number, start, end, the total load and the CPUs
-- whose event made it), then each CPU's runqueue in it (the pids on it, 0
-- the idle task) and the last event that changed that runqueue.
--
--   luaprof run sched-migration -a -d 1
--   luaprof run sched-migration -i perf.data   (perf sched record, or perf record -a
--                                               -e 'sched:sched_switch,sched:sched_migrate_task,...')
--
-- The model is the original's, quirks and all: a switch out in a state
-- other than R, S, D or DEAD (such as R+, preempted) counts as a sleep; a
-- runqueue snapshot is shared by the slices that did not change it, so a
-- wake-up of a task already on it relabels those slices' event too; a
-- switch whose prev is not the task the CPU was last switched to (the
-- kernel left a switch out) is reported as rejected, and still applied.

luaprof.options{ description = "each CPU's runqueue over time (perf's sched-migration.py, as text)" }
luaprof.setup{ events = { "sched:sched_switch", "sched:sched_migrate_task", "sched:sched_wakeup",
                          "sched:sched_wakeup_new" } }

local states = { [0] = "R", [1] = "S", [2] = "D", [64] = "DEAD" }
local function task_state(st) return states[st] or "Unknown" end

-- A runqueue snapshot: its tasks (a list of pids, idle first) and the
-- event that made it ({ kind, pid }).
local function snapshot(tasks, event)
  return { tasks = tasks or { 0 }, event = event or { "unknown" } }
end

local function has(tasks, pid)
  for _, t in ipairs(tasks) do if t == pid then return true end end
  return false
end

local function copy(tasks)
  return { table.unpack(tasks) }
end

local function rq_switch(rq, prev, prev_state, next_pid)
  local running = task_state(prev_state) == "R"
  if running and has(rq.tasks, next_pid) and has(rq.tasks, prev) then return rq end
  local event = running and { "unknown" } or { "sleep", prev }
  local tasks = copy(rq.tasks)
  if has(rq.tasks, prev) then
    if not running then
      for i, t in ipairs(tasks) do
        if t == prev then table.remove(tasks, i) break end
      end
    end
  elseif running then
    tasks[#tasks + 1] = prev
  end
  if not has(tasks, next_pid) then tasks[#tasks + 1] = next_pid end
  return snapshot(tasks, event)
end

local function rq_migrate_out(rq, old)
  if not has(rq.tasks, old) then return rq end
  local tasks = {}
  for _, t in ipairs(rq.tasks) do if t ~= old then tasks[#tasks + 1] = t end end
  return snapshot(tasks, { "migrate_out", old })
end

local function rq_migrate_in(rq, new, event)
  if has(rq.tasks, new) then
    rq.event = event
    return rq
  end
  local tasks = copy(rq.tasks)
  tasks[#tasks + 1] = new
  return snapshot(tasks, event)
end

local function load(rq) return #rq.tasks - 1 end

-- Time slices: each has its start and end, the runqueues (cpu ->
-- snapshot), the total load and the CPUs its event touched.  A slice is
-- kept only when an event changed a runqueue.
local slices = {}

-- The runqueue of cpu in slice ts, made (idle only) when ts has none.
local function rq_of(ts, cpu)
  local rq = ts.rqs[cpu]
  if not rq then
    rq = snapshot()
    ts.rqs[cpu] = rq
  end
  return rq
end

local function new_slice(start, prev)
  local ts = { start = start, finish = start, prev = prev, event_cpus = {}, rqs = {}, total_load = 0 }
  if prev then
    ts.total_load = prev.total_load
    for cpu, rq in pairs(prev.rqs) do ts.rqs[cpu] = rq end
  end
  return ts
end

local function slice_at(t)
  local last = slices[#slices]
  if not last then return new_slice(t, new_slice(-1)) end
  last.finish = t
  return new_slice(t, last)
end

local function set_rq(ts, cpu, old, new)
  ts.rqs[cpu] = new
  ts.total_load = ts.total_load + load(new) - load(old)
end

local function commit(ts)
  if slices[#slices] ~= ts then slices[#slices + 1] = ts end
end

local current = {}                      -- cpu -> the pid last switched to

on_event = {}

on_event["sched:sched_switch"] = function(s)
  local f, cpu = s.args, s.cpu
  local on_cpu = current[cpu]
  if on_cpu and on_cpu ~= f.prev_pid then
    print(string.format("Sched switch event rejected ts: %d.%d cpu: %d prev: %s(%d) next: %s(%d)",
                        s.time // 1000000000, s.time % 1000000000 // 1000, cpu,
                        f.prev_comm, f.prev_pid, f.next_comm, f.next_pid))
  end
  current[cpu] = f.next_pid
  local ts = slice_at(s.time)
  local old = rq_of(ts.prev, cpu)
  local new = rq_switch(old, f.prev_pid, f.prev_state, f.next_pid)
  if old == new then return end
  set_rq(ts, cpu, old, new)
  commit(ts)
  ts.event_cpus = { cpu }
end

on_event["sched:sched_migrate_task"] = function(s)
  local f = s.args
  local ts = slice_at(s.time)
  if f.orig_cpu == f.dest_cpu then return end
  local old = rq_of(ts.prev, f.orig_cpu)
  local out = rq_migrate_out(old, f.pid)
  set_rq(ts, f.orig_cpu, old, out)
  local dest = rq_of(ts.prev, f.dest_cpu)
  set_rq(ts, f.dest_cpu, dest, rq_migrate_in(dest, f.pid, { "migrate_in", f.pid }))
  commit(ts)
  if old ~= out then ts.event_cpus[#ts.event_cpus + 1] = f.orig_cpu end
  ts.event_cpus[#ts.event_cpus + 1] = f.dest_cpu
end

-- Kernels before 4.x had sched_wakeup's success; later ones always
-- succeed.  A field the format lacks is an error to read: whether it has
-- it is asked once per event (pairs gives every field).
local has_success = {}

local function wake_up(s, kind)
  local f = s.args
  local known = has_success[s.event]
  if known == nil then
    known = false
    for name in pairs(f) do known = known or name == "success" end
    has_success[s.event] = known
  end
  if known and f.success == 0 then return end
  local ts = slice_at(s.time)
  local old = rq_of(ts.prev, f.target_cpu)
  local new = rq_migrate_in(old, f.pid, { kind, f.pid })
  if new == old then return end
  set_rq(ts, f.target_cpu, old, new)
  commit(ts)
  ts.event_cpus = { f.target_cpu }
end

on_event["sched:sched_wakeup"] = function(s) wake_up(s, "wakeup") end
on_event["sched:sched_wakeup_new"] = function(s) wake_up(s, "fork") end

function on_end()
  for i, ts in ipairs(slices) do
    print(string.format("%d %d %d load=%d cpus=%s", i - 1, ts.start, ts.finish, ts.total_load,
                        table.concat(ts.event_cpus, ",")))
    local cpus = {}
    for cpu in pairs(ts.rqs) do cpus[#cpus + 1] = cpu end
    table.sort(cpus)
    for _, cpu in ipairs(cpus) do
      local rq = ts.rqs[cpu]
      print(string.format("  cpu %d: %s  %s", cpu, table.concat(rq.tasks, " "), table.concat(rq.event, " ")))
    end
  end
end
