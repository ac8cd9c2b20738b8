-- runqlat.lua: run queue latency, the time threads wait for a CPU once
-- runnable, as a histogram: bpftrace's runqlat.bt (and BCC's runqlat).
--
--   luaprof run runqlat -a -d 10                (the whole system, for ten seconds)
--   luaprof run runqlat --per=thread -- ./prog  (prog's threads, one histogram each)
--
-- From sched:sched_wakeup and sched_wakeup_new (a thread becomes
-- runnable) and sched:sched_switch (a thread preempted while runnable is
-- queued again; the thread switched in ends its wait), system-wide, the
-- run's own threads kept (luaprof.is_target).  A preempted thread counts:
-- the tracepoint's prev_state says so with its TASK_REPORT_MAX bit, which
-- bpftrace's tool does not read (it takes prev_state == TASK_RUNNING, 0,
-- which a preempted task no longer reports), so it leaves out every wait
-- after a preemption.  The idle task's switches are not waits.  The
-- kernel's switch records (on_switch) end the waits whose switch in
-- sched_switch left out (some kernels record none from a CPU's idle task).

local opt = luaprof.options{
  description = "run queue latency histogram: wake-up or preemption to running (bpftrace's runqlat)",
  help = [[At the end, the power-of-two histogram of the times threads waited
on a run queue (from their wake-up, or their preemption, to their switch
in), as bpftrace prints its map @usecs; --per=process or thread for one
histogram each, --comm for the threads of one command name only.]],
  { "unit", "string", "us", "the histogram's unit", choices = { "us", "ms" } },
  { "per", "string", "all", "one histogram in all, per process or per thread",
    choices = { "all", "process", "thread" } },
  { "comm", "string", nil, "only the threads of this command name" },
}
luaprof.setup{ events = { "sched:sched_wakeup", "sched:sched_wakeup_new", "sched:sched_switch" }, all_cpus = true }

local bpftools = require "bpftools"
local TASK_RUNNING, TASK_REPORT_MAX = luaprof.const.TASK_RUNNING, luaprof.const.TASK_REPORT_MAX
local div = opt.unit == "us" and 1000 or 1000000
local queued = {}                       -- tid -> { time, key } since it is runnable
local pid_of = {}                       -- tid -> its process, from the fork records
local hists = bpftools.hists()          -- key ("" for --per=all) -> luaprof.hist

function on_start()
  print("Tracing CPU scheduler...")
end

local function enqueue(tid, comm, t)
  if tid == 0 or not luaprof.is_target(tid) or (opt.comm and comm ~= opt.comm) then return end
  local key = ""
  if opt.per == "thread" then
    key = string.format("%s, %d", comm, tid)
  elseif opt.per == "process" then
    key = tostring(pid_of[tid] or tid)
  end
  queued[tid] = { t, key }
end

local function running(tid, t)
  local q = queued[tid]
  if not q then return end
  queued[tid] = nil
  hists[q[2]]:add((t - q[1]) // div)
end

function on_fork(t)
  pid_of[t.tid] = t.pid
end

function on_exit(t)
  pid_of[t.tid] = nil
end

on_event = {}

local function woken(s)
  local f = s.args
  enqueue(f.pid, f.comm, s.time)
end
on_event["sched:sched_wakeup"] = woken
on_event["sched:sched_wakeup_new"] = woken

on_event["sched:sched_switch"] = function(s)
  local f = s.args
  local st = f.prev_state
  if st == TASK_RUNNING or st & TASK_REPORT_MAX ~= 0 then enqueue(f.prev_pid, f.prev_comm, s.time) end
  running(f.next_pid, s.time)
end

function on_switch(t)
  if not t.out then running(t.tid, t.time) end
end

function on_end()
  print()
  bpftools.print_hists(hists, opt.unit == "us" and "usecs" or "msecs")
end
