luaprof.setup{ events = { "block:block_io_done" }, all_cpus = true }
local n, p0 = 0, 0
function on_sample(s) n = n + 1; if s.pid == 0 then p0 = p0 + 1 end end
function on_end() print("dones", n, "pid0", p0) end
