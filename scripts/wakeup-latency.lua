-- wakeup-latency.lua: system-wide wake-up latency, smallest, average and
-- largest; a port of perf's wakeup-latency.pl, printing what it prints.
--
--   luaprof run wakeup-latency -a -d 5
--   luaprof run wakeup-latency -i perf.data   (perf record -a -e sched:sched_switch -e sched:sched_wakeup)
--
-- As the original: a wake-up is remembered per target CPU, and the next
-- switch on that CPU ends it, whichever task it switches to.  (For the
-- latency of each woken thread, see the wakeup script.)  Other
-- tracepoints in a recording are counted as unhandled.

luaprof.options{ description = "min/avg/max wake-up latency, per target CPU (perf's wakeup-latency.pl)" }
luaprof.setup{ events = { "sched:sched_switch", "sched:sched_wakeup" } }

local last_wakeup = {}                  -- cpu -> the time of its last wake-up, or 0
local min_latency, max_latency = 1000000000, 0
local total_latency, total_wakeups = 0, 0
local unhandled = require("perfpy").dict() -- event -> count

on_event = {}

on_event["sched:sched_switch"] = function(s)
  local wakeup_ts = last_wakeup[s.cpu]
  if wakeup_ts and wakeup_ts ~= 0 then
    local latency = s.time - wakeup_ts
    max_latency = math.max(max_latency, latency)
    min_latency = math.min(min_latency, latency)
    total_latency = total_latency + latency
    total_wakeups = total_wakeups + 1
  end
  last_wakeup[s.cpu] = 0
end

on_event["sched:sched_wakeup"] = function(s)
  last_wakeup[s.args.target_cpu] = s.time
end

function on_sample(s)       -- other tracepoints, named as Perl's handlers are: "sched::sched_waking"
  if s.raw then unhandled:add((s.event:gsub(":", "::", 1))) end  -- a tracepoint
end

function on_end()
  print("wakeup_latency stats:\n")
  print("total_wakeups: " .. total_wakeups)
  if total_wakeups > 0 then
    print(string.format("avg_wakeup_latency (ns): %d", total_latency // total_wakeups))
  else
    print("avg_wakeup_latency (ns): N/A")
  end
  print(string.format("min_wakeup_latency (ns): %d", min_latency))
  print(string.format("max_wakeup_latency (ns): %d", max_latency))
  if #unhandled.order == 0 then return end
  print("\nunhandled events:\n")
  print(string.format("%-40s  %10s", "event", "count"))
  print(string.format("%-40s  %10s", "----------------------------------------", "-----------"))
  for ev in unhandled:keys() do print(string.format("%-40s  %10d", ev, unhandled:get(ev))) end
end
