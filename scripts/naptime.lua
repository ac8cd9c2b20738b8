-- naptime.lua: nanosleep() calls, with the sleeper's parent and the time
-- asked for, one line each: bpftrace's naptime.bt.
--
--   luaprof run naptime -a                      (every process, until Ctrl-C)
--   luaprof run naptime -- ./prog               (prog and its children)
--
-- From syscalls:sys_enter_nanosleep.  glibc's sleep(), usleep() and
-- nanosleep() make clock_nanosleep these days, so this sees the programs
-- that make the system call itself (or a libc that still does).  Calls
-- asking for no time at all are left out, as bpftrace's tool does.
--
-- The time asked for is in the caller's memory (rqtp points to it), kept
-- as the call saw it (strings: the sample's copy of the stack, the file
-- of a constant, the process as the sample is drained), however soon the
-- process exits ("-" when it could not be had).  bpftrace reads it in its
-- probe, which cannot fault a page in: a sleep whose timespec lies in a
-- page the process has not touched yet reads as zero, and its predicate
-- drops the call.  The parent (PPID,
-- PCOMM) is the one each process was forked by, seen as it forked (or
-- read from /proc for processes older than the run): bpftrace reads the
-- task's real parent, which is init (or a subreaper) once the first
-- parent exited.

luaprof.options{
  description = "nanosleep() calls: the sleeper, its parent and the time asked (bpftrace's naptime)",
  help = [[One line per nanosleep as it enters: the time, the parent's pid and
command, the caller's pid and command, and the sleep asked for in
seconds.]],
}
luaprof.setup{ events = { "syscalls:sys_enter_nanosleep" },
               strings = { ["syscalls:sys_enter_nanosleep"] = { "rqtp" } } }

local bpftools = require "bpftools"
bpftools.snoop()
local parent, comm = {}, {}             -- pid -> its parent's pid, its command, as the records give them

-- The sleep asked for: seconds and nanoseconds of the timespec at rqtp as
-- the call saw it, read a byte at a time with s:str (at most one byte
-- each: a NUL reads as ""); nil when it could not be had (counted, and
-- said at the end).
local function sleep_of(s)
  local b = {}
  for i = 0, 15 do
    local c = s:str(s.args.rqtp + i, 1)
    if not c then return nil end
    b[i + 1] = c == "" and "\0" or c
  end
  return string.unpack("<i8i8", table.concat(b))
end

function on_start()
  print(string.format("%-8s %-6s %-16s %-6s %-16s %s", "TIME", "PPID", "PCOMM", "PID", "COMM", "SECONDS"))
end

function on_fork(t)
  if t.pid == t.tid then parent[t.pid] = t.ppid end
end

function on_comm(t)
  if t.pid == t.tid then comm[t.pid] = t.comm end
end

function on_exit(t)
  if t.pid == t.tid then parent[t.pid], comm[t.pid] = nil, nil end
end

function on_sample(s)
  local sec, nsec = sleep_of(s)
  if sec and sec + nsec == 0 then return end
  local ppid = parent[s.pid] or bpftools.ppid(s.pid) or 0
  local pcomm = comm[ppid] or bpftools.comm(ppid) or "?"
  print(string.format("%-8s %-6d %-16s %-6d %-16s %s", bpftools.time(), ppid, pcomm, s.pid, s.comm,
                      sec and string.format("%d.%03d", sec, nsec // 1000000) or "-"))
end
