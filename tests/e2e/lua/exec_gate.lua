-- For exec_attach.sh: luaprof run exec_gate.lua -A PID -A PROG [-A GATE]
-- -p PID, where PID is tests/progs/execgate, held at GATE before it execs
-- PROG (the file's full path).  With GATE, on_comm for PID's second thread
-- (read from /proc after the main thread's maps) opens the gate and
-- returns once the kernel has mapped PROG: the exec falls between
-- luaprof's reading of /proc and the loop.  At the end, PID's user-mode
-- samples: "samples N spin N unnamed N", the second the samples of the
-- new program's name, the third those no function names.
local pid, prog, gate = tonumber(arg[1]), arg[2], arg[3]
local opened = false

local function mapped()
  local f = io.open("/proc/" .. pid .. "/maps")
  if not f then return false end
  local maps = f:read("a")
  f:close()
  return maps:find(prog, 1, true) ~= nil
end

function on_comm(t)
  if not gate or opened or t.pid ~= pid or t.tid == pid then return end
  opened = true
  local g = assert(io.open(gate, "w"))
  g:write("go\n")
  g:close()
  local deadline = os.time() + 20
  while not mapped() do
    assert(os.time() < deadline, "execgate did not exec " .. prog .. " within 20 s")
  end
end

local n, named_comm, unnamed = 0, 0, 0
local name = prog:match("[^/]*$")
function on_sample(s)
  if s.pid ~= pid or s.kernel then return end
  n = n + 1
  if s.comm == name then named_comm = named_comm + 1 end
  if not s.sym then unnamed = unnamed + 1 end
end

function on_end()
  print(string.format("samples %d %s %d unnamed %d", n, name, named_comm, unnamed))
end
