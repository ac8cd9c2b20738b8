-- countsum.lua: counts only; per event, the sum of the intervals' raw counts
-- and the total at the end, and how many intervals there were.
luaprof.setup{ counting = true, interval = 100 }
local sums, intervals = {}, 0
function on_interval(info)
  intervals = intervals + 1
  for name, c in pairs(info.values) do sums[name] = (sums[name] or 0) + c.raw end
end
function on_sample() error("a counting run sampled") end
function on_end(info)
  for name, c in pairs(info.values) do
    print("count", name, sums[name] or 0, c.raw, c.value, c.enabled >= c.running and c.running > 0)
  end
  print("intervals", intervals)
end
