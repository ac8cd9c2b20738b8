-- statsnoop.lua: stat() calls (stat, lstat, statx, statfs, newfstatat),
-- with their error and path, one line each: bpftrace's statsnoop.bt (and
-- BCC's statsnoop).
--
--   luaprof run statsnoop -a                    (every process, until Ctrl-C)
--   luaprof run statsnoop --failed -- ./prog    (prog's stats that failed)
--
-- From the calls' syscalls:sys_enter_* (the path's address) and
-- sys_exit_* (the result), paired per thread.  bpftrace's tool follows
-- statfs, statx, newstat and newlstat; this one newfstatat too, which is
-- what glibc's stat(), lstat() and fstatat() make since glibc 2.33, so
-- that a program's stats are seen whatever its libc.  The path is kept as
-- the call saw it (strings), as opensnoop's: see there.

local opt = luaprof.options{
  description = "stat, lstat, statx, statfs, newfstatat calls: pid, command, error, path (bpftrace's statsnoop)",
  help = [[One line per call as it returns: the caller's pid and command, the
error number (0 on success; 2 is ENOENT) and the path as given.]],
  { "failed", "boolean", false, "only the calls that failed" },
  { "calls", "list", { "statfs", "statx", "newstat", "newlstat", "newfstatat" },
    "the calls to follow (bpftrace's tool: statfs,statx,newstat,newlstat)" },
}
local fields = { statfs = "pathname", statx = "filename", newstat = "filename", newlstat = "filename",
                 newfstatat = "filename" }
local calls = {}
for _, call in ipairs(opt.calls) do
  if not fields[call] then
    luaprof.usage_error(string.format("--calls: no call '%s' (the calls are statfs, statx, newstat, newlstat, "
                                      .. "newfstatat)", call))
  end
  calls[call] = fields[call]
end
local events, strings = {}, {}
for call, field in pairs(calls) do
  events[#events + 1] = "syscalls:sys_enter_" .. call
  events[#events + 1] = "syscalls:sys_exit_" .. call
  strings["syscalls:sys_enter_" .. call] = { field }
end
table.sort(events)
luaprof.setup{ events = events, strings = strings }

local bpftools = require "bpftools"
bpftools.snoop()
local paths = {}                        -- tid -> the path of the call it is in ("" unread)

-- The path the call was given, as the call saw it; nil when it could not
-- be had (counted, and said at the end).
local function path_of(s, field)
  return (s:str(s.args[field]))
end

function on_start()
  print(string.format("%-6s %-16s %3s %s", "PID", "COMM", "ERR", "PATH"))
end

local function leave(s)
  local path = paths[s.tid]
  if not path then return end
  paths[s.tid] = nil
  local ret = s.args.ret
  if opt.failed and ret >= 0 then return end
  print(string.format("%-6d %-16s %3d %s", s.pid, s.comm, ret >= 0 and 0 or -ret, path))
end

on_event = {}
for call, field in pairs(calls) do
  on_event["syscalls:sys_enter_" .. call] = function(s) paths[s.tid] = path_of(s, field) or "" end
  on_event["syscalls:sys_exit_" .. call] = leave
end
