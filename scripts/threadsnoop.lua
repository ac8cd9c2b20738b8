-- threadsnoop.lua: threads created with pthread_create(), with the
-- function each starts in, one line each: bpftrace's threadsnoop.bt (and
-- BCC's).
--
--   luaprof run threadsnoop -a                  (every process, until Ctrl-C)
--   luaprof run threadsnoop -- ./server         (server and its children)
--
-- A uprobe on pthread_create, in libc (glibc 2.34 and later, which moved
-- it there from libpthread, where bpftrace's tool still looks for it, and
-- finds nothing) or in libpthread (older glibc, or --lib).  The start
-- function (its third argument) is named as the process mapped it when it
-- made the call (luaprof.frame): bpftrace names it when it prints, and
-- only while the process lives (an address in hexadecimal after that).

local opt = luaprof.options{
  description = "threads created with pthread_create and their start functions (bpftrace's threadsnoop)",
  help = [[One line per pthread_create call: milliseconds since the first
event, the caller's pid and command, and the function the thread
starts in (its address in hexadecimal when it has no symbol).]],
  { "lib", "string", nil, "the object with pthread_create (default: libc, else libpthread)" },
}

local function has_create(object)
  local ok, path, found = pcall(luaprof.functions, object, "pthread_create")
  return ok and found[1] == "pthread_create" and path
end

local lib = opt.lib and has_create(opt.lib) or not opt.lib and (has_create("libc") or has_create("libpthread"))
if not lib then
  luaprof.usage_error(opt.lib and ("no function pthread_create in " .. opt.lib)
                      or "neither libc nor libpthread has pthread_create: give --lib=OBJECT")
end
luaprof.setup{ events = { "uprobe:" .. lib .. ":pthread_create" } }

local bpftools = require "bpftools"
bpftools.snoop()

function on_start()
  print(string.format("%-10s %-6s %-16s %s", "TIME(ms)", "PID", "COMM", "FUNC"))
end

function on_sample(s)
  -- (a recording may lack the registers: no argument, no name)
  local start = s.args and s.args[3]
  local name = start and (luaprof.frame(s.pid, start).sym or string.format("0x%x", start))
  print(string.format("%-10d %-6d %-16s %s", bpftools.elapsed_ms(s), s.pid, s.comm, name or "?"))
end
