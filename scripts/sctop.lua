-- sctop.lua: system call top: every interval (3 s by default, -I MS for
-- another), the calls made in it by call, most first; a port of perf's
-- sctop.py, printing what it prints (the screen cleared before each).
--
--   luaprof run sctop -a [--comm=NAME]          (Ctrl-C to stop)
--   luaprof run sctop -I 1000 -i perf.data      (perf record -e raw_syscalls:sys_enter)
--
-- Replaying, the intervals are the recording's own time, where sctop.py's
-- timer runs on the clock while perf script reads the file.

local perfpy = require "perfpy"
local opt = luaprof.options{
  description = "system call totals by call, every interval (perf's sctop.py)",
  { "comm", "string", nil, "only the calls of this command (the script's [comm]; -A NAME too)" },
}
luaprof.setup{ events = { "raw_syscalls:sys_enter" }, interval = 3000 }

local for_comm = opt.comm or arg[1]
local syscalls = perfpy.dict()          -- id -> count in this interval

on_event = { ["raw_syscalls:sys_enter"] = function(s)
  if for_comm and s.comm ~= for_comm then return end
  syscalls:add(s.args.id)
end }

function on_interval()
  print("\x1b[H\x1b[2J")            -- clear the screen, as sctop.py does
  perfpy.print_syscall_totals(syscalls, for_comm, "----------")
  syscalls:clear()
end
