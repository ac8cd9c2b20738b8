-- failed-syscalls-by-pid.lua: system calls that returned an error, by
-- command, thread, call and error; a port of perf's
-- failed-syscalls-by-pid.py, printing what it prints.
--
--   luaprof run failed-syscalls-by-pid -a -d 5 [--only=COMM|PID]
--   luaprof run failed-syscalls-by-pid -i perf.data   (perf record -e raw_syscalls:sys_exit)

local perfpy = require "perfpy"
local opt = luaprof.options{
  description = "failed system calls by command, thread, call and error (perf's failed-syscalls-by-pid.py)",
  { "only", "string", nil, "only this command, or this pid (the script's [comm|pid]; -A too)" },
}
luaprof.setup{ events = { "raw_syscalls:sys_exit" } }

local for_comm = opt.only or arg[1]
local only = perfpy.only(for_comm)
local syscalls = perfpy.dict()          -- comm -> pid -> id -> ret -> count

function on_start()
  print("Press control+C to stop and show the summary")
end

on_event = { ["raw_syscalls:sys_exit"] = function(s)
  local comm, pid, f = s.comm, s.tid, s.args
  if not only(comm, pid) or f.ret >= 0 then return end
  syscalls:at(comm, perfpy.dict):at(pid, perfpy.dict):at(f.id, perfpy.dict):add(f.ret)
end }

function on_end()
  if for_comm and not math.tointeger(tonumber(for_comm)) then
    print(string.format("\nsyscall errors for %s:\n", for_comm))
  else
    print("\nsyscall errors:\n")
  end
  print(string.format("%-30s  %10s", "comm [pid]", "count"))
  print(string.format("%-30s  %10s", "------------------------------", "----------"))
  for comm in syscalls:keys() do
    local pids = syscalls:get(comm)
    for pid in pids:keys() do
      print(string.format("\n%s [%d]", comm, pid))
      local ids = pids:get(pid)
      for id in ids:keys() do
        print(string.format("  syscall: %-16s", perfpy.syscall_name(id)))
        for ret, n in perfpy.by_count(ids:get(id)) do
          print(string.format("    err = %-20s  %10d", perfpy.strerror(ret), n))
        end
      end
    end
  end
end
