-- gethostlatency.lua: name lookups through libc (getaddrinfo,
-- gethostbyname, gethostbyname2), with the name and how long each took,
-- one line each: bpftrace's gethostlatency.bt (and BCC's).
--
--   luaprof run gethostlatency -a               (every process, until Ctrl-C)
--   luaprof run gethostlatency -- curl -s example.com
--
-- A uprobe at each function's entry (the name, its first argument) and a
-- uretprobe at its return, paired per thread.  The kernel copies the name
-- at the entry (strings), however soon the process exits; bpftrace reads
-- it in its probe at the return.

local opt = luaprof.options{
  description = "getaddrinfo, gethostbyname calls: name and latency (uprobes) (bpftrace's gethostlatency)",
  help = [[One line per lookup as it returns: the time, the caller's pid and
command, the lookup's latency in whole milliseconds and the name looked
up.]],
  { "lib", "string", "libc", "the object with the functions (a libc elsewhere: its path)" },
}
local funcs = { "getaddrinfo", "gethostbyname", "gethostbyname2" }
local events, strings = {}, {}
for _, f in ipairs(funcs) do
  local ok, path, found = pcall(luaprof.functions, opt.lib, f)
  if not ok then luaprof.usage_error(path) end
  if found[1] ~= f then luaprof.usage_error(string.format("no function %s in %s", f, path)) end
  events[#events + 1] = "uprobe:" .. path .. ":" .. f
  events[#events + 1] = "uretprobe:" .. path .. ":" .. f
  strings["uprobe:" .. path .. ":" .. f] = { 1 }
end
luaprof.setup{ events = events, strings = strings }

local bpftools = require "bpftools"
bpftools.snoop()
local calls = {}                        -- tid -> { time, name } of the lookup it is in

-- The name looked up (the first argument), as the call was given it; nil
-- when it could not be had (counted, and said at the end).  (A recording
-- may lack the registers: no name.)
local function host_of(s)
  return s.args and s.args[1] and (s:str(s.args[1]))
end

function on_start()
  print(string.format("%-9s %-6s %-16s %6s %s", "TIME", "PID", "COMM", "LATms", "HOST"))
end

function on_sample(s)
  if s.event:find("^uprobe:") then
    calls[s.tid] = { s.time, host_of(s) or "" }
    return
  end
  local c = calls[s.tid]
  if not c then return end
  calls[s.tid] = nil
  print(string.format("%-9s %-6d %-16s %6d %s", bpftools.time(), s.pid, s.comm, (s.time - c[1]) // 1000000, c[2]))
end
