-- event_analyzing_sample.lua: every sample grouped by command, symbol and
-- object, each with a log2 histogram bar; a port of perf's
-- event_analyzing_sample.py, printing what it prints (without its sqlite
-- database in /dev/shm: the grouping is done in memory).
--
--   luaprof run event_analyzing_sample -- ./prog
--   luaprof run event_analyzing_sample -i perf.data
--
-- As the original, it takes the samples of any event; a tracepoint's
-- samples are printed one per line as their fields, name=value sorted
-- (arrays as Lua lists, where Python prints its bytearray).  Its Intel PEBS
-- load-latency table stays empty unless a PMU gives those samples.

luaprof.options{ description = "samples grouped by command, symbol and object, with log2 bars (perf's script)" }

local counts = { comm = luaprof.map(), symbol = luaprof.map(), dso = luaprof.map() }
local records = 0

function on_start()
  print("In trace_begin:\n")
end

-- A name as perf gives it to Python: demangled, without parameters.
local function perf_symbol(s)
  local sym = s.sym
  if not sym then return "Unknown_symbol" end
  if not sym:find("(", 1, true) then return sym end
  local f = s.stack[1]
  return f.mangled and luaprof.demangle(f.mangled, false) or sym
end

-- trace_unhandled: the tracepoint's fields and perf's common_ ones, sorted.
local function print_fields(s)
  local t = { common_callchain = "[]", common_comm = s.comm, common_cpu = s.cpu or 0,
              common_s = s.time // 1000000000, common_ns = s.time % 1000000000, common_pid = s.tid }
  for k, v in pairs(s.args) do
    t[k] = type(v) == "table" and "[" .. table.concat(v, ", ") .. "]" or v
  end
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys)
  for i, k in ipairs(keys) do keys[i] = k .. "=" .. tostring(t[k]) end
  print(table.concat(keys, " "))
end

function on_sample(s)
  if s.raw then return print_fields(s) end      -- a tracepoint (s.raw: theirs only)
  records = records + 1
  counts.comm:add(s.comm)
  counts.symbol:add(perf_symbol(s))
  counts.dso:add(s.dso or "Unknown_dso")
end

-- Each count gets at least one '#', one more per doubling (Python's
-- int(math.log(num, 2) + 1), computed as Python does).
local function num2sym(n)
  return string.rep("#", math.floor(math.log(n) / math.log(2) + 1))
end

-- "select KEY, count(KEY) ... group by KEY order by -count(KEY)": most
-- first, ties in the key's order.
local function show(what, width, rule)
  print(string.format("\n%" .. width .. "s %8s %16s\n%s", what, "number", "histogram", string.rep("=", rule)))
  local rows = {}
  for k, n in pairs(counts[what]) do rows[#rows + 1] = { k, n } end
  table.sort(rows, function(a, b)
    if a[2] ~= b[2] then return a[2] > b[2] end
    return a[1] < b[1]
  end)
  for _, r in ipairs(rows) do
    print(string.format("%" .. width .. "s %8d     %s", r[1], r[2], num2sym(r[2])))
  end
end

function on_end()
  print("In trace_end:\n")
  print(string.format("There is %d records in gen_events table", records))
  if records > 0 then
    print("Statistics about the general events grouped by thread/symbol/dso: \n")
    show("comm", 16, 42)
    show("symbol", 32, 58)
    show("dso", 40, 74)
  end
  print("There is 0 records in pebs_ll table")
end
