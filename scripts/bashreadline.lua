-- bashreadline.lua: the command lines typed into interactive bash shells,
-- one line each: bpftrace's bashreadline.bt (and BCC's).
--
--   luaprof run bashreadline -a                 (every bash, until Ctrl-C)
--   luaprof run bashreadline --shell=/usr/local/bin/bash -a
--
-- A uretprobe on bash's readline(): its return value is the line read,
-- in the shell's memory, read when the sample is handled (line_of below),
-- a moment after it returned, where bpftrace reads it in the probe: a
-- shell that has exited by then (the line was "exit") shows an empty
-- line, as does the end of input (readline returns NULL; bpftrace's
-- str(0) prints "" too).  bash frees each line once it has run it, before
-- it reads the next: a quick command's line may be gone, its memory
-- reused, when it is read; what is read then is shown only when it looks
-- like a line (valid UTF-8 without control characters), else the line is
-- empty.  The capture of strings at the event will give every line.
-- The probe is on every CPU (all_cpus), the run's own processes kept
-- with luaprof.is_target: a uprobe opened for a process is
-- inherited by the processes it forks, and the kernel reads the probe's
-- path again in the child, at an address of luaprof's, which fails: the
-- shell's fork would return EFAULT.

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
luaprof.setup{ events = { "uretprobe:" .. path .. ":readline" }, all_cpus = true }

local bpftools = require "bpftools"
bpftools.snoop()

-- The line readline returned, read from the shell's memory now; nil when
-- it cannot be read (or readline returned NULL, or what is there now is
-- not text: the line was freed and its memory reused).
local function line_of(s)
  if not s.retval or s.retval == 0 then return nil end
  -- bash adds a newline to the line once readline has returned it
  local line = luaprof.read_string(s.pid, s.retval)
  line = line and line:gsub("\n$", "")
  if not line or not utf8.len(line) or line:find("[\1-\8\10-\31\127]") then return nil end
  return line
end

function on_start()
  print(string.format("%-9s %-6s %s", "TIME", "PID", "COMMAND"))
end

function on_sample(s)
  if not luaprof.is_target(s.pid) then return end
  print(string.format("%-9s %-6d %s", bpftools.time(), s.pid, line_of(s) or ""))
end
