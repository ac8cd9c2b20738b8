-- syscalls:sys_enter_close samples: how many, and how many close another
-- fd than 123456 (the one tpcalls closes last).  A script's own filter
-- (luaprof.setup) applies unless the command line gives one; arg[1]
-- chooses whether the script declares the event and its filter.
if arg[1] == "setup" then
  luaprof.setup{ events = { "syscalls:sys_enter_close" },
                 filter = { ["syscalls:sys_enter_cl*"] = "fd == 123456" } }
end
local n, other = 0, 0
function on_sample(s)
  n = n + 1
  if s.args.fd ~= 123456 then other = other + 1 end
end
function on_end() print("closes", n, "other", other) end
