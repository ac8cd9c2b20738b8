-- luaprof.stat: event counts printed as perf stat prints them.
local T = require "harness"
local stat = luaprof.stat

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
local function line(name, prefix) return stat.line(name, all[name], all, 3000000, prefix) end

T.case("stat.line: clocks in msec, CPUs utilized", function()
  T.eq(line("task-clock"), "              1.50 msec task-clock                       #    0.500 CPUs utilized")
end)

T.case("stat.line: GHz, insn per cycle, rates, miss ratios", function()
  T.eq(line("cycles"), "           2000000      cycles                           #    1.333 GHz")
  T.eq(line("instructions"), "           3000000      instructions                     #     1.50  insn per cycle")
  T.eq(line("branches"), "              1500      branches                         #    1.000 M/sec")
end)

T.case("stat.line: a multiplexed event's share of the time", function()
  T.eq(line("branch-misses"),
       "                30      branch-misses                    #     2.00% of all branches  (50.00%)")
end)

T.case("stat.line: not supported, not counted", function()
  T.eq(line("cache-misses"), "   <not supported>      cache-misses")
  T.eq(line("cache-references"), "     <not counted>      cache-references")
  T.eq(stat.line("absent", nil, all, 1), "   <not supported>      absent")
end)

T.case("stat.ratio: nil without what it needs", function()
  T.eq(stat.ratio("instructions", all.instructions, { instructions = all.instructions }, 0), nil)
  T.eq(stat.ratio("task-clock", all["task-clock"], all, 0), nil)
end)

T.case("stat.names: repeats dropped, order kept", function()
  T.eq(stat.names({ "b", "a", "b", "c", "a" }), { "b", "a", "c" })
end)

T.case("stat.interval: the time since the start before each line", function()
  T.eq(stat.interval({ elapsed = 1250000000, delta = 3000000, values = all }, { "cycles" }),
       "     1.250000000            2000000      cycles                           #    1.333 GHz")
end)

T.case("stat.report: perf stat's whole report", function()
  local info = { values = all, duration = 3000000, user_time = 1000000, sys_time = 500000 }
  T.eq(stat.report(info, { "task-clock", "cycles" }, "spin 100"), table.concat({
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
  T.eq(stat.HEADER, "#           time             counts unit events")
end)

T.done()
