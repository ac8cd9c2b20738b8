-- pagefaults.lua: page faults by the function and the object whose code
-- took them, minor (the page was in memory: a new or copied page) and
-- major (it had to be read in), every fault counted.
--
--   luaprof run pagefaults -- ./prog       (or -p PID, or -a -d 5)
--   luaprof run pagefaults -g -- ./prog    (also the stacks that fault most)
--
-- From the software events minor-faults and major-faults, sampled at every
-- fault (count = 1: each sample is one fault; with -c N each stands for N).

local opt = luaprof.options{
  description = "page faults (minor and major) by function and by object",
  help = [[Two tables, by function and by object, most faults first, with the
minor and major counts and the share of all faults.  With call stacks (-g)
a third: the stacks that took the most faults, leaf first.]],
  { "limit", "integer", 15, "rows per table", min = 0 },
}
luaprof.setup{ events = { "minor-faults", "major-faults" }, period = 1 }

local fmt = luaprof.fmt
local by_func, by_obj, by_stack = {}, {}, luaprof.map()
local total = 0

local function add(t, cells, major, n)
  local key = table.concat(cells, "\0")
  local r = t[key]
  if not r then
    r = { cells = cells, minor = 0, major = 0 }
    t[key] = r
  end
  if major then r.major = r.major + n else r.minor = r.minor + n end
end

function on_sample(s)
  local n, major = s.period, (s.event or ""):find("^major") ~= nil
  local obj = s.dso and s.dso:match("[^/]*$") or "[unknown]"
  total = total + n
  add(by_func, { s.sym or "[unknown]", obj }, major, n)
  add(by_obj, { obj }, major, n)
  if s.has_callchain then by_stack:add(s.folded, n) end
end

local function print_rows(title, t, headers)
  local list = {}
  for _, r in pairs(t) do list[#list + 1] = r end
  table.sort(list, function(a, b) return a.minor + a.major > b.minor + b.major end)
  local rows = {}
  for i = 1, math.min(opt.limit, #list) do
    local r = list[i]
    rows[i] = { r.minor + r.major, r.minor, r.major, fmt.pct(r.minor + r.major, total), table.unpack(r.cells) }
  end
  print(title)
  fmt.print_table(rows, { headers = headers })
end

function on_end()
  print(string.format("# %d page faults", total))
  print_rows("\n# by function", by_func, { "FAULTS", "MINOR", "MAJOR", "SHARE", "FUNCTION", "OBJECT" })
  print_rows("\n# by object", by_obj, { "FAULTS", "MINOR", "MAJOR", "SHARE", "OBJECT" })
  if #by_stack > 0 then
    print("\n# the stacks with the most faults, leaf first")
    for folded, n in by_stack:sorted("value", opt.limit) do
      local frames = {}
      for f in folded:gmatch("[^;]+") do table.insert(frames, 1, f) end
      print(string.format("%8d  %s", n, table.concat(frames, " <- ")))
    end
  end
end
