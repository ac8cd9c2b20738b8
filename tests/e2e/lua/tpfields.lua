-- Field types of tracepoint samples, one line per check:
--   switch COMM PID STATE        sched_switch of the program (string, pid_t, long)
--   exec FILENAME PID            sched_process_exec (__data_loc char[])
--   close_ret RET TYPE           syscalls:sys_exit_close's long ret (signed)
--   close_args N ARG1 TYPE       raw_syscalls:sys_enter's unsigned long args[6]
--   raw LEN TYPE                 s.raw's length and its common_type
--   other FIELDS RAW             a cpu-clock sample's s.args and s.raw
--   cached SAME COMMON           s.args is one table per call; no common_*
--   fd123456 N                   sys_enter samples whose args[1] is 123456,
--                                args read at every one (arrays are made
--                                afresh for each sample)
--   names N1,N2,...              pairs(s.args) of sched_switch, in format order
local pid, close_nr = nil, luaprof.syscall_nr("close")
local seen, fd123456 = {}, 0
local function once(key, ...)
  if not seen[key] then seen[key] = true; print(key, ...) end
end
function on_start(info) pid = info.pid end
function on_sample(s)
  local f = s.args
  if s.event == "cpu-clock" then
    once("other", tostring(f), tostring(s.raw))
    return
  end
  once("cached", tostring(s.args == f), tostring(f.common_pid))
  if s.event == "sched:sched_switch" and f.prev_pid == pid then
    once("switch", f.prev_comm, f.prev_pid, f.prev_state)
    local names = {}
    for k, v in pairs(f) do names[#names + 1] = k .. "=" .. (math.type(v) or type(v)) end
    once("names", table.concat(names, ","))
  elseif s.event == "sched:sched_process_exec" and f.pid == pid then
    once("exec", f.filename, f.pid)
  elseif s.event == "syscalls:sys_exit_close" and f.ret < 0 then
    once("close_ret", f.ret, math.type(f.ret))
  elseif s.event == "raw_syscalls:sys_enter" and f.args[1] == 123456 then
    fd123456 = fd123456 + 1
    if f.id == close_nr then
      once("close_args", #f.args, f.args[1], math.type(f.args[1]))
      once("raw", #s.raw, (string.unpack("<I2", s.raw)))
    end
  end
end
function on_end() print("fd123456", fd123456) end
