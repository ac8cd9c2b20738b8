-- opensnoop.lua: open() and openat() calls, with their result and path,
-- one line each: bpftrace's opensnoop.bt (and BCC's opensnoop).
--
--   luaprof run opensnoop -a                    (every process, until Ctrl-C)
--   luaprof run opensnoop --failed -- ./prog    (prog's opens that failed)
--
-- From syscalls:sys_enter_open and sys_enter_openat (the path) and their
-- sys_exit_* (the result), paired per thread.  The path is kept as the
-- call saw it (strings: copied by the kernel at libc's open64 or
-- openat64, else from the stack copy, the file of a literal or the
-- process as the sample is drained), however soon the process exits; a
-- path longer than bpftrace's 63 characters is printed whole.

local opt = luaprof.options{
  description = "open and openat calls: pid, command, fd, error, path (bpftrace's opensnoop)",
  help = [[One line per open or openat as it returns: the caller's pid and
command, the file descriptor (-1 on failure), the error number (0 on
success; 2 is ENOENT) and the path as given (relative to the caller's
directory, or to the directory fd of openat, when not absolute).]],
  { "failed", "boolean", false, "only the calls that failed" },
  { "comm", "string", nil, "only the calls of this command name" },
}
luaprof.setup{
  events = { "syscalls:sys_enter_open", "syscalls:sys_enter_openat", "syscalls:sys_exit_open",
             "syscalls:sys_exit_openat" },
  strings = { ["syscalls:sys_enter_open"] = { "filename" }, ["syscalls:sys_enter_openat"] = { "filename" } },
}

local bpftools = require "bpftools"
bpftools.snoop()
local paths = {}                        -- tid -> the path of the call it is in ("" unread)

-- The path the call was given, as the call saw it; nil when it could not
-- be had (counted, and said at the end).
local function path_of(s)
  return (s:str(s.args.filename))
end

function on_start()
  print(string.format("%-6s %-16s %4s %3s %s", "PID", "COMM", "FD", "ERR", "PATH"))
end

local function enter(s)
  if opt.comm and s.comm ~= opt.comm then return end
  paths[s.tid] = path_of(s) or ""
end

local function leave(s)
  local path = paths[s.tid]
  if not path then return end
  paths[s.tid] = nil
  local ret = s.args.ret
  if opt.failed and ret >= 0 then return end
  print(string.format("%-6d %-16s %4d %3d %s", s.pid, s.comm, ret >= 0 and ret or -1, ret >= 0 and 0 or -ret, path))
end

on_event = {
  ["syscalls:sys_enter_open"] = enter,
  ["syscalls:sys_enter_openat"] = enter,
  ["syscalls:sys_exit_open"] = leave,
  ["syscalls:sys_exit_openat"] = leave,
}
