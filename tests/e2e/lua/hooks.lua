-- on_event routing and the process hooks, with no flags: the script
-- declares its events.  Prints one line per hook call and per exec sample,
-- what reached on_sample, and whether every callback came in time order.
luaprof.setup{ events = { "cpu-clock", "sched:sched_process_exec" }, freq = 999 }
local last, disorder, routed = 0, 0, {}
local function at(t)
  if t > 0 then
    if t < last then disorder = disorder + 1 end
    last = t
  end
end
on_event = {}
on_event["sched:sched_process_exec"] = function(s)
  at(s.time)
  print("exec", s.args.filename, s.pid, s.event)
end
function on_sample(s)
  at(s.time)
  routed[s.event] = (routed[s.event] or 0) + 1
end
function on_comm(t)
  at(t.time)
  print("comm", t.comm, t.pid, t.tid, tostring(t.exec))
end
function on_fork(t)
  at(t.time)
  print("fork", t.pid, t.ppid, t.tid, t.ptid)
end
function on_exit(t)
  at(t.time)
  print("exit", t.pid, t.ppid, t.tid, t.ptid)
end
function on_start(info) print("start", info.pid) end
function on_end()
  for k, n in pairs(routed) do print("on_sample", k, n > 0) end
  print("disorder", disorder)
end
