-- killsnoop.lua: kill() system calls, with their signal, target and
-- result, one line each: bpftrace's killsnoop.bt (and BCC's killsnoop).
--
--   luaprof run killsnoop -a                    (every process, until Ctrl-C)
--   luaprof run killsnoop -- ./prog             (prog and its children)
--
-- From syscalls:sys_enter_kill (the target and signal) and sys_exit_kill
-- (the result), paired per thread.  bpftrace's tool keeps a call only when
-- its target pid is not 0, so it leaves out kill(0, SIG), a signal to the
-- caller's own process group; this one prints it.

local opt = luaprof.options{
  description = "kill() calls: signal, target pid and result, one line each (bpftrace's killsnoop)",
  help = [[One line per kill() as it returns: the time, the caller's pid and
command, the signal, the target pid (0: the caller's process group, -N:
the process group N, -1: every process it may signal) and the result (0,
or minus the error: -3 is ESRCH, no such process).]],
  { "failed", "boolean", false, "only the calls that failed" },
}
luaprof.setup{ events = { "syscalls:sys_enter_kill", "syscalls:sys_exit_kill" } }

local bpftools = require "bpftools"
bpftools.snoop()
local calls = {}                        -- tid -> { target, signal } of the call it is in

function on_start()
  print(string.format("%-9s %-6s %-16s %-4s %-6s %s", "TIME", "PID", "COMM", "SIG", "TPID", "RESULT"))
end

on_event = {}

on_event["syscalls:sys_enter_kill"] = function(s)
  calls[s.tid] = { bpftools.int(s.args.pid), bpftools.int(s.args.sig) }
end

on_event["syscalls:sys_exit_kill"] = function(s)
  local c, ret = calls[s.tid], s.args.ret
  calls[s.tid] = nil
  if not c or (opt.failed and ret >= 0) then return end
  print(string.format("%-9s %-6d %-16s %-4d %-6d %d", bpftools.time(), s.pid, s.comm, c[2], c[1], ret))
end
