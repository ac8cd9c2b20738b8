-- Checks for the two-thread workload: samples from both workers, distinct
-- tids, time never decreasing, and worker-2 doing twice worker-1's work.
local by_comm, tids, last_time, backwards = {}, {}, 0, 0
function on_sample(s)
  by_comm[s.comm] = (by_comm[s.comm] or 0) + 1
  tids[s.tid] = s.comm
  if s.time < last_time then backwards = backwards + 1 end
  last_time = s.time
  assert(math.type(s.time) == "integer" and math.type(s.ip) == "integer")
end
function on_end(info)
  local w1, w2 = by_comm["worker-1"] or 0, by_comm["worker-2"] or 0
  local tw1, tw2
  for tid, comm in pairs(tids) do
    if comm == "worker-1" then tw1 = tid elseif comm == "worker-2" then tw2 = tid end
  end
  print(string.format("worker-1 %d worker-2 %d backwards %d samples %d", w1, w2, backwards, info.samples))
  assert(tw1 and tw2 and tw1 ~= tw2, "both workers need samples under distinct tids")
  assert(backwards == 0, "s.time went backwards " .. backwards .. " times")
  local share = w2 / (w1 + w2)
  -- expected 2/3; tolerance +-0.07 for sampling noise and scheduling
  assert(math.abs(share - 2 / 3) < 0.07, string.format("worker-2 share %.3f, expected 0.667 +- 0.07", share))
  assert(w1 + w2 > 1000, "too few samples: " .. (w1 + w2))
end
