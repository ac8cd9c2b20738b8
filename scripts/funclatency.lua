-- funclatency.lua: how long a function's calls take, as a histogram: a
-- uprobe at its entry and a uretprobe at its return, paired per thread
-- (nested and recursive calls too), like BCC's funclatency.
--
--   luaprof run funclatency --func=./prog:compute -- ./prog
--   luaprof run funclatency -A libc:malloc --unit=ns -p 1234
--
-- Replaying a recording of the two probes (luaprof record -e
-- uprobe:PATH:FUNC,uretprobe:PATH:FUNC), the same pairs are made.

local opt = luaprof.options{
  description = "a latency histogram of one function (uprobe + uretprobe per thread), like BCC funclatency",
  help = [[OBJECT:FUNC: OBJECT a path, a program on $PATH or a library name.
Prints the histogram of the calls' durations (power-of-two buckets) with
their count, average and total, for all threads together or --per=process
or thread.  Calls still running when the run ends, and returns of calls
begun before the probes were placed, are not counted; how many is said
on stderr.]],
  { "func", "string", nil, "OBJECT:FUNC, the function to time (-A OBJECT:FUNC too)" },
  { "unit", "string", "us", "the histogram's unit", choices = { "ns", "us", "ms" } },
  { "per", "string", "all", "one histogram in all, per process or per thread",
    choices = { "all", "process", "thread" } },
}

local spec = opt.func or arg[1]
local object, func = (spec or ""):match("^(.+):([^:]+)$")
if not object then luaprof.usage_error("give the function as --func=OBJECT:FUNC (./prog:compute, libc:malloc)") end
local ok, path, found = pcall(luaprof.functions, object, func)
if not ok then luaprof.usage_error(path) end
if found[1] ~= func then
  luaprof.usage_error(string.format("no function '%s' in %s", luaprof.shown(func), luaprof.shown(path)))
end
luaprof.setup{ events = { "uprobe:" .. path .. ":" .. func, "uretprobe:" .. path .. ":" .. func } }

local div = ({ ns = 1, us = 1000, ms = 1000000 })[opt.unit]
local entries = {}                      -- tid -> stack of entry times
local hists, order = {}, {}             -- key -> { name, hist }; keys in first-seen order

-- An entry or a return, from the event's name (luaprof's uprobe:/uretprobe:,
-- or perf probe's probe_prog:FUNC / probe_prog:FUNC__return).
local function is_return(ev)
  return ev:find("^uretprobe:") ~= nil or ev:find("__return$") ~= nil
end

local function hist_of(s)
  local key = opt.per == "thread" and s.tid or opt.per == "process" and s.pid or "all"
  local h = hists[key]
  if not h then
    h = { hist = luaprof.hist() }
    hists[key] = h
    order[#order + 1] = key
  end
  h.name = opt.per == "all" and func or string.format("%s %s %d", func, s.comm, key)
  return h.hist
end

local unpaired = 0                     -- returns without an entry before them

function on_sample(s)
  local tid = s.tid
  local stack = entries[tid]
  if not is_return(s.event or "") then
    if not stack then
      stack = {}
      entries[tid] = stack
    end
    stack[#stack + 1] = s.time
  elseif stack and #stack > 0 then
    hist_of(s):add((s.time - table.remove(stack)) // div)
  else
    unpaired = unpaired + 1
  end
end

-- What was left out, on stderr: calls begun before the probes were placed
-- (attached with -p), calls still running at the end.
local function left_out()
  local open = 0
  for _, stack in pairs(entries) do open = open + #stack end
  if unpaired > 0 or open > 0 then
    io.stderr:write(string.format("funclatency: not counted: %d return%s without an entry (the call "
      .. "began before the probes were placed), %d call%s still running at the end\n",
      unpaired, unpaired == 1 and "" or "s", open, open == 1 and "" or "s"))
  end
end

function on_end()
  for _, key in ipairs(order) do
    local h = hists[key]
    print(string.format("\nFunction = %s, %s:", h.name, opt.unit))
    h.hist:print()
    print(string.format("avg = %.0f %s, total: %d %s, count: %d", h.hist:mean(), opt.unit,
                        h.hist:sum(), opt.unit, h.hist:count()))
  end
  if #order == 0 then print(string.format("%s was not called", func)) end
  left_out()
end
