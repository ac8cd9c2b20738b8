-- oneliner, the front end of `luaprof -x PROGRAM` (no public module): it
-- runs as the script of the run, with PROGRAM as arg[1].  A compiler in
-- three steps, each its own module:
--
--   parse  (olparse.lua)  the program into clauses, their conditions and
--                         bodies into Lua trees with positions;
--   plan   (olplan.lua)   per clause: its events, the sample's names it
--                         uses, its aggregations, C or Lua and why; every
--                         name checked before the first sample (against
--                         the events' formats: live here, replaying in
--                         on_start, against the recording's);
--   run    (here)         the clauses compiled from the user's own text
--                         (so that Lua's errors name the user's lines),
--                         the C aggregations made, the hooks set.
--
--   PROGRAM := CLAUSE...
--   CLAUSE  := SPEC[,SPEC...] [/COND/] { LUA }
--   SPEC    := BEGIN | END | EVENT (as -e takes it) | a bpftrace probe
--              (tracepoint:, profile:, software:, hardware:, interval:,
--              uprobe:, uretprobe:, usdt:)
--
-- LUA runs for every sample of the clause's events (when COND, a Lua
-- expression, is true), with `s` the sample and these names in scope:
--   comm pid tid cpu nsecs sym args retval ustack kstack event   the sample's
--   t                       a table of your own, kept across samples
--   count(k...)  sum(v, k...)  min(v, k...)  max(v, k...)  avg(v, k...)
--   hist(v, k...)           aggregate by the keys k..., printed at the end
--                           (or every -I interval, then cleared) as
--                           bpftrace prints its maps; a first argument
--                           "@name" names the map
--   str(ptr [, max])        the string at ptr in the sample's live process
--                           (nil replaying: the recording has the pointer only)
--   printf(fmt, ...)        io.write(string.format(fmt, ...))
--   exit()                  end the run (luaprof.exit)
--
-- A clause the plan sends to C (one count/sum/min/max/hist call of
-- sample fields, alone on its event: olplan's why_not_c) is evaluated in
-- lagg.c (core/agg): no Lua call per sample.  Both ways give the same
-- numbers; LUAPROF_ONELINER=lua in the environment turns the C way off
-- (the tests compare the two), and LUAPROF_ONELINER=explain prints the
-- plan on stderr (both: LUAPROF_ONELINER=lua,explain).

-- luacheck: globals _ONELINER_AGG
local prog_text = table.remove(arg, 1) or ""
local AGG = _ONELINER_AGG
_ONELINER_AGG = nil
-- LUAPROF_ONELINER: "lua", "explain", or both ("lua,explain")
local MODE = {}
for w in (os.getenv("LUAPROF_ONELINER") or ""):gmatch("[^,%s]+") do MODE[w] = true end
local P = require "olparse"
local PLAN = require "olplan"

-- One line, and exit 255.  What it quotes of the program ('name') is
-- shortened by luaprof's one rule (luaprof.shown): a 5000-character name
-- is its start, its length and its end.
local function fail(msg)
  msg = tostring(msg):gsub("'([^'\n]+)'", function(q) return "'" .. luaprof.shown(q) .. "'" end)
  io.stderr:write("luaprof: ", msg, "\n")
  os.exit(255)
end

---------------------------------------------------------------------------
-- errors at their place

-- The condition or body of the fixed program around byte pos, as the
-- user would write it: "/args.ret ~= 0/", "{ count(comm) }".
local function fixed_text(src, pos)
  local ok, prog = pcall(P.program, src)
  if not ok then return nil end
  for _, c in ipairs(prog.clauses) do
    if c.cond_open and pos > c.cond_open and pos < c.cond_close then
      return "/" .. src:sub(c.cond_open + 1, c.cond_close - 1):match("^%s*(.-)%s*$") .. "/"
    elseif pos > c.open and pos < c.close then
      local body = src:sub(c.open + 1, c.close - 1):gsub("%s+", " "):match("^%s*(.-)%s*$")
      if #body > 72 then
        local at = math.max(1, math.min(#body - 60, pos - c.open - 30))
        body = (at > 1 and "..." or "") .. body:sub(at, at + 60) .. (at + 60 < #body and "..." or "")
      end
      return "{ " .. body .. " }"
    end
  end
  return nil
end

-- The one line for err, an olparse/olplan error: "-x:LINE:COL: MSG", and
-- with a fix (a token of bpftrace's), the fixed condition or body, every
-- such token of it fixed.
local function report(err)
  if not P.is_error(err) then error(err, 0) end
  local line, col = P.where(prog_text, err.pos)
  local msg = err.msg
  if err.fix then
    local src, fix = prog_text, err.fix
    local first = fix.from
    for _ = 1, 16 do
      src = src:sub(1, fix.from - 1) .. fix.text .. src:sub(fix.to + 1)
      local ok, e = pcall(P.program, src)
      if ok or not P.is_error(e) or not e.fix then break end
      fix = e.fix
    end
    local shown = fixed_text(src, first)
    if shown then msg = msg .. ": " .. shown end
  end
  fail(string.format("-x:%d:%d: %s", line, col, msg))
end

local function warn(pos, msg)
  local line, col = P.where(prog_text, pos)
  io.stderr:write(string.format("luaprof: -x:%d:%d: %s\n", line, col, msg))
end

---------------------------------------------------------------------------
-- maps: name -> { op =, root = (the tree of entries), list = { { keys =, value =, hist =, n = }, ... } }

local maps, map_names = {}, {}
local map_name = {}             -- function -> the map it aggregates into unnamed

-- A map's entries hang from a tree of tables, one level per key (so that
-- finding an entry makes no string or table), and are listed in m.list.
local function find_entry(m, keys, n, create)
  local node = m.root
  for i = 1, n - 1 do
    local k = keys[i]
    local nxt = node[k]
    if not nxt then
      if not create then return nil end
      nxt = {}
      node[k] = nxt
    end
    node = nxt
  end
  local k = keys[n] == nil and true or keys[n]        -- no key: one entry
  local e = node[k]
  if not e and create then
    e = { keys = { table.unpack(keys, 1, n) }, value = 0, n = 0, new = true }
    node[k] = e
    m.list[#m.list + 1] = e
  end
  return e
end

-- The map of function op: name ("@reads") when the call gives one, else
-- the function's (map_name).  A map holds one function's results.
local function get_map(op, name)
  name = name or map_name[op]
  local m = maps[name]
  if not m then
    m = { op = op, root = {}, list = {} }
    maps[name] = m
    map_names[#map_names + 1] = name
  elseif m.op ~= op then
    error(name .. " holds " .. m.op .. "(): it cannot take " .. op .. "() too", 3)
  end
  return m
end

-- The bucket of integer v (nil when v is no integer: 1.5, 0/0).
local bucket = AGG and AGG.bucket or function(v)
  v = math.tointeger(v)
  if not v then return nil end
  if v < 0 then return 0 elseif v == 0 then return 1 end
  local b = 2
  while v > 1 do v = v >> 1; b = b + 1 end
  return b
end

-- Folds value v into the entry of keys (n of them) of map m.
local function fold(m, v, keys, n)
  for i = 1, n do
    if keys[i] == nil then return end   -- a missing key: left out, as in C
  end
  local e = find_entry(m, keys, n, true)
  local op = m.op
  if e.new then
    e.new = nil
    if op == "hist" then e.hist = {} end
    if op == "min" or op == "max" then e.value = v end
  end
  if op == "count" then e.value = e.value + 1
  elseif op == "sum" then e.value = e.value + v
  elseif op == "min" then if v < e.value then e.value = v end
  elseif op == "max" then if v > e.value then e.value = v end
  elseif op == "avg" then e.value = e.value + v; e.n = e.n + 1
  else
    local b = bucket(v)
    if not b then       -- level 3: fold, add (tail-called by hist), the program
      error(string.format("hist's value %s is not an integer", tostring(v)), 3)
    end
    e.hist[b] = (e.hist[b] or 0) + 1
    e.value = e.value + 1
  end
end

-- Entries a C aggregation (lagg.c) made, merged into map m.
local function merge_c(m, agg)
  for _, ce in ipairs(agg:entries()) do
    local e = find_entry(m, ce.keys, #ce.keys, true)
    if e.new then
      e.new, e.value, e.hist = nil, ce.value, ce.hist
    elseif m.op == "count" or m.op == "sum" then e.value = e.value + ce.value
    elseif m.op == "min" then e.value = math.min(e.value, ce.value)
    elseif m.op == "max" then e.value = math.max(e.value, ce.value)
    else
      e.value = e.value + ce.value
      for b, c in pairs(ce.hist) do e.hist[b] = (e.hist[b] or 0) + c end
    end
  end
  agg:clear()
end

---------------------------------------------------------------------------
-- printing, as bpftrace prints its maps

local function key_text(keys)
  if #keys == 0 then return "" end
  local parts = {}
  for i, k in ipairs(keys) do parts[i] = tostring(k) end
  return "[" .. table.concat(parts, ", ") .. "]"
end

local function sort_key(e)
  local parts = {}
  for i, k in ipairs(e.keys) do parts[i] = tostring(k) end
  return table.concat(parts, "\0")
end

local SUFFIX = { [0] = "", "K", "M", "G", "T", "P", "E" }

local function power(e)         -- 2^e as bpftrace labels it: 512, 1K, 2M
  return tostring(1 << (e % 10)) .. SUFFIX[e // 10]
end

local function bucket_label(b)
  if b == 0 then return "(..., 0)" end
  if b == 1 then return "[0]" end
  if b == 2 then return "[1]" end
  return "[" .. power(b - 2) .. ", " .. power(b - 1) .. ")"
end

local function print_hist(h)
  local lo, hi, max = math.huge, -1, 0
  for b, c in pairs(h) do
    if c > 0 then
      if b < lo then lo = b end
      if b > hi then hi = b end
      if c > max then max = c end
    end
  end
  for b = lo, hi do
    local c = h[b] or 0
    local w = max > 0 and c * 52 // max or 0
    io.write(string.format("%-16s%8d |%s%s|\n", bucket_label(b), c, string.rep("@", w),
                           string.rep(" ", 52 - w)))
  end
end

local function print_map(name, m)
  local list = {}
  for _, e in ipairs(m.list) do
    e.sk = sort_key(e)
    if m.op == "avg" then
      -- C's division, as bpftrace's: toward zero
      local q = e.n > 0 and e.value // e.n or 0
      if q < 0 and q * e.n ~= e.value then q = q + 1 end
      e.shown = q
    else
      e.shown = e.value
    end
    list[#list + 1] = e
  end
  table.sort(list, function(a, b)
    if a.shown ~= b.shown then return a.shown < b.shown end
    return a.sk < b.sk
  end)
  for _, e in ipairs(list) do
    if m.op == "hist" then
      io.write(name, key_text(e.keys), ": \n")
      print_hist(e.hist)
      io.write("\n")
    else
      io.write(name, key_text(e.keys), ": ", tostring(e.shown), "\n")
    end
  end
end

-- Prints every map (after a blank line when blank and one holds
-- anything) and clears it.
local function print_tables(blank)
  table.sort(map_names)
  local any = false
  for _, name in ipairs(map_names) do
    if #maps[name].list > 0 then any = true end
  end
  if any and blank then io.write("\n") end
  for _, name in ipairs(map_names) do
    print_map(name, maps[name])
    maps[name].root, maps[name].list = {}, {}
  end
end

---------------------------------------------------------------------------
-- the environment of the program's Lua

local cur               -- the sample being handled
local env = {}

-- A tracepoint's fields and a probe's arguments, both s.args.
local function fields_of(x)
  return x.args
end

local function stack_text(kernel, x)
  local out = { "\n" }
  for _, f in ipairs((x or cur).stack or {}) do
    if (f.kernel and true or false) == kernel then
      out[#out + 1] = "    " .. (f.sym and (f.sym .. "+" .. (f.symoff or 0)) or
                                string.format("0x%x", f.ip)) .. "\n"
    end
  end
  return table.concat(out)
end

-- sym: the sample's function, or without one its address as perf report
-- names it (the offset in its file), so that count(sym) is its count
local function sym_of(smp)
  local a = smp.offset or smp.ip
  return smp.sym or (a == 0 and "0000000000000000" or string.format("0x%016x", a))
end

local builtins = {
  s = function() return cur end,
  comm = function() return cur.comm end,
  pid = function() return cur.pid end,
  tid = function() return cur.tid end,
  cpu = function() return cur.cpu end,
  nsecs = function() return cur.time end,
  sym = function() return sym_of(cur) end,
  event = function() return cur.event end,
  args = function() return fields_of(cur) end,
  retval = function() return cur.retval end,
  ustack = function() return stack_text(false) end,
  kstack = function() return stack_text(true) end,
}

setmetatable(env, { __index = function(_, k)
  local b = builtins[k]
  if b then
    if not cur then error(k .. " is a sample's: use it in an event's clause, not BEGIN or END", 2) end
    return b()
  end
  return _G[k]
end })

env.t = {}
env.exit = luaprof.exit

function env.printf(fmt, ...)
  io.write(string.format(fmt, ...))
end

function env.str(ptr, max)
  if not cur then error("str() reads the sample's process: use it in an event's clause", 2) end
  if ptr == nil then return nil end
  return luaprof.read_string(cur.pid, ptr, max)
end

local AGG_OPS = { count = true, sum = true, min = true, max = true, avg = true, hist = true }
local keybuf = {}

local function add(m, op, n, ...)
  if op == "count" then
    -- an entry of one or two keys seen before: counted here, without
    -- fold's walk (the common case: counting by comm, by sym)
    local a, b = ...
    if n == 1 and a ~= nil then
      local e = m.root[a]
      if e then e.value = e.value + 1; return end
    elseif n == 2 and a ~= nil and b ~= nil then
      local node = m.root[a]
      local e = node and node[b]
      if e then e.value = e.value + 1; return end
    end
    keybuf[1], keybuf[2], keybuf[3] = ...
    for i = 4, n do keybuf[i] = select(i, ...) end
    fold(m, 1, keybuf, n)
  else
    local v, a, b, c = ...
    if v == nil then return end       -- a missing value: left out, as in C
    keybuf[1], keybuf[2], keybuf[3] = a, b, c
    for i = 5, n do keybuf[i - 1] = select(i, ...) end
    fold(m, v, keybuf, n - 1)
  end
end

-- Whether a first argument x names a map ("@reads"), remembered per
-- value: count(comm) then costs one table read, not two C calls (type and
-- byte: 500 ns a call became 280).  The values are a map's first keys, so
-- this holds no more of them than the maps do.
local NAMES = setmetatable({}, { __index = function(t, x)
  local v = type(x) == "string" and x:byte(1) == 64
  if x == x then t[x] = v end         -- NaN is no key
  return v
end })

for op in pairs(AGG_OPS) do
  local m
  env[op] = function(...)
    local a = ...
    if a ~= nil and NAMES[a] then     -- count("@reads", comm): a map of its own
      return add(get_map(op, a), op, select("#", ...) - 1, select(2, ...))
    end
    m = m or get_map(op)
    return add(m, op, select("#", ...), ...)
  end
end

---------------------------------------------------------------------------
-- parse and plan

local CLI = AGG and AGG.cli() or {}
local plan
do
  local ok, prog = pcall(P.program, prog_text)
  if not ok then report(prog) end
  local ctx = { rate = CLI.rate, interval = CLI.interval, replay = CLI.replay, lua_only = MODE.lua,
                c = AGG ~= nil, globals = _G,
                describe = AGG and not CLI.replay and AGG.describe or nil }
  ok, plan = pcall(PLAN.plan, prog, ctx)
  if not ok then report(plan) end
end
for op, name in pairs(plan.map_name) do map_name[op] = name end
if MODE.explain then io.stderr:write(PLAN.explain(plan)) end

---------------------------------------------------------------------------
-- compiling: each clause a function made of the user's own text, at the
-- lines it has in the program (the chunk is named "-x", so that Lua's
-- messages read "-x:LINE: ..."), with the sample's names it uses as
-- locals read once a call (not through the environment's __index)

local B = { stack = stack_text, sym = sym_of }
local LOCAL_OF = { ustack = "_B.stack(false, s)", kstack = "_B.stack(true, s)", sym = "_B.sym(s)" }

local function newlines(from, to)
  return select(2, prog_text:sub(from, to):gsub("\n", "\n"))
end

local function compile(c)
  local head = "local _B = ...; return function(" .. (c.kind == "event" and "s" or "") .. ") "
  if #c.locals > 0 then
    local vals = {}
    for i, n in ipairs(c.locals) do vals[i] = LOCAL_OF[n] or "s." .. PLAN.SAMPLE_FIELD[n] end
    head = head .. "local " .. table.concat(c.locals, ", ") .. " = " .. table.concat(vals, ", ") .. "; "
  end
  local parts = { head }
  local at = 1                          -- the program's byte the chunk's line is at
  if c.cond then
    parts[#parts + 1] = string.rep("\n", newlines(at, c.cond.pos))
    parts[#parts + 1] = "if " .. prog_text:sub(c.cond.pos, c.cond.epos) .. " then "
    at = c.cond.epos
  end
  parts[#parts + 1] = string.rep("\n", newlines(at, c.open))
  parts[#parts + 1] = prog_text:sub(c.open + 1, c.close - 1)
  parts[#parts + 1] = c.cond and "\nend end" or "\nend"
  local f, err = load(table.concat(parts), "=-x", "t", env)
  if not f then fail(err) end
  return f(B)
end

local begins, ends, intervals, handlers = {}, {}, {}, {}
for _, c in ipairs(plan.clauses) do
  c.fn = compile(c)
  local list = c.kind == "begin" and begins or c.kind == "end" and ends or c.kind == "interval" and intervals or
               handlers
  list[#list + 1] = c
end

---------------------------------------------------------------------------
-- the C aggregations

local c_aggs = {}       -- { agg =, map =, clause = } of the clauses evaluated in C
for _, c in ipairs(handlers) do
  if c.way == "C" then
    c_aggs[#c_aggs + 1] = { agg = AGG.new(c.agg), map = get_map(c.agg.op, c.agg.map), clause = c }
  end
end
if #handlers > 0 and #c_aggs == #handlers then AGG.only() end

local print_maps = function(blank)
  for _, ca in ipairs(c_aggs) do merge_c(ca.map, ca.agg) end
  print_tables(blank)
end

---------------------------------------------------------------------------
-- the run

-- BEGIN, END and interval clauses alone sample the CPU clock (not
-- cycles, which a VM lacks)
local setup = { events = #plan.events > 0 and plan.events or { "cpu-clock" } }
if plan.call_graph then setup.call_graph = true end
if plan.tick_ms and not CLI.interval then setup.interval = plan.tick_ms end
do
  local ok, err = pcall(luaprof.setup, setup)
  if not ok then fail("-x: " .. tostring(err):gsub("^luaprof%.setup: ", "")) end
end

-- The clauses of a sample's event, found once per event name.
local by_event = {}
local replaying = CLI.replay

local function clauses_of(name)
  local list = by_event[name]
  if list then return list end
  list = {}
  for _, c in ipairs(handlers) do
    for _, e in ipairs(c.events) do
      if PLAN.event_matches(e.match, name) then
        list[#list + 1] = c
        break
      end
    end
  end
  -- live, an event may be named otherwise than asked (cycles falls back
  -- to cpu-clock): a program of one clause takes every sample
  if #list == 0 and #handlers == 1 and not replaying then list[1] = handlers[1] end
  by_event[name] = list
  return list
end

function on_start(info)
  replaying = info.file ~= nil
  if not replaying then return end
  -- the clauses' names against the recording's events, before its first sample
  local ok, err = pcall(PLAN.check_recording, plan, AGG and AGG.recording() or {}, warn)
  if not ok then report(err) end
end

if #handlers > 0 then
  function on_sample(s)
    cur = s
    local list = clauses_of(s.event or "")
    for i = 1, #list do list[i].fn(s) end
    cur = nil
  end
  -- an event named exactly gets its own handler: no s.event to read
  on_event = {}
  for _, c in ipairs(handlers) do
    for _, e in ipairs(c.events) do
      local ev = e.match
      if not ev:find("[*?%[]") and not on_event[ev] then
        local list
        on_event[ev] = function(s)
          list = list or clauses_of(ev)
          cur = s
          for i = 1, #list do list[i].fn(s) end
          cur = nil
        end
      end
    end
  end
end

-- Interval clauses run at the ticks (-I's, or their own period's) that
-- pass their time; -I also prints and clears the maps.
local ticks = 0
for _, c in ipairs(intervals) do c.due = c.interval_ms end

function on_interval(info)
  if #intervals > 0 and not info.last then
    ticks = ticks + 1
    local now = ticks * plan.tick_ms
    for _, c in ipairs(intervals) do
      if now >= c.due then
        repeat c.due = c.due + c.interval_ms until c.due > now
        c.fn()
      end
    end
  end
  if CLI.interval then print_maps(false) end
end

function on_end()
  for _, c in ipairs(ends) do c.fn() end
  print_maps(true)
  if MODE.explain then
    for _, ca in ipairs(c_aggs) do
      io.stderr:write(string.format("luaprof: -x clause %d: %s\n", ca.clause.n,
                                    ca.agg:active() and "evaluated in C" or "evaluated in Lua"))
    end
  end
end

for _, c in ipairs(begins) do c.fn() end
