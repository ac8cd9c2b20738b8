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
(/tmp/perf-PID.map) as [JIT] tid PID; with sym, a row is a symbol (its
object and start), so functions of one name at two places (C++
overloads, a JIT function compiled again) are two rows, and rows of equal
share come in perf's order.  luaprof's own: tid (the thread id
alone) and process (the process id).]],
  { "sort", "list", { "sym" }, "the keys of a row, in order",
    choices = { "sym", "dso", "comm", "pid", "tid", "process", "srcline" } },
  { "children", "boolean", false, "add the inclusive (children) share and sort by it" },
  { "demangle", "string", "short", "C++/Rust names: short (as perf report), full, none (raw)",
    choices = { "short", "full", "none" } },
  { "limit", "integer", 20, "rows to print per event (-A ROWS works too)", min = 0 },
}
local limit = tonumber(arg[1] or "") or opt.limit

local names = require "perfnames"
local basename, short_name, dso_name = names.basename, names.short_name, names.dso_name

-- A frame's (or the sample's) function name as --demangle asks: perf
-- report's by default, without the parameter list and clone suffixes.
local function name_of(f)
  if not f.mangled or opt.demangle == "full" then return f.sym end
  if opt.demangle == "none" then return f.mangled end
  return short_name(f)
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
    local file, line = (f or s).file, (f or s).line
    return file and basename(file .. ":" .. (line or 0)) or "??:0"
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

-- perf's order for rows that tie (--sort=sym alone).  perf report keeps
-- its rows (hist entries) in a red-black tree keyed by sort__sym_cmp and
-- prints them stably sorted by share and name (sort__sym_sort, which finds
-- every two unnamed rows equal), so rows of equal share come in the order
-- of that tree.  And sort__sym_cmp is no order: two unnamed rows compare
-- by address, an unnamed and a named one by object (sort__dso_cmp: the
-- names swapped, no object first) and then by symbol (none first), two
-- named ones by object, then by start (an inlined function's: by name
-- first).  So unnamed rows lie between named ones by where they were
-- inserted, not by address alone.  The model below inserts each row once,
-- when first met, as perf's hists__add_entry does (a textbook red-black
-- insertion, as the kernel's lib/rbtree.c), and ties are broken by the
-- rows' places in it.  Differences (a - b) are 64-bit and signed, as
-- perf's (int64_t) casts.
local perf_tree = #opt.sort == 1 and with.sym
local function cmp_null(l, r)
  if l == nil and r == nil then return 0 end
  return l == nil and -1 or 1
end
-- sort__sym_cmp(l, r): < 0 sends r left of l
local function entry_cmp(l, r)
  if not l.named and not r.named then return r.ip - l.ip end
  if not l.dso or not r.dso then
    local c = cmp_null(l.dso, r.dso)
    if c ~= 0 then return c end
  elseif l.dso ~= r.dso then
    return r.dso < l.dso and -1 or 1
  end
  if not l.named or not r.named then return cmp_null(l.named or nil, r.named or nil) end
  if l.inlined or r.inlined then
    if l.name ~= r.name then return l.name < r.name and -1 or 1 end
    if l.start == r.start then return 0 end
  end
  return r.start - l.start
end
local function rotate(t, x, right)      -- x's child on the other side comes up
  local y, inner
  if right then y = x.left; inner = y.right else y = x.right; inner = y.left end
  if right then x.left = inner else x.right = inner end
  if inner then inner.parent = x end
  local p = x.parent
  if not p then t.root = y elseif p.left == x then p.left = y else p.right = y end
  y.parent = p
  if right then y.right = x else y.left = x end
  x.parent = y
end
-- perf's __hists__add_entry: the row of entry e found on the way down
-- the tree, or a new one (made by new_row) linked where the walk ended and
-- the tree rebalanced.  As perf, a walk may miss a row that compares equal
-- to e (the comparison being no order) and make a second one: perf's rows
-- of one function split in two.
local function tree_find_or_add(t, e, new_row)
  local p, x, left = nil, t.root, false
  while x do
    local c = entry_cmp(x.e, e)
    if c == 0 then return x.row end
    p, left = x, c < 0
    if left then x = x.left else x = x.right end
  end
  local row = new_row()
  local z = { e = e, row = row, parent = p, red = true }
  t.count = (t.count or 0) + 1
  if not p then t.root = z elseif left then p.left = z else p.right = z end
  while z.parent and z.parent.red do
    local q = z.parent
    local g = q.parent
    local qleft = g.left == q
    local u, inner
    if qleft then u, inner = g.right, q.right else u, inner = g.left, q.left end
    if u and u.red then
      q.red, u.red, g.red = false, false, true
      z = g
    else
      if z == inner then
        z = q
        rotate(t, z, not qleft)
        q = z.parent
      end
      q.red, g.red = false, true
      rotate(t, g, qleft)
    end
  end
  t.root.red = false
  return row
end
-- The places of the rows in the tree's order: row -> 1, 2, ...
local function tree_places(t)
  local places, n = {}, 0
  local function walk(x)
    if not x then return end
    walk(x.left)
    n = n + 1
    places[x.row] = n
    walk(x.right)
  end
  walk(t.root)
  return places
