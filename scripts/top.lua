-- top.lua: the hottest functions by self samples, like
-- `perf report --no-children --sort sym`.
--
--   luaprof run top [--limit=ROWS] [-g] -- ./my-program args
--
-- Columns: overhead (share of samples whose leaf is the function), samples,
-- function, object.  With call stacks (-g) a Children column gives the
-- inclusive share: samples with the function anywhere on the stack.

local opt = luaprof.options{
  description = "the hottest functions by self samples, like perf report --no-children",
  help = [[Columns: Overhead (the share of samples whose leaf is the function),
Samples, Function and Object.  With call stacks (-g) a Children column gives
the inclusive share: samples with the function anywhere on the stack.]],
  { "limit", "integer", 20, "rows to print (-A ROWS works too)" },
}
local rows = tonumber(arg[1] or "") or opt.limit
local self, children, objects = {}, {}, {}
local total, with_stacks = 0, false

-- Whether st holds calls: two frames not inlined (the functions inlined at
-- the sampled address alone come as frames too).
local function is_call_stack(st)
  local n = 0
  for i = 1, #st do
    if not st[i].inlined then
      n = n + 1
      if n > 1 then return true end
    end
  end
  return false
end

local function basename(path)
  return path and (path:match("([^/]+)$") or path) or "[unknown]"
end

local function key_of(sym, dso)
  if sym then return sym end
  return string.format("[unknown] %s", basename(dso))
end

function on_sample(s)
  total = total + 1
  local leaf = key_of(s.sym, s.dso)
  self[leaf] = (self[leaf] or 0) + 1
  objects[leaf] = basename(s.dso)
  local st = s.stack
  if #st > 1 and is_call_stack(st) then
    with_stacks = true
    local seen = {}
    for i = 1, #st do
      local f = st[i]
      local k = key_of(f.sym, f.dso)
      if not seen[k] then
        seen[k] = true
        children[k] = (children[k] or 0) + 1
        objects[k] = objects[k] or basename(f.dso)
      end
    end
  end
end

function on_end(info)
  local list = {}
  for k, n in pairs(self) do list[#list + 1] = { k, n } end
  table.sort(list, function(a, b)
    if a[2] ~= b[2] then return a[2] > b[2] end
    return a[1] < b[1]
  end)
  print(string.format("# %d samples, %d lost", total, info.lost))
  if with_stacks then
    print(string.format("%9s %9s %9s  %-40s %s", "Overhead", "Children", "Samples", "Function", "Object"))
  else
    print(string.format("%9s %9s  %-40s %s", "Overhead", "Samples", "Function", "Object"))
  end
  for i = 1, math.min(rows, #list) do
    local k, n = list[i][1], list[i][2]
    local pct = 100 * n / math.max(total, 1)
    if with_stacks then
      local ch = 100 * (children[k] or n) / math.max(total, 1)
      print(string.format("%8.2f%% %8.2f%% %9d  %-40s %s", pct, ch, n, k, objects[k]))
    else
      print(string.format("%8.2f%% %9d  %-40s %s", pct, n, k, objects[k]))
    end
  end
end
