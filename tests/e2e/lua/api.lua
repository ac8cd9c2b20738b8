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
  assert(info.file == nil and info.build_ids == nil, "a replay's field is nil live")
  assert(info.freq == 4000 and info.period == nil, "the rate as opened: -F's default")
  -- one shape live and replaying: what a recording's header says, live too
  assert(info.all_cpus == false)
  assert(type(info.hostname) == "string" and info.hostname ~= "")
  assert(type(info.os_release) == "string" and type(info.arch) == "string")
  assert(math.type(info.nr_cpus) == "integer" and info.nr_cpus > 0)
  assert(info.perf_version == "luaprof " .. luaprof.version)
  assert(info.cmdline[1]:match("luaprof[^/]*$") and info.cmdline[2] == "run", table.concat(info.cmdline, " "))
  local ok, err = pcall(function() return info.fil end)
  assert(not ok and err:find("api.lua:%d+: info.fil: no such field of on_start's info; fields are: " ..
    "all_cpus, arch, build_ids, cmdline, command, events, file, freq, hostname, nr_cpus, os_release, perf_version, " ..
    "period, pid, pids$"), err)
end
function on_sample(s)
  n = n + 1
  assert(math.type(s.pid) == "integer" and math.type(s.cpu) == "integer")
  assert(math.type(s.period) == "integer" and s.period > 0)
  local ok0, err0 = pcall(function() return s.nonexistent end)
  assert(not ok0 and err0:find("api.lua:%d+: s.nonexistent: no such field of a sample; fields are: " ..
    "addr, args, cgroup, cgroup_path, comm, cpu, dso, event, file, folded, gid, has_callchain, id, ip, " ..
    "kernel, kstack, line, mangled, offset, period, " ..
    "pid, process_comm, raw, retval, stack, str, sym, symoff, tid, time, uid, ustack, values$"), err0)
  assert(s.retval == nil, "a known field with no value is nil")
  local ok, err = pcall(function() s.pid = 1 end)
  assert(not ok and err:match("read%-only"))
end
function on_end(info)
  assert(started, "on_start did not run")
  assert(info.samples == n and info.lost == 0 and info.status == 0)
  assert(math.type(info.duration) == "integer" and info.duration > 50e6)
  local ok, err = pcall(function() return info.sample end)
  assert(not ok and err:find("info.sample: no such field of on_end's info; fields are: " ..
    "backlog, duration, error, lost, samples, status, strings, sys_time, user_time, values$"), err)
  print("api ok " .. n)
end
