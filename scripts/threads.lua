-- threads.lua: samples and their share per thread and per process, every
-- interval (one second by default; -I MS for another) and for the run.
--
--   luaprof run threads -- ./prog          (or -p PID, or -a -d 10)
--   luaprof run threads -I 250 -i perf.data
--
-- Each table lists threads (or processes) busiest first with their share
-- of the interval's samples; a process's row sums its threads.

local opt = luaprof.options{
  description = "samples and share per thread and per process, per interval and in total",
  help = [[Every interval (-I MS, default 1000) prints the threads and the
processes that had samples in it, busiest first; at the end, the same for
the whole run.  --no-intervals prints only the totals.]],
  { "limit", "integer", 10, "rows per table", min = 0 },
  { "intervals", "boolean", true, "print a table every interval" },
  { "processes", "boolean", true, "print the per-process table too" },
}
luaprof.setup{ interval = 1000 }

local fmt = luaprof.fmt
local threads, procs = luaprof.map(), luaprof.map()     -- this interval's
local all_threads, all_procs = luaprof.map(), luaprof.map()
local comm_of = {}              -- tid or pid -> its latest command name
local first, last               -- the first and last sample's time

function on_sample(s)
  local tid, pid = s.tid, s.pid
  first, last = first or s.time, s.time
  comm_of[tid] = s.comm
  if pid == tid or not comm_of[pid] then comm_of[pid] = s.comm end
  threads:add(tid)
  procs:add(pid)
end

-- Moves m's counts into total and prints them, busiest first; ids are
-- tids or pids (title THREAD or PROCESS).
local function report(m, total_map, title, n)
  local rows = {}
  for id, c in m:sorted("value", opt.limit) do
    rows[#rows + 1] = { comm_of[id] or "?", id, c, fmt.pct(c, n) }
  end
  for id, c in pairs(m) do total_map:add(id, c) end
  fmt.print_table(rows, { headers = { "COMMAND", title, "SAMPLES", "SHARE" } })
end

local function print_tables(label, t, p, n)
  print(string.format("# %s: %d samples, %d threads, %d processes", label, n, #t, #p))
  report(t, all_threads, "TID", n)
  if opt.processes then report(p, all_procs, "PID", n) end
end

function on_interval(i)
  if opt.intervals and i.samples > 0 then
    print_tables(string.format("%.3f s", i.elapsed / 1e9), threads, procs, i.samples)
    print()
  else
    for id, c in pairs(threads) do all_threads:add(id, c) end
    for id, c in pairs(procs) do all_procs:add(id, c) end
  end
  threads:clear()
  procs:clear()
end

function on_end(info)
  on_interval({ samples = 0 })          -- what the last interval left
  local t, p = all_threads, all_procs
  all_threads, all_procs = luaprof.map(), luaprof.map()
  print_tables(string.format("total, %.3f s", first and (last - first) / 1e9 or 0), t, p, info.samples)
end
