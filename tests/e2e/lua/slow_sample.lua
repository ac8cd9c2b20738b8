-- A slow script: spends arg[1] microseconds (default 50) of CPU on each
-- sample, and checks that the samples come in time order and each once
-- (by CPU and time).  At the end: "delivered N disorder D dup U lost L",
-- then "backlog SAMPLES SECONDS" (info.backlog: how far it fell behind).
local spin = (tonumber(arg[1]) or 50) / 1e6
local n, disorder, dup, last, seen = 0, 0, 0, 0, {}
function on_sample(s)
  n = n + 1
  if s.time < last then disorder = disorder + 1 end
  last = s.time
  local key = s.cpu .. ":" .. s.time
  if seen[key] then dup = dup + 1 end
  seen[key] = true
  local t = os.clock() + spin
  while os.clock() < t do end
end
function on_end(info)
  print(string.format("delivered %d disorder %d dup %d lost %d", n, disorder, dup, info.lost))
  print(string.format("backlog %d %.2f", info.backlog.samples, info.backlog.seconds))
end
