-- syscall-counts-by-pid.lua: system call totals by command and thread,
-- then by call; a port of perf's syscall-counts-by-pid.py, printing what it
-- prints (its "pid" is the event's common_pid: the thread id).
--
--   luaprof run syscall-counts-by-pid -a -d 5 [--only=COMM|PID]
--   luaprof run syscall-counts-by-pid -i perf.data

local perfpy = require "perfpy"
local opt = luaprof.options{
  description = "system call totals by command, thread and call (perf's syscall-counts-by-pid.py)",
  { "only", "string", nil, "only this command, or this pid (the script's [comm|pid]; -A too)" },
}
luaprof.setup{ events = { "raw_syscalls:sys_enter" } }

local for_comm = opt.only or arg[1]
local only = perfpy.only(for_comm)
local syscalls = perfpy.dict()          -- comm -> pid -> id -> count

function on_start()
  print("Press control+C to stop and show the summary")
end

on_event = { ["raw_syscalls:sys_enter"] = function(s)
  local comm, pid = s.comm, s.tid
  if not only(comm, pid) then return end
  syscalls:at(comm, perfpy.dict):at(pid, perfpy.dict):add(s.args.id)
end }

function on_end()
  if for_comm and not math.tointeger(tonumber(for_comm)) then
    print(string.format("\nsyscall events for %s:\n", for_comm))
  else
    print("\nsyscall events by comm/pid:\n")
  end
  print(string.format("%-40s  %10s", "comm [pid]/syscalls", "count"))
  print(string.format("%-40s  %10s", "----------------------------------------", "----------"))
  for comm in syscalls:keys() do
    local pids = syscalls:get(comm)
    for pid in pids:keys() do
      print(string.format("\n%s [%d]", comm, pid))
      for id, n in perfpy.by_count(pids:get(pid)) do
        print(string.format("  %-38s  %10d", perfpy.syscall_name(id), n))
      end
    end
  end
end
