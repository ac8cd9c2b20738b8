-- execsnoop.lua: programs started with execve() and execveat(), with
-- their arguments, one line each: bpftrace's execsnoop.bt (and BCC's).
--
--   luaprof run execsnoop -a                    (every process, until Ctrl-C)
--   luaprof run execsnoop -- make               (what make runs)
--
-- From syscalls:sys_enter_execve and sys_enter_execveat (the time the
-- call entered) and their sys_exit_* (the arguments, args.argv, and
-- whether it failed), paired per thread; one line as the call returns: a
-- failed exec is printed too, as by bpftrace, which prints at the entry.
-- The arguments are the ones the call was given, kept at the event
-- (strings): copied by the kernel at libc's execve (the first 16), else
-- from the new program's stack or its /proc/PID/cmdline, however soon the
-- process exits.  bpftrace reads them in its probe, where it cannot fault
-- in a page the process has not touched since it forked: it then prints
-- no line, or no arguments.  (A run of a command also prints the
-- command's own exec, whose entry came before luaprof's events started.)

local opt = luaprof.options{
  description = "programs started (execve, execveat) with their arguments (bpftrace's execsnoop)",
  help = [[One line per exec as it returns, failed ones too: milliseconds since
the first event at its start, the pid, and the arguments (the first is
the program's name as given).]],
  { "max-args", "integer", 64, "the arguments printed at most", min = 1 },
}
luaprof.setup{
  events = { "syscalls:sys_enter_execve", "syscalls:sys_enter_execveat", "syscalls:sys_exit_execve",
             "syscalls:sys_exit_execveat" },
  strings = { ["syscalls:sys_exit_execve*"] = true },
}

local bpftools = require "bpftools"
bpftools.snoop()
local entered = {}                      -- tid -> TIME(ms) of the exec it is in

-- The arguments the call was given (args.argv at its return, kept at the
-- event), at most --max-args of them, joined; "" when none could be had.
local function argv_of(s)
  local argv = s.args.argv
  return argv and table.concat(argv, " ", 1, math.min(#argv, opt["max-args"])) or ""
end

function on_start()
  print(string.format("%-10s %-5s %s", "TIME(ms)", "PID", "ARGS"))
end

local function enter(s)
  entered[s.tid] = bpftools.elapsed_ms(s)
end

local function leave(s)
  local ms = entered[s.tid] or bpftools.elapsed_ms(s)
  entered[s.tid] = nil
  print(string.format("%-10d %-5d %s", ms, s.pid, argv_of(s)))
end

on_event = {
  ["syscalls:sys_enter_execve"] = enter,
  ["syscalls:sys_enter_execveat"] = enter,
  ["syscalls:sys_exit_execve"] = leave,
  ["syscalls:sys_exit_execveat"] = leave,
}
