-- execsnoop.lua: programs started with execve() and execveat(), with
-- their arguments, one line each: bpftrace's execsnoop.bt (and BCC's).
--
--   luaprof run execsnoop -a                    (every process, until Ctrl-C)
--   luaprof run execsnoop -- make               (what make runs)
--
-- From syscalls:sys_enter_execve and sys_enter_execveat, as the call
-- enters: a call that then fails is printed too, as by bpftrace.  The
-- arguments are in the caller's memory, and an exec that succeeds
-- replaces that memory: they are read when the sample is handled
-- (argv_of below), a moment later, from the argument array if it is
-- still there (the call has not finished), else from the new program's
-- /proc/PID/cmdline (the same arguments, unless the program changed
-- them), else not at all (the process has exited: the line has no
-- arguments).  A failed exec's array is often gone too (on the stack of
-- a function that returned), leaving no arguments.  bpftrace reads them
-- in the probe itself, where it cannot fault in a page the process has
-- not touched since it forked (it then prints no line, or no arguments).
-- The capture of the arguments at the exec will give every one.

local opt = luaprof.options{
  description = "programs started (execve, execveat) with their arguments (bpftrace's execsnoop)",
  help = [[One line per exec as it starts: milliseconds since the first event,
the pid, and the arguments (the first is the program's name as given).]],
  { "max-args", "integer", 64, "the arguments printed at most", min = 1 },
}
luaprof.setup{ events = { "syscalls:sys_enter_execve", "syscalls:sys_enter_execveat" } }

local bpftools = require "bpftools"
bpftools.snoop()

-- The arguments the call was given, as a list: from the caller's memory
-- now, or from the new program's command line; nil when neither can be
-- read (an array of NULL first, likely overwritten, is read as empty).
local function argv_of(s)
  local args, at = {}, s.args.argv
  for i = 0, opt["max-args"] - 1 do
    local p = bpftools.read_u64(s.pid, at + 8 * i)
    if not p then break end
    if p == 0 then return args end
    args[#args + 1] = luaprof.read_string(s.pid, p)
    if not args[#args] then break end
  end
  if #args == opt["max-args"] then return args end
  local cmdline = bpftools.proc(s.pid, "cmdline")
  if not cmdline or cmdline == "" then return nil end
  args = {}
  for a in cmdline:gmatch("([^%z]*)%z") do
    if #args < opt["max-args"] then args[#args + 1] = a end
  end
  return args
end

function on_start()
  print(string.format("%-10s %-5s %s", "TIME(ms)", "PID", "ARGS"))
end

function on_sample(s)
  local argv = argv_of(s)
  print(string.format("%-10d %-5d %s", bpftools.elapsed_ms(s), s.pid, argv and table.concat(argv, " ") or ""))
end
