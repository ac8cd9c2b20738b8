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
--   stats(v, k...)  hist(v, k...)  lhist(v, min, max, step, k...)
--                           aggregate by the keys k..., printed at the end
--                           (or every -I interval, then cleared) as
--                           bpftrace prints its maps; a first argument
--                           "@name" names the map
--   ustack(n), kstack(n)    the stack's first n frames
--   str(ptr [, max])        the string at ptr as the sample's event saw it
--                           (s:str; the clause's events keep their strings)
--                           (nil replaying: the recording has the pointer only)
--   printf(fmt, ...)        io.write(string.format(fmt, ...))
--   exit()                  end the run (luaprof.exit)
--
-- The maps are core/agg's (lagg.c's agg.maps): the program's count(...)
-- and the others are C functions adding to them, and one C printer
-- prints them.  A clause the plan sends to C (one aggregation call of
-- sample fields, alone on its event: olplan's why_not_c) is evaluated
-- in lagg.c (core/agg): no Lua call per sample, into the same map.  Both
-- ways give the same numbers; LUAPROF_ONELINER=lua in the environment
-- turns the C way off (the tests compare the two), and
-- LUAPROF_ONELINER=explain prints the plan on stderr (both:
-- LUAPROF_ONELINER=lua,explain).

-- luaprof -x hands the aggregations in C (lagg.c) to this chunk alone,
-- as its argument: the program's code never sees them.
local AGG = ...
local prog_text = table.remove(arg, 1) or ""
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
-- maps: core/agg's, by name (laggmap.c)

if not AGG then fail("-x: oneliner.lua runs as luaprof -x's program, not as a script") end
local MAPS = AGG.maps()

---------------------------------------------------------------------------
-- the environment of the program's Lua

local cur               -- the sample being handled
local env = {}

-- A tracepoint's fields and a probe's arguments, both s.args.
local function fields_of(x)
  return x.args
end

-- The user's or the kernel's stack of sample x as bpftrace prints a
-- stack (s.ustack, s.kstack: a line "    sym+off" per frame after a
-- newline), the first n frames only when n is given ("" when there is
-- none).
local function stack_text(kernel, x, n)
  local text = kernel and (x or cur).kstack or (x or cur).ustack
  if not n or text == "" then return text end
  local at = 1
  for _ = 1, n do
    at = text:find("\n", at + 1, true)
    if not at then return text end
  end
  return text:sub(1, at)
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
  return (cur:str(ptr, max))        -- the string alone, not the reason of a nil
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
-- the program's count(...), sum(...), ...: each adds to its map (a first
-- argument "@x" names one), in C
for op in pairs(PLAN.AGG_OPS) do env[op] = MAPS:adder(op, plan.map_name[op]) end
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

-- The program's bytes from..to with the plan's rewrites of clause c in
-- them (c.edits: ustack(N) is _B.stack(false, s, N)), each as many
-- lines long as what it replaces.
local function source(c, from, to)
  local out, at = {}, from
  for _, e in ipairs(c.edits) do
    if e.from >= from and e.to <= to then
      out[#out + 1] = prog_text:sub(at, e.from - 1)
      out[#out + 1] = e.text .. string.rep("\n", newlines(e.from, e.to))
      at = e.to + 1
    end
  end
  out[#out + 1] = prog_text:sub(at, to)
  return table.concat(out)
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
    parts[#parts + 1] = "if " .. source(c, c.cond.pos, c.cond.epos) .. " then "
    at = c.cond.epos
  end
  parts[#parts + 1] = string.rep("\n", newlines(at, c.open))
  parts[#parts + 1] = source(c, c.open + 1, c.close - 1)
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

-- each into its map, the one the program's Lua adds to
local c_aggs = {}       -- { agg =, clause = } of the clauses evaluated in C
for _, c in ipairs(handlers) do
  if c.way == "C" then
    local spec = {}
    for k, v in pairs(c.agg) do spec[k] = v end
    spec.map = MAPS:map(c.agg.map, c.agg.op, table.unpack(c.agg.lhist or {}))
    c_aggs[#c_aggs + 1] = { agg = AGG.new(spec), clause = c }
  end
end
if #handlers > 0 and #c_aggs == #handlers then AGG.only() end

-- Every map, as bpftrace prints them (after a blank line when blank and
-- one holds anything), then cleared.
local function print_maps(blank)
  io.write(MAPS:text(blank))
end

---------------------------------------------------------------------------
-- the run

-- BEGIN, END and interval clauses alone sample the CPU clock (not
-- cycles, which a VM lacks)
local setup = { events = #plan.events > 0 and plan.events or { "cpu-clock" } }
if plan.call_graph then setup.call_graph = true end
-- the strings of the events whose clauses call str(), kept at the event
-- (replaying, the recording has what it has)
if next(plan.strings) and not CLI.input then setup.strings = plan.strings end
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
