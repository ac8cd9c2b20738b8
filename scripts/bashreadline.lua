-- bashreadline.lua: the command lines typed into interactive bash shells,
-- one line each: bpftrace's bashreadline.bt (and BCC's).
--
--   luaprof run bashreadline -a                 (every bash, until Ctrl-C)
--   luaprof run bashreadline --shell=/usr/local/bin/bash -a
--
-- A uretprobe on bash's readline(): its return value is the line read,
-- which the kernel copies as readline returns (strings), as bpftrace
-- reads it in its probe: every line, however soon bash frees it or
-- exits.  The end of input (readline returns NULL) is an empty line, as
-- bpftrace's str(0) prints it.

local opt = luaprof.options{
  description = "command lines typed into bash (uretprobe on readline) (bpftrace's bashreadline)",
  help = [[One line per line bash's readline returned: the time, the shell's pid
and the line.  --shell for a bash elsewhere than /bin/bash (or one
linking libreadline: --shell=libreadline).]],
  { "shell", "string", "/bin/bash", "the object whose readline() is probed" },
}
local ok, path, found = pcall(luaprof.functions, opt.shell, "readline")
if not ok then luaprof.usage_error(path) end
if found[1] ~= "readline" then luaprof.usage_error(string.format("no function readline in %s", path)) end
local event = "uretprobe:" .. path .. ":readline"
luaprof.setup{ events = { event }, strings = { [event] = { "retval" } } }

local bpftools = require "bpftools"
bpftools.snoop()

-- The line readline returned, as it returned it; nil when it returned
-- NULL (the end of input) or the line could not be had (counted, and
-- said at the end).  (A recording may lack the registers: no line.)
local function line_of(s)
  if not s.retval or s.retval == 0 then return nil end
  return (s:str(s.retval))
end

function on_start()
  print(string.format("%-9s %-6s %s", "TIME", "PID", "COMMAND"))
end

function on_sample(s)
  print(string.format("%-9s %-6d %s", bpftools.time(), s.pid, line_of(s) or ""))
end
