-- strings.lua: the strings the run's events (-e) point at, for the samples
-- of the command named by -A COMM: one line per sample, the string (a
-- system call's filename or pathname, an exec's args.argv joined by
-- spaces, a uprobe's first argument, a uretprobe's return value), or "nil"
-- and the reason.  -A none as the second value: the strings are not
-- declared (luaprof.setup strings), else every event's are.  At the end,
-- on stderr, "strings: read=N missed=N kernel=N stack=N prompt=N file=N
-- late=N" (on_end's info.strings).
local comm, mode = arg[1], arg[2]
if mode ~= "none" then luaprof.setup{ strings = true } end

local function show(str, why)
  print(str == nil and "nil\t" .. tostring(why) or str)
end

function on_sample(s)
  if comm and s.comm ~= comm then return end
  if s.event == "sched:sched_process_exec" then
    local argv = s.args.argv
    show(argv and table.concat(argv, " "), "no argv")
  elseif s.event:match("^syscalls:sys_enter_") then
    show(s:str(s.args.filename or s.args.pathname))
  elseif s.event:match("^uretprobe:") then
    show(s:str(s.retval))
  else
    show(s:str(s.args[1]))
  end
end

function on_end(info)
  local t = info.strings
  io.stderr:write(string.format("strings: read=%d missed=%d kernel=%d stack=%d prompt=%d file=%d late=%d\n",
    t.read, t.missed, t.kernel, t.stack, t.prompt, t.file, t.late))
end
