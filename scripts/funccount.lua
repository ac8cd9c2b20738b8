-- funccount.lua: calls of the functions matching a glob in a program or a
-- library, counted exactly, like BCC's funccount.
--
--   luaprof run funccount --pattern='./prog:compute*' -- ./prog
--   luaprof run funccount -A 'libc:str*' -p 1234 -I 1000     (per second)
--
-- One uprobe per function (luaprof.functions finds them), counted in the
-- kernel without sampling (counting): no call is lost however fast they
-- come.  Replaying a recording of uprobe samples (luaprof record -e
-- uprobe:...), each sample of a matching function is one call.

local opt = luaprof.options{
  description = "calls of the functions matching OBJECT:GLOB, counted exactly (uprobes), like BCC funccount",
  help = [[OBJECT is a path, a program on $PATH or a library name (libc);
GLOB matches function names (compute*, str[ln]*).  Prints each function
called, most calls first; with -I MS, each interval's calls too.]],
  { "pattern", "string", nil, "OBJECT:GLOB, the functions to count (-A PATTERN too)" },
  { "max", "integer", 1000, "refuse a pattern matching more functions than this" },
}

local pattern = opt.pattern or arg[1]
local object, glob = (pattern or ""):match("^(.+):([^:]+)$")
if not object then luaprof.usage_error("give the functions as --pattern=OBJECT:GLOB (./prog:compute*, libc:str*)") end
local ok, path, names = pcall(luaprof.functions, object, glob)
if not ok then luaprof.usage_error(path) end
local shown = luaprof.shown
if #names == 0 then luaprof.usage_error(string.format("no function of %s matches '%s'", shown(path), shown(glob))) end
if #names > opt.max then
  luaprof.usage_error(string.format("%d functions of %s match '%s', more than --max=%d", #names, shown(path),
                                    shown(glob), opt.max))
end
local events = {}
for i, name in ipairs(names) do events[i] = "uprobe:" .. path .. ":" .. name end
luaprof.setup{ events = events, counting = true }

local calls = luaprof.map()             -- replaying: function -> samples

-- The function an event names: uprobe:PATH:FUNC, or perf's probe_prog:FUNC.
local function func_of(event)
  return event:match("([^:]+)$")
end

local wanted = {}
for _, name in ipairs(names) do wanted[name] = true end

function on_sample(s)
  local f = func_of(s.event or "")
  if wanted[f] then calls:add(f) end
end

local function print_counts(counts)
  local rows = {}
  for f, n in counts:sorted() do
    if n > 0 then rows[#rows + 1] = { f, n } end
  end
  luaprof.fmt.print_table(rows, { headers = { "FUNC", "COUNT" } })
end

-- info.values (live, counting) as a map of function -> calls.
local function counted(info)
  local m = luaprof.map()
  for name, c in pairs(info.values or {}) do
    if name:find("^uprobe:") then m:add(func_of(name), c.value) end
  end
  return m
end

function on_interval(info)
  print(string.format("\n%.3f s:", info.elapsed / 1e9))
  print_counts(counted(info))
end

function on_end(info)
  local m = counted(info)
  if #m == 0 then m = calls end
  print(string.format("\n%d functions of %s matching '%s':", #names, path, glob))
  print_counts(m)
end
