-- Off-CPU time of the launched program from sched:sched_switch (system
-- wide, so that its switches back in are seen too): each switch out in
-- state S (sleeping, prev_state 1) until it is switched back in.  Some
-- kernels do not report every switch from the idle task (perf record
-- misses the same ones); a sleep then ends at the program's next switch
-- out, which follows its wake-up by one turn of its loop (microseconds).
local pid, out, off, sleeps, inferred = nil, nil, 0, 0, 0
function on_start(info) pid = info.pid end
on_event = {}
on_event["sched:sched_switch"] = function(s)
  local f = s.args
  if f.next_pid == pid and out then
    off = off + (s.time - out)
    out = nil
  end
  if f.prev_pid == pid then
    if out then
      off = off + (s.time - out)
      inferred = inferred + 1
    end
    out = f.prev_state == 1 and s.time or nil
    if out then sleeps = sleeps + 1 end
  end
end
function on_end()
  print("sleeps", sleeps)
  print("offcpu_us", off // 1000)
  print("ends_inferred", inferred)
end