end
-- The entry perf makes for row r's first frame f (nil: the sample's own).
local function perf_entry(s, f, addr)
  local inl = f and f.inl_start
  f = f or s
  local e = { named = f.sym ~= nil, ip = addr, inlined = inl ~= nil,
              dso = f.dso and dso_name(f.dso) or nil }
  if e.named then
    e.name = short_name(f) or f.sym
    e.start = inl or (f.symoff and (f.offset or f.ip) - f.symoff) or 0
  end
  return e
end

-- within: what else tells the row apart (an inlined function's, the
-- function it is inlined into); kernel: the level a call-chain frame's
-- row is marked with ([k] or [.]) when other than the frame's own.
local function row_of(t, s, f, within, kernel)
  local cells, id, addr = {}, nil, nil
  for i, k in ipairs(sort_keys) do
    local cell, key = k[2](s, f, kernel)
    addr = addr or tonumber(key)
    cells[i] = cell
    key = key or cell
    id = id and id .. "\0" .. key or key
  end
  if hidden_sym then id = id .. "\0" .. hidden_sym(s, f) end
  if within then id = id .. "\0" .. within end
  local function new_row()
    local r = { cells = cells, self = 0, n = 0, children = 0 }
    t.list[#t.list + 1] = r
    return r
  end
  if perf_tree then
    -- the row perf's tree gives: looked up again only when the tree has
    -- grown since the last lookup of this id
    local tree, c = t.tree, t.rows[id]
    if c and c.n == tree.count then return c.row, id end
    local r = tree_find_or_add(tree, perf_entry(s, f, addr), new_row)
    t.rows[id] = { n = tree.count, row = r }
    return r, id
  end
  local r = t.rows[id]
  if not r then
    r = new_row()
    t.rows[id] = r
  end
  return r, id
end

-- --children: a function inlined at a frame's address (on stacks unwound
-- with --call-graph dwarf: luaprof adds them where perf does) is a row of
-- its own, as perf report names it: "NAME (inlined)", NAME without
-- parameters, one row per function it is inlined into; a name that is
-- the function's own is that function's row.

local function inlined_row(t, s, f, base)
  local name = short_name(f) or "[unknown]"
  if base and name == short_name(base) then return row_of(t, s, base) end
  local at = base and base.symoff and (base.offset or base.ip) - base.symoff or 0
  return row_of(t, s, { sym = name .. " (inlined)", dso = f.dso, kernel = f.kernel,
                        file = f.file, line = f.line, inl_start = at }, base and base.sym or "")
end

function on_sample(s)
  local ev = s.event or "?"
  local t = tables[ev]
  if not t then
    t = { rows = {}, list = {}, total = 0, samples = 0, tree = { count = 0 } }
    tables[ev] = t
  end
  if with.pid then last_comm[s.tid] = s.comm end
  local period = s.period
  t.total, t.samples = t.total + period, t.samples + 1
  local r, rid = row_of(t, s, nil)
  r.self, r.n = r.self + period, r.n + 1
  if opt.children then
    -- every row on the stack once, the sampled frame's own row included;
    -- as perf (he_cache), a frame whose entry equals one met before on
    -- the stack is skipped even when perf's tree gave it another row
    local seen = { [r] = true, [rid] = true }
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
      local f, c, cid = st[i], nil, nil
      if f.dso then kernel = f.kernel end
      if not f.inlined then
        base = f
        c, cid = row_of(t, s, f, nil, kernel)
      elseif with.sym then      -- other keys: an inlined function's are its function's
        c, cid = inlined_row(t, s, f, base)
      end
      if c and not seen[c] and not seen[cid] then
        seen[c], seen[cid] = true, true
        c.children = c.children + period
      end
    end
  end
end

local pct = require("luaprof.fmt").pct

local function print_table(ev, t, lost)
  local list = {}
  for _, r in ipairs(t.list) do
    -- ties in the order perf gives them: by the keys' text, [k]/[.] aside
    -- (perf's sort__sym_sort: named symbols first, by name; then the
    -- unnamed, by address as perf's _sort__addr_cmp compares them, as
    -- signed 64-bit numbers: 0xfff4... before 0x0000...); with --sort=sym
    -- alone, rows that sort__sym_sort finds equal (the unnamed, and
    -- symbols of one name) in the order of perf's tree (see perf_tree)
    local order = {}
    for i, c in ipairs(r.cells) do
      c = c:gsub("^%[[k.]%] ", "")
      if c:match("^0x%x+$") or c == "0000000000000000" then
        c = perf_tree and "\255" or
            string.format("\255%016x", math.tointeger(tonumber(c)) ~ math.mininteger)
      end
      order[i] = c
    end
    r.order = table.concat(order, "\0")
    list[#list + 1] = r
  end
  local field = opt.children and "children" or "self"
  local places = perf_tree and tree_places(t.tree) or {}
  table.sort(list, function(a, b)
    if a[field] ~= b[field] then return a[field] > b[field] end
    if a.self ~= b.self then return a.self > b.self end
    if a.order ~= b.order or not perf_tree then return a.order < b.order end
    return places[a] < places[b]
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
