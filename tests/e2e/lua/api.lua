-- The module: a global, and what require returns; info fields and types.
local lp = require "luaprof"
assert(lp == luaprof, "require 'luaprof' is not the global luaprof")
assert(type(luaprof.version) == "string" and luaprof.version:match("^%d+%.%d+%.%d+"))
assert(type(luaprof.exit) == "function")
local started, n = false, 0
function on_start(info)
  started = true
  assert(math.type(info.pid) == "integer" and info.pid > 0)
  assert(info.command[1]:match("spin$") and info.command[2] == "100")
  assert(info.events[1] == "cpu-clock" and #info.events == 1)
end
function on_sample(s)
  n = n + 1
  assert(math.type(s.pid) == "integer" and math.type(s.cpu) == "integer")
  assert(math.type(s.period) == "integer" and s.period > 0)
  assert(s.nonexistent == nil)
  local ok, err = pcall(function() s.pid = 1 end)
  assert(not ok and err:match("read%-only"))
end
function on_end(info)
  assert(started, "on_start did not run")
  assert(info.samples == n and info.lost == 0 and info.status == 0)
  assert(math.type(info.duration) == "integer" and info.duration > 50e6)
  print("api ok " .. n)
end
