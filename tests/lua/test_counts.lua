-- luaprof.counts: event counts printed as perf stat prints them.
local T = require "harness"
local counts = luaprof.counts

local function c(value, enabled, running, supported)
  return { value = value, raw = value, enabled = enabled or 100, running = running or enabled or 100,
           supported = supported ~= false }
end
-- 1.5 ms of task time in a 3 ms run
local all = {
  ["task-clock"] = c(1500000), cycles = c(2000000), instructions = c(3000000),
  branches = c(1500), ["branch-misses"] = c(30, 100, 50), ["cache-misses"] = c(0, 0, 0, false),
  ["cache-references"] = c(7, 100, 0),
}
local function line(name, prefix) return counts.line(name, all[name], all, 3000000, prefix) end

T.case("counts.line: clocks in msec, CPUs utilized", function()
  T.eq(line("task-clock"), "              1.50 msec task-clock                       #    0.500 CPUs utilized")
end)

T.case("counts.line: GHz, insn per cycle, rates, miss ratios", function()
  T.eq(line("cycles"), "           2000000      cycles                           #    1.333 GHz")
  T.eq(line("instructions"), "           3000000      instructions                     #     1.50  insn per cycle")
  T.eq(line("branches"), "              1500      branches                         #    1.000 M/sec")
end)

T.case("counts.line: a multiplexed event's share of the time", function()
  T.eq(line("branch-misses"),
       "                30      branch-misses                    #     2.00% of all branches  (50.00%)")
end)

T.case("counts.line: not supported, not counted", function()
  T.eq(line("cache-misses"), "   <not supported>      cache-misses")
  T.eq(line("cache-references"), "     <not counted>      cache-references")
  T.eq(counts.line("absent", nil, all, 1), "   <not supported>      absent")
end)

T.case("counts.ratio: nil without what it needs", function()
  T.eq(counts.ratio("instructions", all.instructions, { instructions = all.instructions }, 0), nil)
  T.eq(counts.ratio("task-clock", all["task-clock"], all, 0), nil)
end)

T.case("counts.names: repeats dropped, order kept", function()
  T.eq(counts.names({ "b", "a", "b", "c", "a" }), { "b", "a", "c" })
end)

T.case("counts.interval: the time since the start before each line", function()
  T.eq(counts.interval({ elapsed = 1250000000, delta = 3000000, counts = all }, { "cycles" }),
       "     1.250000000            2000000      cycles                           #    1.333 GHz")
end)

T.case("counts.report: perf stat's whole report", function()
  local info = { counts = all, duration = 3000000, user_time = 1000000, sys_time = 500000 }
  T.eq(counts.report(info, { "task-clock", "cycles" }, "spin 100"), table.concat({
    "",
    " Performance counter stats for 'spin 100':",
    "",
    "              1.50 msec task-clock                       #    0.500 CPUs utilized",
    "           2000000      cycles                           #    1.333 GHz",
    "",
    "       0.003000000 seconds time elapsed",
    "",
    "       0.001000000 seconds user",
    "       0.000500000 seconds sys",
    "",
  }, "\n"))
  T.eq(counts.HEADER, "#           time             counts unit events")
end)

T.done()
