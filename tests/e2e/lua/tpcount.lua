-- Samples per event, and per system call for raw_syscalls:sys_enter (by
-- luaprof.syscall_name of the id field); getppid counted by number too.
local events, calls, getppid = {}, {}, 0
local nr = luaprof.syscall_nr("getppid")
function on_sample(s)
  events[s.event] = (events[s.event] or 0) + 1
  if s.event == "raw_syscalls:sys_enter" then
    local id = s.args.id
    if id == nr then getppid = getppid + 1 end
    local name = luaprof.syscall_name(id) or tostring(id)
    calls[name] = (calls[name] or 0) + 1
  end
end
function on_end(info)
  for k, n in pairs(events) do print("event", k, n) end
  for k, n in pairs(calls) do print("syscall", k, n) end
  print("getppid_by_nr", getppid)
  print("samples", info.samples)
end
