-- stat.lua: count events as perf stat does, and print what it prints.
--
--   luaprof stat -- ./my-program args          (luaprof run stat -- ... is the same)
--   luaprof stat -e task-clock,page-faults -I 100 -- ./my-program
--   luaprof stat -a -d 5                       (the whole system, five seconds)
--
-- Counts without sampling (luaprof.setup{ counting = true }): each event's
-- value with its unit, the ratios perf derives (CPUs utilized, rates per
-- second of task time, instructions per cycle, miss ratios), the elapsed
-- time and the command's user and system time; -I MS prints each
-- interval's counts as perf stat -I does.  Like perf stat it writes to
-- stderr, so that the command's own output stays apart (--out=FILE writes
-- a file).  Events the machine cannot count are <not supported>; a
-- multiplexed event's value is scaled, with the share of the time it ran.
-- The formatting is the library's luaprof.stat.

local stat = luaprof.stat

local opt = luaprof.options{
  description = "count events like perf stat: values, units, ratios, elapsed time",
  help = "Counts the events of -e (default: perf stat's) without sampling them.",
  { "out", "string", "", "write the report to this file instead of stderr" },
}

luaprof.setup{
  events = { "task-clock", "context-switches", "cpu-migrations", "page-faults",
             "cycles", "instructions", "branches", "branch-misses" },
  counting = true,
}

local out = io.stderr
local target = "system wide"
local names = {}
local header = false

function on_start(info)
  if opt.out ~= "" then out = assert(io.open(opt.out, "w")) end
  names = stat.names(info.events)
  if info.command then
    target = table.concat(info.command, " ")
  elseif info.pids then
    target = "process id '" .. table.concat(info.pids, ",") .. "'"
  end
end

function on_interval(info)
  if not header then out:write(stat.HEADER, "\n") header = true end
  out:write(stat.interval(info, names), "\n")
end

function on_end(info)
  out:write(stat.report(info, names, target), "\n")
  if out ~= io.stderr then out:close() end
end
