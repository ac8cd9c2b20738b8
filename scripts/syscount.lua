-- syscount.lua: system calls by name, with their counts, errors, and total,
-- smallest, average and largest latency, per process (or per thread, or
-- overall), like `perf trace -s` and BCC's syscount.
--
--   luaprof run syscount -- ./prog         (or -p PID, or -a -d 5)
--   luaprof run syscount --per=all -i perf.data
--
-- From raw_syscalls:sys_enter and sys_exit: a call is counted at its exit
-- (so a call still blocked when the run ends is not), an error is a
-- negative return, and the latency runs from the thread's enter to its
-- exit of the same call.  A call whose enter came before the run began
-- (execve, whose enter is in the process before it became the program;
-- calls in progress when -p attaches) counts with no latency.

local opt = luaprof.options{
  description = "system calls by name: counts, errors, total and average latency (perf trace -s)",
  help = [[One table per process (--per=thread: per thread, --per=all: one
for everything), calls sorted by their total time as perf trace -s sorts
them (--sort=calls or errors for another order).  Times in milliseconds.]],
  { "per", "string", "process", "one table per process, per thread, or overall",
    choices = { "process", "thread", "all" } },
  { "sort", "string", "time", "the order of the rows", choices = { "time", "calls", "errors", "name" } },
  { "limit", "integer", 30, "rows per table", min = 0 },
}
luaprof.setup{ events = { "raw_syscalls:sys_enter", "raw_syscalls:sys_exit" } }

local tables, order = {}, {}    -- key -> { title, events, calls = { nr -> stats } }; keys in first-seen order
local entered = {}              -- tid -> { nr, time } of the call it is in

local function table_of(s)
  local key = opt.per == "thread" and s.tid or opt.per == "process" and s.pid or "all"
  local t = tables[key]
  if not t then
    t = { events = 0, calls = {} }
    tables[key] = t
    order[#order + 1] = key
  end
  if opt.per ~= "all" then t.title = string.format("%s (%d)", s.comm, key) end
  return t
end

on_event = {}

on_event["raw_syscalls:sys_enter"] = function(s)
  entered[s.tid] = { s.args.id, s.time }
  table_of(s).events = table_of(s).events + 1
end

on_event["raw_syscalls:sys_exit"] = function(s)
  local f, t = s.args, table_of(s)
  local nr, e = f.id, entered[s.tid]
  t.events = t.events + 1
  entered[s.tid] = nil
  local c = t.calls[nr]
  if not c then
    c = { n = 0, errors = 0, total = 0, timed = 0 }
    t.calls[nr] = c
  end
  c.n = c.n + 1
  if f.ret < 0 then c.errors = c.errors + 1 end
  if e and e[1] == nr then
    local ns = s.time - e[2]
    c.total, c.timed = c.total + ns, c.timed + 1
    c.min = math.min(c.min or ns, ns)
    c.max = math.max(c.max or ns, ns)
  end
end

local orders = {
  time = function(a, b) return a.total > b.total end,
  calls = function(a, b) return a.n > b.n end,
  errors = function(a, b) return a.errors > b.errors end,
  name = function(a, b) return a.name < b.name end,
}

local function ms(ns) return string.format("%.3f", (ns or 0) / 1e6) end

local function print_table(t)
  local list = {}
  for nr, c in pairs(t.calls) do
    c.name = luaprof.syscall_name(nr) or tostring(nr)
    list[#list + 1] = c
  end
  table.sort(list, function(a, b)
    if orders[opt.sort](a, b) ~= orders[opt.sort](b, a) then return orders[opt.sort](a, b) end
    return a.name < b.name
  end)
  local rows = {}
  for i = 1, math.min(opt.limit, #list) do
    local c = list[i]
    rows[i] = { c.name, c.n, c.errors, ms(c.total), ms(c.min), ms(c.timed > 0 and c.total / c.timed),
                ms(c.max) }
  end
  print(string.format("\n %s, %d events\n", t.title or "all processes", t.events))
  luaprof.fmt.print_table(rows, { headers = { "syscall", "calls", "errors", "total(ms)", "min(ms)",
                                              "avg(ms)", "max(ms)" } })
end

function on_end()
  print(" Summary of system calls:")
  for _, key in ipairs(order) do
    if next(tables[key].calls) then print_table(tables[key]) end
  end
end
