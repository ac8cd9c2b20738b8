-- top.lua: the hottest functions (or objects, commands, threads, source
-- lines) by samples, like `perf report --no-children --sort sym -n`.
--
--   luaprof run top [--sort=sym,dso] [--children] [--limit=ROWS] [-g] -- ./prog
--
-- Overhead is the share of the samples' periods (for cpu-clock, of the CPU
-- time) whose leaf falls in the row, Samples their count.  --sort picks the
-- columns rows are keyed by, as perf's --sort.  --children (with -g) adds
-- each row's inclusive share: the samples with the row anywhere on their
-- stack, each sample counted once per row however often the row appears on
-- it; rows are then ordered by it, as `perf report --children`.
-- C++ and Rust names are perf report's (no parameter lists, no clone
-- suffixes: libiberty without DMGL_PARAMS, as perf demangles); --demangle=
-- full keeps the whole signature (s.sym), none the raw name (s.mangled).

local opt = luaprof.options{
  description = "the hottest functions by samples, like perf report (--sort, --children)",
  help = [[Columns: Overhead (the share of the samples' periods whose leaf is in
the row), Samples, then the --sort keys.  With --children: Children (the
share of samples with the row anywhere on the call stack: record with -g),
Self (Overhead), Samples.  One table per event.  Sort keys as perf
report's: pid is per thread, printed TID:COMMAND; dso shows a perf map
(/tmp/perf-PID.map) as [JIT] tid PID.  luaprof's own: tid (the thread id
alone) and process (the process id).]],
  { "sort", "list", { "sym" }, "the keys of a row, in order",
    choices = { "sym", "dso", "comm", "pid", "tid", "process", "srcline" } },
  { "children", "boolean", false, "add the inclusive (children) share and sort by it" },
  { "demangle", "string", "short", "C++/Rust names: short (as perf report), full, none (raw)",
    choices = { "short", "full", "none" } },
  { "limit", "integer", 20, "rows to print per event (-A ROWS works too)", min = 0 },
}
local limit = tonumber(arg[1] or "") or opt.limit

local function basename(path)
  return path and (path:match("([^/]+)$") or path) or "[unknown]"
end

-- A frame's (or the sample's) function name as --demangle asks: perf
-- report's by default, without the parameter list and clone suffixes.
local short_names = {}          -- mangled name -> its short form
-- f's function as perf names it: demangled without parameters, once
local function short_name(f)
  local m = f.mangled
  if not m then return f.sym end
  local n = short_names[m]
  if not n then
    n = luaprof.demangle(m, false) or f.sym
    short_names[m] = n
  end
  return n
end
local function name_of(f)
  if not f.mangled or opt.demangle == "full" then return f.sym end
  if opt.demangle == "none" then return f.mangled end
  return short_name(f)
end

-- An object's name as perf report's dso column shows it: the file's base
-- name, and a perf map (/tmp/perf-PID.map) as "[JIT] tid PID"
-- (dso__set_basename).
local function dso_name(path)
  local pid = path and path:match("^/tmp/perf%-(%-?%d+)")
  if pid then return "[JIT] tid " .. math.tointeger(tonumber(pid)) end
  return basename(path)
end

-- Each sort key: its column title and its value for the sample s, at frame
-- f of its stack (nil: the sampled frame itself, s), and when the row's
-- identity is not that text, what it is instead.
local keys = {
  sym = { "Symbol", function(s, f, kernel)
    if kernel == nil then kernel = (f or s).kernel end
    local level = kernel and "[k] " or "[.] "
    local name = name_of(f or s)
    if name then return level .. name end
    -- unnamed: perf's row per address: the sample's own, the offset in
    -- the mapped file (else the address itself), which tells the objects'
    -- rows apart; a call-chain frame's (--children), the address as the
    -- chain holds it (an unwound caller's, the call's: ip - 1).  perf
    -- compares them by address alone (one row, with the level of the
    -- frame that made it first), and its "%#llx" prints 0 without 0x.
    local addr = f and (f.caller and f.ip - 1 or f.ip) or s.offset or s.ip
    local text = addr == 0 and "0000000000000000" or string.format("0x%016x", addr)
    return level .. text, text
  end },
  dso = { "Shared Object", function(s, f) return dso_name((f or s).dso) end },
  comm = { "Command", function(s) return s.comm end },
  -- perf's pid key is per thread; its command, the thread's last (filled
  -- in when printing, from last_comm)
  pid = { "Pid:Command", function(s) return tostring(s.tid) end },
  tid = { "Tid", function(s) return tostring(s.tid) end },
  process = { "Pid", function(s) return tostring(s.pid) end },
  srcline = { "Source:Line", function(s, f)
    local line
    if f then line = f.file and (f.file .. ":" .. (f.line or 0)) else line = s.srcline end
    return line and basename(line) or "??:0"
  end },
}
local sort_keys, with = {}, {}
for i, k in ipairs(opt.sort) do
  sort_keys[i], with[k] = keys[k], true
end
-- As perf, a row is a symbol (sort__sym_cmp: its object, then its start
-- and end), not a name: functions of one name in two objects, two static
-- functions of one name in one, C++ overloads (one name without their
-- parameters), and a JIT's function compiled again at another address
-- are rows of their own.  A symbol's start is taken as an offset in its
-- file (the same in every process that maps it), else as an address (JIT
-- code, the kernel).  Unnamed rows are per address only, as perf's
-- sort__sym_cmp compares them.
local hidden_sym = with.sym and (function(s, f)
  f = f or s
  if not f.sym then return "" end
  local start = f.symoff and ((f.offset or f.ip) - f.symoff) or ""
  return (with.dso and "" or f.dso or "") .. "\0" .. start
end)

