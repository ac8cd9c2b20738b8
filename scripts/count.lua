-- count.lua: samples per command and thread, and totals.
--
--   luaprof run scripts/count.lua -- ./my-program args
--
-- Prints one row per thread (command name, pid, tid, samples, share of the
-- total), busiest first, then the totals and what the kernel lost.

luaprof.options{ description = "samples per command and thread, busiest first, and totals" }

local per_thread = {}   -- tid -> { comm=, pid=, tid=, n= }
local per_event = {}    -- event name -> samples

function on_sample(s)
  local t = per_thread[s.tid]
  if not t then
    t = { comm = s.comm, pid = s.pid, tid = s.tid, n = 0 }
    per_thread[s.tid] = t
  end
  t.n = t.n + 1
  t.comm = s.comm       -- the latest name (a thread may exec)
  local ev = s.event
  per_event[ev] = (per_event[ev] or 0) + 1
end

function on_end(info)
  local rows = {}
  for _, t in pairs(per_thread) do rows[#rows + 1] = t end
  table.sort(rows, function(a, b)
    if a.n ~= b.n then return a.n > b.n end
    return a.tid < b.tid
  end)
  local total = info.samples
  print(string.format("%-16s %8s %8s %10s %8s", "COMMAND", "PID", "TID", "SAMPLES", "SHARE"))
  for _, t in ipairs(rows) do
    print(string.format("%-16s %8d %8d %10d %7.2f%%", t.comm, t.pid, t.tid, t.n,
                        total > 0 and 100 * t.n / total or 0))
  end
  local events = {}
  for ev, n in pairs(per_event) do events[#events + 1] = string.format("%s %d", ev, n) end
  table.sort(events)
  print(string.format("total: %d samples (%s), %d lost, %.3f s", total,
                      #events > 0 and table.concat(events, ", ") or "none",
                      info.lost, info.duration / 1e9))
end
