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
  assert(info.file == nil, "a replay's field is nil live")
  assert(info.freq == 4000 and info.count == nil, "the rate as opened: -F's default")
  local ok, err = pcall(function() return info.fil end)
  assert(not ok and err:find("api.lua:%d+: info.fil: no such field of on_start's info; fields are: " ..
    "arch, build_ids, cmdline, command, count, events, file, freq, hostname, nr_cpus, os_release, " ..
    "perf_version, pid, " ..
    "pids, system_wide$"), err)
end
function on_sample(s)
  n = n + 1
  assert(math.type(s.pid) == "integer" and math.type(s.cpu) == "integer")
  assert(math.type(s.period) == "integer" and s.period > 0)
  local ok0, err0 = pcall(function() return s.nonexistent end)
  assert(not ok0 and err0:find("api.lua:%d+: s.nonexistent: no such field of a sample; fields are: " ..
    "addr, args, callchain, comm, counts, cpu, dso, event, fields, folded, id, ip, kernel, mangled, " ..
    "offset, period, " ..
    "pid, raw, retval, srcline, stack, sym, symoff, tid, time$"), err0)
  assert(s.retval == nil, "a known field with no value is nil")
  local ok, err = pcall(function() s.pid = 1 end)
  assert(not ok and err:match("read%-only"))
end
function on_end(info)
  assert(started, "on_start did not run")
  assert(info.samples == n and info.lost == 0 and info.status == 0)
  assert(math.type(info.duration) == "integer" and info.duration > 50e6)
  local ok, err = pcall(function() return info.sample end)
  assert(not ok and err:find("info.sample: no such field of on_end's info; fields are: counts, " ..
    "duration, lost, samples, status, sys_time, user_time$"), err)
  print("api ok " .. n)
end
