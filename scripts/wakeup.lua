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
-- those of its own threads (luaprof.is_target).  The kernel's switch
-- records (on_switch) end the waits whose switch in sched_switch left
-- out (a kernel may record no switch from a CPU's idle task).

local opt = luaprof.options{
  description = "who wakes whom, and the latency from wake-up to running per thread (histograms)",
  help = [[First the waker -> wakee pairs with their wake-up counts, then for
each woken thread the histogram of its wake-up latency (the time from
sched_wakeup to its sched_switch in), in microseconds, with its count,
average and maximum.]],
  { "limit", "integer", 10, "pairs and threads to print", min = 0 },
}
luaprof.setup{ events = { "sched:sched_wakeup", "sched:sched_switch" }, all_cpus = true }

local fmt = luaprof.fmt
local pairs_seen = luaprof.map()        -- { waker comm, waker tid, wakee comm, wakee tid } -> wake-ups
local woken = {}                        -- tid -> the time of its pending wake-up
local woken_comm = {}                   -- tid -> its name in that wake-up
local lat = {}                          -- tid -> { comm =, hist = luaprof.hist() of us }

on_event = {}

on_event["sched:sched_wakeup"] = function(s)
  local f = s.args
  local tid = f.pid
  if not (luaprof.is_target(tid) or luaprof.is_target(s.pid)) then return end
  pairs_seen:add({ s.comm, s.tid, f.comm, tid })
  woken[tid], woken_comm[tid] = s.time, f.comm
end

-- tid came onto a CPU at time t: the end of its pending wake-up's wait
local function switched_in(tid, t)
  local t0 = woken[tid]
  if not t0 then return end
  woken[tid] = nil
  if not luaprof.is_target(tid) then return end
  local l = lat[tid]
  if not l then
    l = { hist = luaprof.hist() }
    lat[tid] = l
  end
  l.comm = woken_comm[tid]
  l.hist:add((t - t0) // 1000)
end

on_event["sched:sched_switch"] = function(s) switched_in(s.args.next_pid, s.time) end

function on_switch(t)
  if not t.out then switched_in(t.tid, t.time) end
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
