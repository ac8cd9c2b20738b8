-- groups.lua: samples of a group {cpu-clock,page-faults}: per event; how many
-- lacked either count in s.values or saw a count go down (each sample reads
-- the counters of its CPU and thread: they only grow); the page faults of
-- the last sample of each (cpu, thread) added up, and the run's total.
local ev, bad, last = {}, 0, {}
function on_sample(s)
  ev[s.event] = (ev[s.event] or 0) + 1
  local c = s.values
  if not c or not c["cpu-clock"] or not c["page-faults"] then bad = bad + 1 return end
  local key = s.cpu .. ":" .. s.tid
  local l = last[key]
  if l and (c["cpu-clock"] < l[1] or c["page-faults"] < l[2]) then bad = bad + 1 end
  last[key] = { c["cpu-clock"], c["page-faults"] }
end
function on_end(info)
  local seen = 0
  for _, l in pairs(last) do seen = seen + l[2] end
  for e, n in pairs(ev) do print("event", e, n) end
  print("bad", bad)
  print("faults", seen, info.values["page-faults"].value)
end
