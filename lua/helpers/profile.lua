-- profile, a helper of the shipped scripts (require "profile"; no public
-- module): what the profile-writing scripts (folded, flamegraph,
-- pprof, speedscope) share: their --per and --offcpu options, naming the
-- root of a stack by process or thread, and off-CPU waits as stacks.
--
--   local opt = luaprof.options{ description = ..., profile.PER, profile.offcpu_option("us"), ... }
--   profile.setup(opt)                  -- -g; with --offcpu, sched_switch too
--   profile.folded(s, opt.per)          -- s.folded with its root named per --per
--   on_event, on_switch = profile.offcpu_events(opt, function(o, ns, stack) ... end [, "stack"])
--
-- offcpu_events (nil, nil without --offcpu) hands each wait of the run's threads
-- to the function: o as sched.offcpu gives it (tid, pid, comm,
-- state...), its length in ns, and the stack where the thread blocked: the
-- folded line (root named per --per), or with "stack" the frames (s.stack).
-- Its second value, as on_switch, ends the waits whose switch back in
-- sched_switch left out at the kernel's switch record (sched.offcpu).

local sched = require "sched"

local M = {}

M.PER = { "per", "string", "comm", "the root of each stack: the command (comm), "
          .. "comm-PID (process) or comm-PID/TID (thread)", choices = { "comm", "process", "thread" } }
-- The --offcpu option, its weight in unit (each script's own: folded
-- stacks count microseconds, speedscope nanoseconds, ...).
function M.offcpu_option(unit)
  return { "offcpu", "boolean", false, "where threads waited instead of where they ran: "
           .. "off-CPU time from sched_switch, in " .. unit .. " (system-wide events; the run's threads)" }
end

function M.setup(opt)
  if opt.offcpu then
    luaprof.setup{ events = { "sched:sched_switch" }, call_graph = true, all_cpus = true }
  else
    luaprof.setup{ call_graph = true }
  end
end

-- The root frame for --per: comm, comm-PID or comm-PID/TID, as
-- FlameGraph's stackcollapse-perf.pl --pid and --tid name them.
function M.root(per, comm, pid, tid)
  comm = (comm or "[unknown]"):gsub("[; ]", "_")
  if per == "process" then return string.format("%s-%d", comm, pid) end
  if per == "thread" then return string.format("%s-%d/%d", comm, pid, tid) end
  return comm
end

local function rename(folded, root)
  return root .. folded:sub((folded:find(";", 1, true) or #folded + 1))
end

function M.folded(s, per)
  if per == "comm" or not per then return s.folded end
  return rename(s.folded, M.root(per, s.comm, s.pid, s.tid))
end

function M.offcpu_events(opt, fn, keep)
  if not opt.offcpu then return nil end
  local off = sched.offcpu{
    keep = keep == "stack" and function(s) return s.stack end or function(s) return s.folded end,
    on_back = function(o, t)
      local data = o.data
      if keep ~= "stack" and opt.per ~= "comm" then data = rename(data, M.root(opt.per, o.comm, o.pid, o.tid)) end
      fn(o, t - o.time, data)
    end,
  }
  return { ["sched:sched_switch"] = function(s) off:switch(s) end },
         function(t) off:switch_record(t) end
end

return M
