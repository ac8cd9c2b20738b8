-- interval.lua: per-interval samples and the busiest function, for the
-- live-versus-replay comparison of interval.sh.
luaprof.setup{ interval = 50 }
local funcs = luaprof.map()
function on_sample(s) funcs:add(s.sym or "?") end
function on_interval(i)
  local top = funcs:top(1)[1]
  print(string.format("%d ms +%d ms %d samples%s  %s", i.elapsed // 1000000, i.delta // 1000000,
                      i.samples, i.last and " (last)" or "", top and top[1] or "-"))
  funcs:clear()
end
function on_end(i) print("total", i.samples) end
