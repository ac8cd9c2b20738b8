-- setuids.lua: setuid, setfsuid and setresuid calls, with the caller's
-- uid, the uids asked for and the result, one line each: bpftrace's
-- setuids.bt (and BCC's setuids).
--
--   luaprof run setuids -a                      (every process, until Ctrl-C)
--   luaprof run setuids -- sudo true            (sudo and its children)
--
-- From the calls' syscalls:sys_enter_* (the uids asked for) and
-- sys_exit_* (the result) tracepoints, paired per thread.  The caller's
-- real uid (UID), which bpftrace reads in the kernel at the call's entry,
-- is not in the tracepoints: it is the one this run saw the process's
-- earlier calls leave (a successful setresuid's ruid; a successful setuid
-- made with real uid 0, root's, which sets them all), else its parent's
-- at the fork, else s.uid (luaprof reads it from /proc the first time it
-- is asked for: a process that changed its uid before its first call
-- shown here shows the new one).

luaprof.options{
  description = "setuid, setfsuid, setresuid calls: caller's uid, uids asked for, result (bpftrace's setuids)",
  help = [[One line per call as it returns: the time, the caller's pid, command
and uid, the call, the uids it was given (-1: unchanged) and its
result: 0 or minus the error for setuid and setresuid (-1 is EPERM),
the previous fsuid for setfsuid.]],
}
luaprof.setup{ events = { "syscalls:sys_enter_setuid", "syscalls:sys_enter_setfsuid",
                          "syscalls:sys_enter_setresuid", "syscalls:sys_exit_setuid",
                          "syscalls:sys_exit_setfsuid", "syscalls:sys_exit_setresuid" } }

local bpftools = require "bpftools"
bpftools.snoop()
local int = bpftools.int
local calls = {}                        -- tid -> { uid =, args = } of the call it is in
local ruid = {}                         -- pid -> its real uid, as the run saw it change

-- The caller's real uid when the call entered: as its calls left it, else
-- as luaprof has it (-1 when it cannot).
local function uid_of(s)
  local uid = ruid[s.pid] or s.uid or -1
  ruid[s.pid] = uid
  return uid
end

function on_fork(t)
  if t.pid == t.tid then ruid[t.pid] = ruid[t.ppid] end
end

function on_exit(t)
  if t.pid == t.tid then ruid[t.pid] = nil end
end

function on_start()
  print(string.format("%-8s %-6s %-16s %-6s %-9s %s", "TIME", "PID", "COMM", "UID", "SYSCALL", "ARGS (RET)"))
end

on_event = {}

local function enter(s, args)
  calls[s.tid] = { uid = uid_of(s), args = args }
end

on_event["syscalls:sys_enter_setuid"] = function(s) enter(s, { int(s.args.uid) }) end
on_event["syscalls:sys_enter_setfsuid"] = function(s) enter(s, { int(s.args.uid) }) end
on_event["syscalls:sys_enter_setresuid"] = function(s)
  local f = s.args
  enter(s, { int(f.ruid), int(f.euid), int(f.suid) })
end

local formats = {
  setuid = "setuid    uid=%d (%d)",
  setfsuid = "setfsuid  uid=%d (prevuid=%d)",
  setresuid = "setresuid ruid=%d euid=%d suid=%d (%d)",
}

local function leave(s, name)
  local c = calls[s.tid]
  if not c then return end
  calls[s.tid] = nil
  local a, ret = c.args, s.args.ret
  if ret == 0 and name == "setresuid" and a[1] ~= -1 then
    ruid[s.pid] = a[1]
  elseif ret == 0 and name == "setuid" and c.uid == 0 then
    ruid[s.pid] = a[1]
  end
  a[#a + 1] = ret
  print(string.format("%-8s %-6d %-16s %-6d " .. formats[name], bpftools.time(), s.pid, s.comm, c.uid,
                      table.unpack(a)))
end

on_event["syscalls:sys_exit_setuid"] = function(s) leave(s, "setuid") end
on_event["syscalls:sys_exit_setfsuid"] = function(s) leave(s, "setfsuid") end
on_event["syscalls:sys_exit_setresuid"] = function(s) leave(s, "setresuid") end
