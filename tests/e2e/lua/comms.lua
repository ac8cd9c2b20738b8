-- Prints "pid comm" for every (pid, comm) pair seen, and the events seen.
local seen, events = {}, {}
function on_sample(s)
  seen[s.pid .. " " .. s.comm] = true
  events[s.event] = (events[s.event] or 0) + 1
end
function on_end(info)
  for k in pairs(seen) do print("comm " .. k) end
  for e, n in pairs(events) do print("event " .. e .. " " .. n) end
  print("samples " .. info.samples .. " lost " .. info.lost)
  if info.status then print("status " .. info.status) end
end
