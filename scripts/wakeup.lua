-- wakeup.lua: who wakes whom, and how long a woken thread waits for a CPU:
-- from each sched:sched_wakeup to that thread's next sched:sched_switch in,
-- as a histogram per thread.
--
--   luaprof run wakeup -- ./prog           (or -p PID, or -a -d 5)
--
-- A wake-up is sampled in the waker (s.pid, s.tid, s.comm) and names the
-- woken thread in its fields (pid, comm); the woken thread's switch in
-- (next_pid) ends its wait.  The events are system-wide, so that wakers
-- and CPUs outside the run are seen; the pairs and threads shown are
-- those with a thread of the run's own on either side, the latencies
-- those of its own threads (luaprof.is_target).

local opt = luaprof.options{
  description = "who wakes whom, and the latency from wake-up to running per thread (histograms)",
  help = [[First the waker -> wakee pairs with their wake-up counts, then for
each woken thread the histogram of its wake-up latency (the time from
sched_wakeup to its sched_switch in), in microseconds, with its count,
average and maximum.]],
  { "limit", "integer", 10, "pairs and threads to print" },
}
luaprof.setup{ events = { "sched:sched_wakeup", "sched:sched_switch" }, system_wide = true }

local fmt = luaprof.fmt
local pairs_seen = luaprof.map()        -- { waker comm, waker tid, wakee comm, wakee tid } -> wake-ups
local woken = {}                        -- tid -> the time of its pending wake-up
local lat = {}                          -- tid -> { comm =, hist = luaprof.hist() of us }

on_event = {}

on_event["sched:sched_wakeup"] = function(s)
  local f = s.fields
  local tid = f.pid
  if not (luaprof.is_target(tid) or luaprof.is_target(s.pid)) then return end
  pairs_seen:add({ s.comm, s.tid, f.comm, tid })
  woken[tid] = s.time
end

on_event["sched:sched_switch"] = function(s)
  local f = s.fields
  local tid = f.next_pid
  local t0 = woken[tid]
  if not t0 then return end
  woken[tid] = nil
  if not luaprof.is_target(tid) then return end
  local l = lat[tid]
  if not l then
    l = { hist = luaprof.hist() }
    lat[tid] = l
  end
  l.comm = f.next_comm
  l.hist:add((s.time - t0) // 1000)
end

function on_end()
  local rows = {}
  for k, n in pairs_seen:sorted("value", opt.limit) do rows[#rows + 1] = { k[1], k[2], k[3], k[4], n } end
  print("# who wakes whom")
  fmt.print_table(rows, { headers = { "WAKER", "TID", "WAKEE", "TID", "WAKEUPS" } })
  local tids = {}
  for tid in pairs(lat) do tids[#tids + 1] = tid end
  table.sort(tids, function(a, b) return lat[a].hist:count() > lat[b].hist:count() end)
  for i = 1, math.min(opt.limit, #tids) do
    local l = lat[tids[i]]
    local h = l.hist
    print(string.format("\n# %s (tid %d): %d wake-ups, latency avg %.1f us, max %d us:", l.comm, tids[i],
                        h:count(), h:mean(), h:max()))
    h:print()
  end
end
