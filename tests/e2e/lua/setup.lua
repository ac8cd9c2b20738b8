-- luaprof.setup declares the run's events and sampling; prints the samples
-- per event and whether every sample had a call stack of more than one frame.
luaprof.setup{ events = { "page-faults" }, period = 1, call_graph = true }
local n, deep = {}, 0
function on_sample(s)
  n[s.event] = (n[s.event] or 0) + 1
  if #s.stack > 1 then deep = deep + 1 end
end
function on_end(info)
  for ev, c in pairs(n) do print("event", ev, c) end
  print("deep", deep, info.samples)
end