local tables = {}       -- event -> { rows = { id -> row }, total, samples }
local last_comm = {}    -- tid -> its command at its last sample (--sort=pid)

-- within: what else tells the row apart (an inlined function's, the
-- function it is inlined into); kernel: the level a call-chain frame's
-- row is marked with ([k] or [.]) when other than the frame's own.
local function row_of(t, s, f, within, kernel)
  local cells, id = {}, nil
  for i, k in ipairs(sort_keys) do
    local cell, key = k[2](s, f, kernel)
    cells[i] = cell
    key = key or cell
    id = id and id .. "\0" .. key or key
  end
  if hidden_sym then id = id .. "\0" .. hidden_sym(s, f) end
  if within then id = id .. "\0" .. within end
  local r = t.rows[id]
  if not r then
    r = { cells = cells, self = 0, n = 0, children = 0 }
    t.rows[id] = r
  end
  return r
end

-- --children: a function inlined at a frame's address (on stacks unwound
-- with --call-graph dwarf: luaprof adds them where perf does) is a row of
-- its own, as perf report names it: "NAME (inlined)", NAME without
-- parameters, one row per function it is inlined into; a name that is
-- the function's own is that function's row.

local function inlined_row(t, s, f, base)
  local name = short_name(f) or "[unknown]"
  if base and name == short_name(base) then return row_of(t, s, base) end
  return row_of(t, s, { sym = name .. " (inlined)", dso = f.dso, kernel = f.kernel,
                        file = f.file, line = f.line }, base and base.sym or "")
end

function on_sample(s)
  local ev = s.event or "?"
  local t = tables[ev]
  if not t then
    t = { rows = {}, total = 0, samples = 0 }
    tables[ev] = t
  end
  if with.pid then last_comm[s.tid] = s.comm end
  local period = s.period
  t.total, t.samples = t.total + period, t.samples + 1
  local r = row_of(t, s, nil)
  r.self, r.n = r.self + period, r.n + 1
  if opt.children then
    -- every row on the stack once, the sampled frame's own row included
    local seen = { [r] = true }
    r.children = r.children + period
    -- The level of a frame outside every mapping is the one perf leaves
    -- there: perf report --children walks the chain from the root
    -- (callchain_param.order = ORDER_CALLER, builtin-report.c) with one
    -- addr_location, and fill_callchain_info (util/callchain.c) sets its
    -- level from a frame's maps only when the frame has a map: an
    -- unmapped frame keeps the level of the nearest mapped frame on its
    -- root side, or the sample's own when there is none ("[k]" for a
    -- garbage user address of a sample taken in the kernel).
    local st, base, kernel = s.stack, nil, s.kernel
    for i = #st, 1, -1 do       -- from the root: a frame's own function before those inlined in it
      local f, c = st[i], nil
      if f.dso then kernel = f.kernel end
      if not f.inlined then
        base, c = f, row_of(t, s, f, nil, kernel)
      elseif with.sym then      -- other keys: an inlined function's are its function's
        c = inlined_row(t, s, f, base)
      end
      if c and not seen[c] then
        seen[c] = true
        c.children = c.children + period
      end
    end
  end
end

local function pct(part, whole)
  return string.format("%.2f%%", whole > 0 and 100 * part / whole or 0)
end

local function print_table(ev, t, lost)
  local list = {}
  for _, r in pairs(t.rows) do
    -- ties in the order perf gives them: by the keys' text, [k]/[.] aside
    -- (perf's sort__sym_sort: named symbols first, by name; then the
    -- unnamed, by address)
    -- unnamed ones by address as perf's _sort__addr_cmp compares them,
    -- as signed 64-bit numbers: 0xfff4... before 0x0000...)
    local order = {}
    for i, c in ipairs(r.cells) do
      c = c:gsub("^%[[k.]%] ", "")
      if c:match("^0x%x+$") or c == "0000000000000000" then
        c = string.format("\255%016x", math.tointeger(tonumber(c)) ~ math.mininteger)
      end
      order[i] = c
    end
    r.order = table.concat(order, "\0")
    list[#list + 1] = r
  end
  local field = opt.children and "children" or "self"
  table.sort(list, function(a, b)
    if a[field] ~= b[field] then return a[field] > b[field] end
    if a.self ~= b.self then return a.self > b.self end
    return a.order < b.order
  end)
  local headers = opt.children and { "Children", "Self", "Samples" } or { "Overhead", "Samples" }
  for _, k in ipairs(sort_keys) do headers[#headers + 1] = k[1] end
  local rows = {}
  for i = 1, math.min(limit, #list) do
    local r = list[i]
    local row = opt.children and { pct(r.children, t.total), pct(r.self, t.total), r.n }
                or { pct(r.self, t.total), r.n }
    for j, c in ipairs(r.cells) do
      if opt.sort[j] == "pid" then c = c .. ":" .. (last_comm[tonumber(c)] or "") end
      row[#row + 1] = c
    end
    rows[i] = row
  end
  print(string.format("# %d samples of event '%s', %d lost", t.samples, ev, lost))
  luaprof.fmt.print_table(rows, { headers = headers })
end

function on_end(info)
  local events = {}
  for ev in pairs(tables) do events[#events + 1] = ev end
  table.sort(events)
  if #events == 0 then print(string.format("# 0 samples, %d lost", info.lost)) end
  for i, ev in ipairs(events) do
    if i > 1 then print() end
    print_table(ev, tables[ev], info.lost)
  end
end
