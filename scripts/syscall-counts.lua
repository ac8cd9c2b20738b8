-- syscall-counts.lua: system-wide system call totals by call, most first;
-- a port of perf's syscall-counts.py, printing what it prints.
--
--   luaprof run syscall-counts -a -d 5 [--comm=NAME]
--   luaprof run syscall-counts -i perf.data     (perf record -e raw_syscalls:sys_enter)

local perfpy = require "perfpy"
local opt = luaprof.options{
  description = "system call totals by call (perf's syscall-counts.py)",
  { "comm", "string", nil, "only the calls of this command (the script's [comm]; -A NAME too)" },
}
luaprof.setup{ events = { "raw_syscalls:sys_enter" } }

local for_comm = opt.comm or arg[1]
local syscalls = perfpy.dict()          -- id -> count

function on_start()
  print("Press control+C to stop and show the summary")
end

on_event = { ["raw_syscalls:sys_enter"] = function(s)
  if for_comm and s.comm ~= for_comm then return end
  syscalls:add(s.args.id)
end }

function on_end()
  perfpy.print_syscall_totals(syscalls, for_comm, "-----------")
end
