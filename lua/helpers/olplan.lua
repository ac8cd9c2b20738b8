-- olplan: the planner of `luaprof -x` programs (no public module; the
-- front end is oneliner.lua, the parser olparse.lua).  From the parsed
-- program and what the run knows of its events, it makes the plan:
--
--   local plan = olplan.plan(prog, ctx)
--   plan.clauses[i] = { n =, kind = "event" | "begin" | "end" | "interval",
--     events = { { text =, spec =, match =, kind =, facts = }, ... },
--     interval_ms =, cond =, body =, locals = { NAME, ... },
--     aggs = { { op =, map =, pos =, args =, lhist = { MIN, MAX, STEP } }, ... },
--     edits = { { from =, to =, text = }, ... } (ustack(N): _B.stack(false, s, N)),
--     way = "C" | "Lua", why = TEXT, agg = SPEC (agg.new's, the C way,
--     with map = the map's name and lhist) }
--   plan.events     the events to sample (luaprof.setup's), in order
--   plan.call_graph whether a clause names ustack or kstack
--   plan.strings    { [-e item] = true } for each event of a clause that
--                   calls str(): luaprof.setup's strings, which keeps the
--                   strings of those events at the event
--   plan.tick_ms    the interval clauses' (or -I's) period, or nil
--   plan.map_name   function name -> map name ("@", or "@count", ...)
--
-- and checks, on the trees, every name before the first sample: each
-- global name against the sample's, the helpers', Lua's and the
-- program's own; each args.NAME against its events' fields (or a
-- probe's arguments); each aggregation's arguments against its shape,
-- and each map's calls against each other (one function, one shape of
-- key, as bpftrace's maps); each ustack(N) and kstack(N).
-- A mistake raises olparse's error { pos =, msg = } at its place.
--
-- ctx: { describe = function(EV, fields) (agg.describe: nil when
-- replaying), rate = BOOL (-F or -c given), interval = MS (-I),
-- replay = BOOL, lua_only = BOOL, c = BOOL (C aggregations exist),
-- globals = a table of the names Lua has (_G) }.

local P = require "olparse"

local M = {}

local raise = P.raise

---------------------------------------------------------------------------
-- names

-- What a clause of an event has in scope (the sample's).
local SAMPLE = { s = "the sample", comm = "string", pid = "integer", tid = "integer", cpu = "integer",
                 nsecs = "integer", sym = "string", event = "string", args = "table", retval = "integer",
                 ustack = "string", kstack = "string" }
M.SAMPLE = SAMPLE

-- What s.FIELD each of them reads, for the clause's locals.
M.SAMPLE_FIELD = { comm = "comm", pid = "pid", tid = "tid", cpu = "cpu", nsecs = "time", sym = "sym",
                   event = "event", args = "args", retval = "retval" }

-- The functions and tables of every clause.
local HELPERS = { t = true, count = true, sum = true, min = true, max = true, avg = true, hist = true,
                  stats = true, lhist = true, str = true, printf = true, exit = true }
M.HELPERS = HELPERS

local AGG_OPS = { count = true, sum = true, min = true, max = true, avg = true, hist = true, stats = true,
                  lhist = true }
M.AGG_OPS = AGG_OPS

M.MAX_KEYS = 32         -- a map's key parts at most (core/agg's LP_AGGMAP_MAX_KEYS)
M.LHIST_MAX = 1000      -- lhist's buckets at most, as bpftrace's
M.STACK_MAX = 1024      -- ustack(N)'s frames at most, as bpftrace's

-- bpftrace's names that luaprof spells otherwise, or lacks.
local BPFTRACE = {
  probe = "bpftrace's probe is event here",
  func = "bpftrace's func is sym here (the function sampled)",
  uid = "luaprof's samples carry no user id (bpftrace's uid): a tracepoint's field or -p chooses whom",
  gid = "luaprof's samples carry no group id (bpftrace's gid)",
  username = "luaprof's samples carry no user name (bpftrace's username)",
  cgroup = "luaprof's samples carry no cgroup (bpftrace's cgroup)",
  curtask = "luaprof has no curtask: comm, pid and tid are the sample's thread",
  elapsed = "luaprof has no elapsed: nsecs is the sample's time",
  rand = "bpftrace's rand is math.random() here",
  cpid = "luaprof has no cpid: the command's pid is on_start's info.pid",
  ncpus = "luaprof has no ncpus",
  delete = "luaprof's maps have no delete(): -I prints and clears them",
  clear = "luaprof's maps have no clear(): -I prints and clears them",
  zero = "luaprof's maps have no zero(): -I prints and clears them",
  ksym = "bpftrace's ksym(): sym is the sampled function's name here",
  usym = "bpftrace's usym(): sym is the sampled function's name here",
}

-- The Damerau-Levenshtein distance (adjacent swaps cost one) of a and b.
function M.distance(a, b)
  local la, lb = #a, #b
  local d = {}
  for i = 0, la do d[i] = { [0] = i } end
  for j = 0, lb do d[0][j] = j end
  for i = 1, la do
    local ai = a:byte(i)
    for j = 1, lb do
      local bj = b:byte(j)
      local cost = ai == bj and 0 or 1
      local v = math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
      if i > 1 and j > 1 and ai == b:byte(j - 1) and a:byte(i - 1) == bj then
        v = math.min(v, d[i - 2][j - 2] + 1)
      end
      d[i][j] = v
    end
  end
  return d[la][lb]
end

local NAME_MAX_LEN = 64         -- longer names are not compared (lfields.c's rule)

-- The candidate closest to name, when one is close enough to be what
-- was meant (a third of its letters off at most), else nil.  The
-- distance is at least the lengths' difference: a candidate too long or
-- too short is not compared (a 100 KB name took 13 s; now none).
function M.closest(name, candidates)
  local best, bestd
  local limit = math.max(1, #name // 3)
  if #name > NAME_MAX_LEN then return nil end
  for _, c in ipairs(candidates) do
    if #c <= NAME_MAX_LEN and math.abs(#name - #c) <= limit then
      local d = M.distance(name:lower(), c:lower())
      if d <= limit and d < #c and (not bestd or d < bestd or (d == bestd and c < best)) then
        best, bestd = c, d
      end
    end
  end
  return best
end

local function did_you_mean(name, candidates)
  local c = M.closest(name, candidates)
  return c and string.format(" (did you mean '%s'?)", c) or ""
end

local function sorted_keys(...)
  local seen, out = {}, {}
  for _, t in ipairs({ ... }) do
    for k in pairs(t) do
      if type(k) == "string" and not seen[k] then
        seen[k] = true
        out[#out + 1] = k
      end
    end
  end
  table.sort(out)
  return out
end

-- Up to n names of list, joined, with ", ..." when there are more.
local function some(list, n)
  local out = {}
  for i = 1, math.min(n, #list) do out[i] = list[i] end
  return table.concat(out, ", ") .. (#list > n and ", ..." or "")
end

---------------------------------------------------------------------------
-- events

-- The software and hardware events' other names (perf's aliases), to
-- the name the run gives their samples.
local ALIASES = { faults = "page-faults", cs = "context-switches", migrations = "cpu-migrations",
                  ["cpu-cycles"] = "cycles", ["branch-instructions"] = "branches",
                  ["idle-cycles-frontend"] = "stalled-cycles-frontend",
                  ["idle-cycles-backend"] = "stalled-cycles-backend" }

-- The software events that count things: a one-liner counts every one
-- of them (period 1), as a tracepoint's hits, unless -F or -c is given.
local COUNTING = { ["page-faults"] = true, ["minor-faults"] = true, ["major-faults"] = true,
                   ["context-switches"] = true, ["cpu-migrations"] = true, ["alignment-faults"] = true,
                   ["emulation-faults"] = true }
M.COUNTING = COUNTING

-- bpftrace's software: and hardware: names, to luaprof's.
local BPF_SOFTWARE = { ["cpu-clock"] = "cpu-clock", cpu = "cpu-clock", ["task-clock"] = "task-clock",
                       ["page-faults"] = "page-faults", faults = "page-faults",
                       ["context-switches"] = "context-switches", cs = "context-switches",
                       ["cpu-migrations"] = "cpu-migrations", migrations = "cpu-migrations",
                       ["minor-faults"] = "minor-faults", ["major-faults"] = "major-faults",
                       ["alignment-faults"] = "alignment-faults", ["emulation-faults"] = "emulation-faults" }
local BPF_HARDWARE = { ["cpu-cycles"] = "cycles", cycles = "cycles", instructions = "instructions",
                       ["cache-references"] = "cache-references", ["cache-misses"] = "cache-misses",
                       ["branch-instructions"] = "branches", branches = "branches",
                       ["branch-misses"] = "branch-misses", ["bus-cycles"] = "bus-cycles",
                       ["frontend-stalls"] = "stalled-cycles-frontend",
                       ["backend-stalls"] = "stalled-cycles-backend", ["ref-cycles"] = "ref-cycles" }
-- bpftrace's short probe names.
local SHORT = { t = "tracepoint", p = "profile", s = "software", h = "hardware", i = "interval",
                u = "uprobe", ur = "uretprobe", U = "usdt", k = "kprobe", kr = "kretprobe" }
local NO_PROBE = { kfunc = true, kretfunc = true, fentry = true, fexit = true, rawtracepoint = true,
                   rt = true, watchpoint = true, asyncwatchpoint = true, iter = true, f = true, fr = true }

local MODS = "^(.-):([ukpPhHGI]+)$"

-- name without its modifiers ("cpu-clock:u": "cpu-clock"), or name.
-- Only a plain name (no term list) has them after a colon: one colon
-- for a named event, two for a tracepoint.
local function bare(name)
  if name:find("/", 1, true) then return name end
  local b = name:match(MODS)
  if b and (not b:find(":", 1, true) or select(2, b:gsub(":", "")) == 1) then return b end
  return name
end
M.bare = bare

-- The name the run gives an event written as text: an alias as its
-- event's own name ("cs:u": "context-switches:u").
local function canonical(text)
  local b = bare(text)
  local mods = text:sub(#b + 1)
  return (ALIASES[b] or b) .. mods
end
M.canonical = canonical

local function glob_pattern(glob)
  local out = glob:gsub("[%^%$%(%)%%%.%+%-]", "%%%0"):gsub("%*", ".*"):gsub("%?", "."):gsub("%[!", "[^")
  return "^" .. out .. "$"
end

-- Whether a sample of the event called name belongs to a clause of the
-- event pattern (as written, made canonical): the same name, or the
-- same without modifiers, or matching it as a glob.  The one test of
-- the front end: which clauses take an event (and so whether one can go
-- to C), which take each sample, whether a recording has a clause's event.
function M.event_matches(pattern, name)
  if pattern == name then return true end
  local pb, nb = bare(canonical(pattern)), bare(canonical(name))
  if pb == nb then return true end
  if pb:find("[*?%[]") then
    local ok, r = pcall(string.find, nb, glob_pattern(pb))
    return ok and r ~= nil
  end
  return false
end

local function is_glob(text)
  return not text:find("^u[rs]?[a-z]*probe:") and not text:find("^usdt:") and text:find("[*?%[]") ~= nil
end

local function positive(text, pos, what)
  local n = math.tointeger(tonumber(text))
  if not n or n <= 0 or not text:match("^%d+$") then
    raise(pos, string.format("%s needs a positive integer, not '%s'", what, text))
  end
  return n
end

-- A clause's event as written (sp = { text =, pos = }): what it is and
-- the -e item to sample it with.  { kind = "begin" | "end" | "interval" |
-- "event", spec =, match =, interval_ms =, note = }.
function M.translate(sp, ctx)
  local text, pos = sp.text, sp.pos
  if text == "BEGIN" or text == "END" then return { kind = text:lower(), text = text } end
  local kind, rest = text:match("^([%a]+):(.*)$")
  local long = kind and (SHORT[kind] or kind)
  local e = { kind = "event", text = text }
  if long == "tracepoint" then
    if not rest:match("^[^:]+:[^:]+$") then
      raise(pos, "bpftrace's tracepoint:SYSTEM:EVENT is SYSTEM:EVENT here, not '" .. text .. "'")
    end
    e.spec, e.note = rest, "bpftrace's " .. text
  elseif long == "profile" then
    local unit, n = rest:match("^(%a+):(.*)$")
    local mult = { hz = false, s = 1000000000, ms = 1000000, us = 1000 }
    if mult[unit] == nil then
      raise(pos, "a profile probe is profile:hz:N, profile:s:N, profile:ms:N or profile:us:N, not '" .. text .. "'")
    end
    n = positive(n, pos, text)
    e.spec = mult[unit] and string.format("cpu-clock/period=%d/", n * mult[unit]) or
             string.format("cpu-clock/freq=%d/", n)
    e.note = "bpftrace's " .. text
  elseif long == "software" or long == "hardware" then
    local ev, n = rest:match("^([^:]+):?(.*)$")
    local name = (long == "software" and BPF_SOFTWARE or BPF_HARDWARE)[ev or ""]
    if not name then
      local list = sorted_keys(long == "software" and BPF_SOFTWARE or BPF_HARDWARE)
      raise(pos, string.format("bpftrace's %s events are %s, not '%s'%s", long, table.concat(list, ", "),
                               ev or "", did_you_mean(ev or "", list)))
    end
    if n ~= "" then
      e.spec = string.format("%s/period=%d,name=%s/", name, positive(n, pos, text), name)
      e.match = name
    else
      e.spec = name
    end
    e.note = "bpftrace's " .. text
  elseif long == "interval" then
    local unit, n = rest:match("^(%a+):(.*)$")
    n = positive(n or "", pos, text)
    local ms = ({ s = n * 1000, ms = n, us = n / 1000, hz = 1000 / n })[unit or ""]
    if not ms then raise(pos, "an interval is interval:s:N, interval:ms:N, interval:us:N or interval:hz:N") end
    if ms < 1 or math.tointeger(ms) == nil then
      raise(pos, "'" .. text .. "' is not a whole number of milliseconds: luaprof's intervals are in ms")
    end
    return { kind = "interval", text = text, interval_ms = math.tointeger(ms) }
  elseif kind and NO_PROBE[kind] then
    raise(pos, string.format("luaprof cannot place bpftrace's %s probes ('%s'): see 'luaprof list' for "
                             .. "what it can sample", kind, text))
  elseif kind and SHORT[kind] then               -- u:, ur:, U:, k:, kr:
    e.spec = long .. ":" .. rest
    e.note = "bpftrace's " .. text
  else
    e.spec = text
  end
  e.match = e.match or canonical(e.spec)
  if ctx.replay and e.match:find("/", 1, true) then
    -- replaying, the recording's events are sampled already: a rate's
    -- term names no other event ("cpu-clock/freq=99/": cpu-clock)
    local base, mods = e.match:match("^([^/]*)/.*/:?([%a]*)$")
    if base then e.match = canonical(base .. (mods ~= "" and ":" .. mods or "")) end
  end
  -- a counting event counts every event, unless -F or -c
  local b = bare(e.match)
  if COUNTING[b] and not e.spec:find("/", 1, true) and not ctx.rate and not ctx.replay then
    local mods = e.match:sub(#b + 1):gsub("^:", "")
    e.spec = string.format("%s/period=1,name=%s/%s", b, e.match, mods)
    e.every = true
  end
  return e
end

---------------------------------------------------------------------------
-- the trees

local function unparen(e)
  while e.tag == "Paren" do e = e.expr end
  return e
end

local function text_of(src, n)
  return src:sub(n.pos, n.epos)
end

-- The operand of C's aggregation that e is ("comm", "field:ret"), or nil.
local C_OPERAND = { comm = "comm", pid = "pid", tid = "tid", cpu = "cpu", sym = "sym" }

local function c_operand(e, free)
  e = unparen(e)
  if e.tag == "Name" and free[e] and C_OPERAND[e.name] then return C_OPERAND[e.name] end
  if e.tag == "Index" then
    local o = unparen(e.obj)
    if o.tag == "Name" and o.name == "args" and free[o] and e.key.tag == "String" and
       e.key.value:match("^[%a_][%w_]*$") then
      return "field:" .. e.key.value
    end
  end
  return nil
end

local CMPS = { ["=="] = "==", ["~="] = "~=", ["<"] = "<", ["<="] = "<=", [">"] = ">", [">="] = ">=" }
local FLIP = { ["=="] = "==", ["~="] = "~=", ["<"] = ">", ["<="] = ">=", [">"] = "<", [">="] = "<=" }

local function integer_of(e)
  e = unparen(e)
  if e.tag == "Number" then return math.tointeger(e.value) and math.type(e.value) == "integer" and e.value end
  if e.tag == "Unop" and e.op == "-" then
    local inner = unparen(e.expr)
    if inner.tag == "Number" and math.type(inner.value) == "integer" and inner.value ~= math.mininteger then
      return -inner.value
    end
  end
  return nil
end

-- The aggregation calls of tree: { { op =, call =, name = "@x" or nil,
-- value = EXPR, keys = { EXPR... }, pos = }, ... }.
local function aggregations(tree, free)
  local out = {}
  P.walk(tree, function(n)
    if n.tag == "Call" and n.fn.tag == "Name" and free[n.fn] and AGG_OPS[n.fn.name] then
      local a = { op = n.fn.name, call = n, pos = n.pos, args = {} }
      for i, x in ipairs(n.args) do a.args[i] = x end
      local first = a.args[1]
      if first and first.tag == "String" and first.value:byte(1) == 64 then
        a.name = first.value
        table.remove(a.args, 1)
      end
      if a.op ~= "count" then a.value = a.args[1] end
      if a.op == "lhist" then a.params = { a.args[2], a.args[3], a.args[4] } end
      a.keys = {}
      for i = a.op == "count" and 1 or a.op == "lhist" and 5 or 2, #a.args do a.keys[#a.keys + 1] = a.args[i] end
      out[#out + 1] = a
    end
  end)
  return out
end

---------------------------------------------------------------------------
-- checking a clause's names

-- The facts of a clause's events: the first fields list (tracepoints),
-- whether a probe's args, the usdt's count.
local function args_facts(c)
  local f = { tracepoints = {}, uprobe = false, usdt = nil, others = {}, unknown = false, uret = false }
  for _, e in ipairs(c.events) do
    for _, x in ipairs(e.facts or {}) do
      if x.kind == "tracepoint" or x.fields then
        if x.fields then f.tracepoints[#f.tracepoints + 1] = x else f.unknown = true end
      elseif x.kind == "uprobe" then f.uprobe = true
      elseif x.kind == "usdt" then f.usdt = math.max(f.usdt or 0, x.nargs or 0)
      elseif x.kind == "uretprobe" then f.uret = true
      elseif x.kind == nil then f.unknown = true
      else f.others[#f.others + 1] = x.name end
    end
    if not e.facts then f.unknown = true end
  end
  return f
end

local function field_of(facts, name)
  for _, tp in ipairs(facts.tracepoints) do
    for _, fld in ipairs(tp.fields) do
      if fld.name == name then return fld, tp end
    end
  end
  return nil
end

local COMMON = { common_pid = "pid", common_type = false, common_flags = false, common_preempt_count = false }

-- Checks args[KEY] of clause c (index: the Index node) against its events.
local function check_args_index(c, index, facts)
  local key = index.key
  local pos = key.pos
  local tps = facts.tracepoints
  if key.tag == "String" then
    local name = key.value
    if #tps > 0 then
      if field_of(facts, name) then return end
      if facts.unknown then return end
      if COMMON[name] ~= nil then
        raise(pos, string.format("%s is not in args%s", name, COMMON[name] and ": use " .. COMMON[name] or ""))
      end
      local names = {}
      for _, tp in ipairs(tps) do for _, fld in ipairs(tp.fields) do names[#names + 1] = fld.name end end
      local hint = did_you_mean(name, names)
      raise(pos, string.format("%s has no field '%s'%s%s", #tps == 1 and tps[1].name or c.events[1].text,
                               name, hint, hint == "" and " (its fields: " .. some(names, 12) .. ")" or ""))
    end
    if facts.unknown then return end
    if facts.uprobe or facts.usdt then
      raise(pos, string.format("a probe's arguments are args[1], args[2], ... by position, not args.%s", name))
    end
  elseif key.tag == "Number" then
    local k = math.tointeger(key.value)
    if #tps > 0 and not facts.unknown and not facts.uprobe and not facts.usdt then
      local names = {}
      for _, fld in ipairs(tps[1].fields) do names[#names + 1] = fld.name end
      raise(pos, string.format("a tracepoint's fields are named, args.%s: %s has %s", names[1] or "NAME",
                               tps[1].name, some(names, 8)))
    end
    if facts.unknown then return end
    local n = facts.uprobe and 6 or facts.usdt
    if n then
      if k == 0 then
        raise(pos, string.format("luaprof's arguments are args[1..%d]: bpftrace's arg0 is args[1]", n))
      end
      if not k or k < 1 or k > n then
        raise(pos, string.format("%s has %d argument%s: args[1..%d]", c.events[1].text, n, n == 1 and "" or "s", n))
      end
      return
    end
  else
    return
  end
  if facts.uret then
    raise(pos, "a uretprobe has no args: its return value is retval")
  end
  if #facts.others > 0 then
    raise(pos, string.format("%s has no args: only tracepoints (their fields) and probes (their arguments) have",
                             facts.others[1]))
  end
end

-- The functions whose value is a string (or nil).
local STRING_FNS = { ustack = true, kstack = true, str = true, tostring = true }

-- The kind of value e is known to have ("string", "integer", ...), or nil.
local function known_type(e, free, facts)
  e = unparen(e)
  if e.tag == "String" then return "string" end
  if e.tag == "Number" then return math.type(e.value) == "integer" and "integer" or "number" end
  if integer_of(e) then return "integer" end
  if e.tag == "Name" and free[e] and SAMPLE[e.name] then return SAMPLE[e.name] end
  if e.tag == "Call" and e.fn.tag == "Name" and free[e.fn] and STRING_FNS[e.fn.name] then return "string" end
  if e.tag == "Index" and facts then
    local o = unparen(e.obj)
    if o.tag == "Name" and o.name == "args" and free[o] and e.key.tag == "String" and not facts.unknown then
      local fld = field_of(facts, e.key.value)
      if fld and #facts.tracepoints == 1 then return fld.kind end
    end
  end
  return nil
end

-- Checks lhist's min, max and step (a.params): integers written out, as
-- bpftrace's, min below max, step at least 1, at most LHIST_MAX buckets;
-- sets a.lhist = { MIN, MAX, STEP }.
local function check_lhist(src, a)
  local eg = "lhist(v, min, max, step, k...), e.g. lhist(args.ret, 0, 1000, 100)"
  local vals = {}
  for i, what in ipairs({ "min", "max", "step" }) do
    local e = a.params[i]
    if not e then raise(a.pos, "lhist() needs a value, min, max and step: " .. eg) end
    vals[i] = integer_of(e)
    if not vals[i] then
      raise(e.pos, string.format("lhist's %s %s is not an integer written out (as bpftrace's): %s", what,
                                 text_of(src, e), eg))
    end
  end
  local min, max, step = vals[1], vals[2], vals[3]
  if min >= max then
    raise(a.params[1].pos, string.format("lhist's min %d is not below its max %d", min, max))
  end
  if step < 1 then raise(a.params[3].pos, string.format("lhist's step %d is not 1 or more", step)) end
  local range = max - min
  if range < 0 or (range + step - 1) // step > M.LHIST_MAX then
    raise(a.pos, string.format("lhist(v, %d, %d, %d) has more than %d buckets (bpftrace's limit): a larger "
                               .. "step makes fewer", min, max, step, M.LHIST_MAX))
  end
  a.lhist = { min, max, step }
end

-- Checks an aggregation call's arguments against its shape.
local function check_agg(src, a, free, facts)
  local op = a.op
  if op ~= "count" then
    if not a.value then
      local eg = op == "lhist" and "lhist(v, min, max, step, k...), e.g. lhist(args.ret, 0, 1000, 100)" or
                 string.format("%s(v, k...), e.g. %s", op,
                               (op == "hist" or op == "stats") and op .. "(args.ret)" or op .. "(args.ret, comm)")
      raise(a.pos, string.format("%s() needs a value: %s", op, eg))
    end
    local ty = known_type(a.value, free, facts)
    if ty and ty ~= "integer" and ty ~= "number" then
      local shownv = text_of(src, a.value)
      raise(a.value.pos, string.format("%s's value %s is a%s %s: %s takes numbers%s", op, shownv,
                                       ty == "integer" and "n" or "", ty, op,
                                       ty == "string" and "; count(" .. shownv .. ") counts by it" or ""))
    end
  end
  if op == "lhist" then check_lhist(src, a) end
  if #a.keys > M.MAX_KEYS then
    raise(a.keys[M.MAX_KEYS + 1].pos, string.format("%s() takes %d keys at most, not %d", op, M.MAX_KEYS, #a.keys))
  end
end

-- bpftrace's stack modes, ustack(perf).
local STACK_MODES = { perf = true, bpftrace = true, raw = true }

-- Checks the ustack(N) and kstack(N) calls of clause c (N, the frames
-- kept: an integer written out, as bpftrace's, 1 to STACK_MAX; none: all
-- of them) and makes each an edit of the clause's text: a call of the
-- front end's _B.stack(KERNEL, s, N).
local function check_stacks(src, c)
  local function visit(n)
    if n.tag == "Call" and n.fn.tag == "Name" and c.free[n.fn] and (n.fn.name == "ustack" or n.fn.name == "kstack") then
      local name = n.fn.name
      local eg = string.format("%s(5) keeps the first 5 frames", name)
      local mode = n.args[1] and n.args[1].tag == "Name" and STACK_MODES[n.args[1].name]
      if #n.args > 1 or mode then
        raise(n.pos, string.format("%s(N) takes the number of frames alone (luaprof prints stacks as bpftrace's "
                                   .. "default mode): %s", name, eg))
      end
      local k
      if n.args[1] then
        k = integer_of(n.args[1])
        if not k then
          raise(n.args[1].pos, string.format("%s's frames %s are not an integer written out (as bpftrace's): %s",
                                             name, text_of(src, n.args[1]), eg))
        end
        if k < 1 or k > M.STACK_MAX then
          raise(n.args[1].pos, string.format("%s's frames are 1 to %d, not %d", name, M.STACK_MAX, k))
        end
      end
      c.stack_fns[n.fn] = true
      c.edits[#c.edits + 1] = { from = n.pos, to = n.epos,
                                text = string.format("_B.stack(%s, s%s)", tostring(name == "kstack"),
                                                     k and ", " .. k or "") }
    end
  end
  if c.cond then P.walk(c.cond, visit) end
  P.walk(c.body, visit)
  table.sort(c.edits, function(x, y) return x.from < y.from end)
end

---------------------------------------------------------------------------
-- the plan

local function why_not_c(c, plan, ctx, free, src)
  if ctx.lua_only then return "LUAPROF_ONELINER=lua" end
  if not ctx.c then return "no C aggregation here" end
  if #c.events ~= 1 then return "it has " .. #c.events .. " events" end
  local e = c.events[1]
  if is_glob(e.text) then return "its event is a glob" end
  for _, o in ipairs(plan.clauses) do
    if o ~= c and o.kind == "event" then
      for _, oe in ipairs(o.events) do
        if M.event_matches(oe.match, e.match) then
          return string.format("clause %d (%s) takes its samples too", o.n, oe.text)
        end
      end
    end
  end
  local stats = c.body.stats
  if #stats ~= 1 or stats[1].tag ~= "CallStat" then return "its body is not one aggregation call" end
  local call = stats[1].call
  if call.tag ~= "Call" or call.fn.tag ~= "Name" or not free[call.fn] or not AGG_OPS[call.fn.name] then
    return "its body is not one aggregation call"
  end
  local op = call.fn.name
  if plan.assigned[op] then return "the program assigns " .. op end
  local a = c.aggs[1]
  local keys = {}
  for _, k in ipairs(a.keys) do
    local o = c_operand(k, free)
    if not o then
      return string.format("its key %s is not comm, pid, tid, cpu, sym or args.NAME", text_of(src, k))
    end
    keys[#keys + 1] = o
  end
  if #keys > 4 then return #keys .. " keys (C takes 4)" end
  local spec = { event = e.match, op = op, keys = keys, map = a.map, lhist = a.lhist }
  if op ~= "count" then
    local v = c_operand(a.value, free)
    if not v then
      return string.format("its value %s is not pid, tid, cpu or args.NAME", text_of(src, a.value))
    end
    if v == "comm" or v == "sym" then return "its value is a string" end
    spec.value = v
  end
  if c.cond then
    local cond = unparen(c.cond)
    if cond.tag ~= "Binop" or not CMPS[cond.op] then return "its condition is not OPERAND CMP INTEGER" end
    local o, k, cmp = c_operand(cond.left, free), integer_of(cond.right), cond.op
    if not (o and k) then
      o, k, cmp = c_operand(cond.right, free), integer_of(cond.left), FLIP[cond.op]
    end
    if not (o and k) then return "its condition is not OPERAND CMP INTEGER" end
    if o == "comm" or o == "sym" then return "its condition compares a string" end
    spec.filter = { o, cmp, k }
  end
  local facts = args_facts(c)
  for _, o in ipairs({ spec.value, spec.filter and spec.filter[1] }) do
    local f = o:match("^field:(.*)$")
    local fld = f and field_of(facts, f)
    if fld and fld.kind ~= "integer" then return "args." .. f .. " is a " .. fld.kind end
  end
  return nil, spec
end

-- Checks clause c's names: its free names against what is in scope,
-- args against its events, aggregations against their shape.
local function check_clause(plan, c, ctx, src, with_facts)
  local facts = args_facts(c)
  if c.kind == "event" then check_stacks(src, c) end
  for _, r in ipairs(c.refs) do
    if not r.write then
      local name = r.name
      local sample = SAMPLE[name]
      if sample and c.kind ~= "event" then
        raise(r.pos, string.format("%s is a sample's: %s has no sample (use it in an event's clause)",
                                   name, c.kind == "interval" and "an interval clause" or c.events[1].text))
      elseif not (sample or HELPERS[name] or ctx.globals[name] ~= nil or plan.assigned[name] or name == "_ENV") then
        local argn = name:match("^s?arg(%d)$")
        if argn then
          raise(r.pos, string.format("bpftrace's %s is args[%d] here: luaprof's arguments are args[1..6]",
                                     name, tonumber(argn) + 1))
        end
        if BPFTRACE[name] then raise(r.pos, BPFTRACE[name]) end
        local cands = sorted_keys(HELPERS, c.kind == "event" and SAMPLE or {}, ctx.globals, plan.assigned)
        local hint = did_you_mean(name, cands)
        raise(r.pos, string.format("unknown name '%s'%s", name, hint ~= "" and hint or
                                   (c.kind == "event" and ": a sample's are " .. table.concat(sorted_keys(SAMPLE), ", ")
                                    or ": nothing of this name is in scope")))
      elseif name == "retval" and with_facts and not facts.unknown and not facts.uret then
        raise(r.pos, string.format("retval is a uretprobe's return value: %s has none", c.events[1].text))
      end
    end
  end
  if with_facts then
    for _, ix in ipairs(c.args_indexes) do check_args_index(c, ix, facts) end
  end
  for _, a in ipairs(c.aggs) do check_agg(src, a, c.free, with_facts and facts or nil) end
end

-- Whether e may be several values (a call or ..., the last argument):
-- not a call of the functions of one string.
local function multi(e, free)
  if e.tag == "Call" and e.fn.tag == "Name" and free[e.fn] and STRING_FNS[e.fn.name] then return false end
  return e.tag == "Call" or e.tag == "Invoke" or e.tag == "Vararg"
end

-- The kind of a key: "string", "integer" (a number written out without
-- a fraction is one), or nil when not known before the run.
local function key_kind(e, free, facts)
  local ty = known_type(e, free, facts)
  if ty == "string" or ty == "integer" then return ty end
  return nil
end

-- A map name for the call a that is not in used: its last
-- named key's last name, plural ("args.fd": "@fds"), else its function's.
local function free_name(src, a, used)
  local base
  for i = #a.keys, 1, -1 do
    local k = unparen(a.keys[i])
    base = k.tag ~= "String" and k.tag ~= "Number" and text_of(src, k):match("([%a_][%w_]*)[^%w_]*$")
    if base then break end
  end
  base = base and (base:sub(-1) == "s" and base or base .. "s") or a.op
  local name, i = "@" .. base, 1
  while used[name] do
    i = i + 1
    name = "@" .. base .. i
  end
  return name
end

-- The call a with its map named name: the fix to show.
local function named_call(src, a, name)
  local parts = { string.format("%q", name) }
  for _, x in ipairs(a.args) do parts[#parts + 1] = text_of(src, x) end
  return a.op .. "(" .. table.concat(parts, ", ") .. ")"
end

-- Checks that each map's calls agree, as bpftrace's maps must: one
-- function (and lhist's one min, max and step), one number of keys, one
-- kind (integer or string) per key where known.  Sets each a.map.
local function check_maps(plan, src)
  local maps, used = {}, {}
  for _, c in ipairs(plan.clauses) do
    for _, a in ipairs(c.aggs) do
      a.map = a.name or plan.map_name[a.op]
      used[a.map] = true
    end
  end
  local function at(a)
    local l, col = P.where(src, a.pos)
    return string.format("%d:%d", l, col)
  end
  for _, c in ipairs(plan.clauses) do
    local facts = args_facts(c)
    for _, a in ipairs(c.aggs) do
      local name = a.map
      local m = maps[name]
      if not m then
        m = { first = a, kinds = {} }   -- kinds[i] = { kind, the call that set it }
        maps[name] = m
      end
      local p = m.first
      if p.op ~= a.op then
        raise(a.pos, string.format("%s holds %s() (at %s): it cannot take %s() too", name, p.op, at(p), a.op))
      end
      if a.lhist and p.lhist and (a.lhist[1] ~= p.lhist[1] or a.lhist[2] ~= p.lhist[2] or a.lhist[3] ~= p.lhist[3]) then
        raise(a.pos, string.format("%s holds lhist(v, %d, %d, %d) (at %s): it cannot take lhist(v, %d, %d, %d) too",
                                   name, p.lhist[1], p.lhist[2], p.lhist[3], at(p), table.unpack(a.lhist)))
      end
      local nkeys = not (#a.keys > 0 and multi(a.keys[#a.keys], c.free)) and #a.keys or nil
      if nkeys and m.nkeys and nkeys ~= m.nkeys.n then
        local q = m.nkeys.a
        local wide = nkeys > m.nkeys.n and a or q
        raise(a.pos, string.format("%s is keyed by %d value%s at %s (%s) and by %d here: a map keeps one shape of key, "
                                   .. "as bpftrace's; name the maps apart: %s", name, m.nkeys.n,
                                   m.nkeys.n == 1 and "" or "s", at(q), text_of(src, q.call), nkeys,
                                   named_call(src, wide, free_name(src, wide, used))))
      end
      m.nkeys = m.nkeys or nkeys and { n = nkeys, a = a }
      for i, k in ipairs(a.keys) do
        local kind = not (i == #a.keys and multi(k, c.free)) and key_kind(k, c.free, facts) or nil
        local had = m.kinds[i]
        if kind and had and had.kind ~= kind then
          raise(k.pos, string.format("%s's key %d is a%s %s here (%s) and a%s %s at %s (%s): a map's keys keep their "
                                     .. "kinds, as bpftrace's; name the maps apart: %s", name, i,
                                     kind == "integer" and "n" or "", kind, text_of(src, k),
                                     had.kind == "integer" and "n" or "", had.kind, at(had.a),
                                     text_of(src, had.a.keys[i]), named_call(src, a, free_name(src, a, used))))
        end
        m.kinds[i] = had or kind and { kind = kind, a = a }
      end
    end
  end
end

-- The names c reads that no local binds, with the set of their nodes.
local function resolve(c)
  c.refs = {}
  if c.cond then
    for _, r in ipairs(P.free_names(c.cond)) do c.refs[#c.refs + 1] = r end
  end
  for _, r in ipairs(P.free_names(c.body)) do c.refs[#c.refs + 1] = r end
  c.free = {}
  c.uses = {}
  c.edits = {}
  c.stack_fns = {}      -- the Name nodes of ustack(N) and kstack(N) calls
  for _, r in ipairs(c.refs) do
    c.free[r.node] = true
    c.uses[r.name] = c.uses[r.name] or r
  end
  c.args_indexes = {}
  local function collect(tree)
    P.walk(tree, function(n)
      if n.tag == "Index" then
        local o = unparen(n.obj)
        if o.tag == "Name" and o.name == "args" and c.free[o] then c.args_indexes[#c.args_indexes + 1] = n end
      end
    end)
  end
  if c.cond then collect(c.cond) end
  collect(c.body)
  c.aggs = aggregations(c.body, c.free)
  if c.cond then
    for _, a in ipairs(aggregations(c.cond, c.free)) do c.aggs[#c.aggs + 1] = a end
  end
end

local function describe_event(plan, e, c, ctx, pos)
  if not ctx.describe or not e.spec then return end
  local wants = c.uses.args ~= nil
  local facts, err = ctx.describe(e.spec, wants)
  if not facts then
    raise(pos, (tostring(err):gsub("^luaprof%.setup: ", "")))
  end
  e.facts = facts
  if #facts > 0 then
    local f = facts[1]
    e.desc = f.kind .. (#facts > 1 and string.format(", %d events", #facts) or "")
  end
  plan.described = true
end

-- The plan of the parsed program prog (olparse.program's).
function M.plan(prog, ctx)
  local src = prog.src
  local plan = { clauses = {}, events = {}, assigned = {}, call_graph = false, strings = {}, src = src }
  local seen_spec = {}
  for _, pc in ipairs(prog.clauses) do
    local c = { n = pc.n, pos = pc.pos, cond = pc.cond, body = pc.body, open = pc.open, close = pc.close,
                cond_open = pc.cond_open, cond_close = pc.cond_close, events = {} }
    for _, sp in ipairs(pc.specs) do
      local e = M.translate(sp, ctx)
      e.pos = sp.pos
      if e.kind ~= "event" then
        if #pc.specs > 1 then
          raise(sp.pos, e.text .. " is a clause of its own: it takes no other event")
        end
        c.kind = e.kind
        c.interval_ms = e.interval_ms
      else
        c.kind = "event"
      end
      c.events[#c.events + 1] = e
    end
    if c.kind ~= "event" and c.cond then
      raise(pc.cond_open, c.events[1].text .. " takes no /condition/")
    end
    resolve(c)
    for _, r in ipairs(c.refs) do
      if r.write then plan.assigned[r.name] = true end
    end
    plan.clauses[#plan.clauses + 1] = c
  end
  -- a global the program assigns is in scope everywhere; what it
  -- assigns of the helpers' or the sample's is its own
  for _, c in ipairs(plan.clauses) do
    for _, r in ipairs(c.refs) do
      if (r.name == "ustack" or r.name == "kstack") and c.kind == "event" then plan.call_graph = true end
      if r.name == "str" and not r.write and c.kind == "event" then
        for _, e in ipairs(c.events) do plan.strings[e.spec] = true end
      end
    end
    if c.kind == "event" then
      for _, e in ipairs(c.events) do
        describe_event(plan, e, c, ctx, e.pos)
        if not seen_spec[e.spec] then
          seen_spec[e.spec] = true
          plan.events[#plan.events + 1] = e.spec
        end
      end
    end
  end
  for _, c in ipairs(plan.clauses) do check_clause(plan, c, ctx, src, ctx.describe ~= nil) end
  -- the maps: one function's results each (under its own name when the
  -- program calls several), keyed by one shape
  local ops = {}
  for _, c in ipairs(plan.clauses) do
    for _, a in ipairs(c.aggs) do
      if not a.name and (a.call.args[1] == nil or a.call.args[1].tag ~= "String" or
                         a.call.args[1].value:byte(1) ~= 64) then
        ops[a.op] = true
      end
    end
  end
  local n = 0
  for _ in pairs(ops) do n = n + 1 end
  plan.map_name = {}
  for op in pairs(AGG_OPS) do plan.map_name[op] = n <= 1 and "@" or "@" .. op end
  check_maps(plan, src)
  -- C or Lua
  local ticks = {}
  for _, c in ipairs(plan.clauses) do
    if c.kind == "event" then
      local why, spec = why_not_c(c, plan, ctx, c.free, src)
      c.way, c.why, c.agg = spec and "C" or "Lua", why, spec
    elseif c.kind == "interval" then
      ticks[#ticks + 1] = c.interval_ms
    end
    c.locals = {}
    if c.kind == "event" then
      local seen = {}
      for _, r in ipairs(c.refs) do
        if SAMPLE[r.name] and r.name ~= "s" and not seen[r.name] and not c.stack_fns[r.node] then
          seen[r.name] = true
          c.locals[#c.locals + 1] = r.name
        end
      end
    end
  end
  if #ticks > 0 then
    local function gcd(a, b) while b ~= 0 do a, b = b, a % b end return a end
    local g = ctx.interval or ticks[1]
    for _, t in ipairs(ticks) do g = gcd(g, t) end
    plan.tick_ms = ctx.interval or g
  end
  return plan
end

-- The facts of the recording (agg.recording's list) for the clauses of
-- plan, checked: every event a clause names is in it, the fields and
-- arguments the clauses read are in its formats, the sample's names
-- they use are in its samples.  warn(pos, msg) is told of a name that
-- is nil in every sample, when the answer is not empty for it; when it
-- would be, that raises.
local CARRIED = { cpu = { "cpu", "its samples carry no CPU (perf record without -a leaves it out)" },
                  nsecs = { "time", "its samples carry no time" },
                  pid = { "tid", "its samples carry no pid or tid" },
                  tid = { "tid", "its samples carry no pid or tid" },
                  sym = { "ip", "its samples carry no address (no function)" },
                  ustack = { "callchain", "its samples carry no call stack (record with -g)", "empty" },
                  kstack = { "callchain", "its samples carry no call stack (record with -g)", "empty" } }

-- Whether the clause's every output is an aggregation with node among
-- its direct operands (keys or value): with node nil, it adds nothing.
local function only_output(c, name)
  for _, s in ipairs(c.body.stats) do
    if s.tag ~= "CallStat" then return false end
    local call = s.call
    if call.tag ~= "Call" or call.fn.tag ~= "Name" or not AGG_OPS[call.fn.name] then return false end
    local found = false
    for _, a in ipairs(c.aggs) do
      if a.call == call then
        for _, k in ipairs(a.keys) do
          local u = unparen(k)
          if u.tag == "Name" and u.name == name and c.free[u] then found = true end
        end
        if a.value then
          local u = unparen(a.value)
          if u.tag == "Name" and u.name == name and c.free[u] then found = true end
        end
      end
    end
    if not found then return false end
  end
  return #c.body.stats > 0
end

function M.check_recording(plan, rec, warn)
  local names = {}
  for i, r in ipairs(rec) do names[i] = r.name end
  local warned = {}
  for _, c in ipairs(plan.clauses) do
    if c.kind == "event" then
      for _, e in ipairs(c.events) do
        e.facts = {}
        for _, r in ipairs(rec) do
          if M.event_matches(e.match, r.name) then
            e.facts[#e.facts + 1] = { name = r.name, kind = r.fields and "tracepoint" or nil, fields = r.fields,
                                      carried = r }
          end
        end
        if #e.facts == 0 then
          raise(e.pos, string.format("the recording has no event '%s' (it has %s)%s", e.text,
                                     #names > 0 and table.concat(names, ", ") or "none",
                                     did_you_mean(e.match, names)))
        end
      end
      -- the kind of an event that is no tracepoint is not in the
      -- recording: only tracepoints' args are checked
      local facts = args_facts(c)
      if #facts.tracepoints > 0 then
        for _, ix in ipairs(c.args_indexes) do check_args_index(c, ix, facts) end
      end
      for _, a in ipairs(c.aggs) do check_agg(plan.src, a, c.free, facts) end
      for _, r in ipairs(c.refs) do
        local need = CARRIED[r.name]
        if need and not r.write and not warned[r.name] then
          local lacking = true
          for _, e in ipairs(c.events) do
            for _, f in ipairs(e.facts) do
              if f.carried[need[1]] then lacking = false end
            end
          end
          if lacking and not need[3] and only_output(c, r.name) then
            raise(r.pos, string.format("%s is nil in every sample of this recording, so this clause's answer "
                                       .. "would be empty: %s", r.name, need[2]))
          elseif lacking then
            warned[r.name] = true
            warn(r.pos, string.format("%s is %s in this recording: %s", r.name, need[3] or "nil", need[2]))
          end
        end
      end
    end
  end
  check_maps(plan, plan.src)    -- with the kinds of the recording's fields
end

---------------------------------------------------------------------------
-- explain

local function describe_operand(o)
  return (o:gsub("^field:", "args."))
end

-- The plan as text, for LUAPROF_ONELINER=explain: a line per clause and
-- one per fact of it.
function M.explain(plan)
  local src = plan.src
  local out = { "luaprof: -x plan (LUAPROF_ONELINER=explain):" }
  local function add(fmt, ...) out[#out + 1] = string.format(fmt, ...) end
  for _, c in ipairs(plan.clauses) do
    local l, col = P.where(src, c.pos)
    local head = src:sub(c.pos, c.close):gsub("%s+", " ")
    if #head > 90 then head = head:sub(1, 87) .. "..." end
    add("  clause %d at %d:%d: %s", c.n, l, col, head)
    if c.kind == "begin" then
      add("    runs: once, before the first sample")
    elseif c.kind == "end" then
      add("    runs: once, at the end, before the maps are printed")
    elseif c.kind == "interval" then
      add("    runs: every %d ms (%s)", c.interval_ms, c.events[1].text)
    else
      for _, e in ipairs(c.events) do
        local how = {}
        if e.note then how[#how + 1] = e.note end
        if e.desc then how[#how + 1] = e.desc end
        if e.every then how[#how + 1] = "every event, as -c 1: -F or -c samples" end
        add("    event: %s%s", e.spec, #how > 0 and " (" .. table.concat(how, "; ") .. ")" or "")
      end
      local names = {}
      local seen = {}
      if #c.args_indexes > 0 then seen.args = true end   -- args.NAME says more
      for _, r in ipairs(c.refs) do
        if SAMPLE[r.name] and not seen[r.name] then
          seen[r.name] = true
          names[#names + 1] = r.name
        end
      end
      for _, ix in ipairs(c.args_indexes) do
        local t = src:sub(ix.pos, ix.epos)
        if not seen[t] then
          seen[t] = true
          names[#names + 1] = t
        end
      end
      if #names > 0 then add("    sample's names: %s", table.concat(names, ", ")) end
    end
    for _, a in ipairs(c.aggs) do
      local parts = {}
      if a.value then parts[#parts + 1] = "value " .. src:sub(a.value.pos, a.value.epos) end
      if #a.keys > 0 then
        local ks = {}
        for i, k in ipairs(a.keys) do ks[i] = src:sub(k.pos, k.epos) end
        parts[#parts + 1] = "keys " .. table.concat(ks, ", ")
      end
      add("    aggregation: %s() into %s%s", a.op, a.map or a.name or plan.map_name[a.op],
          #parts > 0 and " (" .. table.concat(parts, "; ") .. ")" or "")
    end
    if c.kind == "event" then
      if c.way == "C" then
        local ops = { c.agg.op .. "(" .. table.concat((function()
          local t = {}
          if c.agg.value then t[#t + 1] = describe_operand(c.agg.value) end
          for _, x in ipairs(c.agg.lhist or {}) do t[#t + 1] = tostring(x) end
          for _, k in ipairs(c.agg.keys) do t[#t + 1] = describe_operand(k) end
          return t
        end)(), ", ") .. ")" }
        if c.agg.filter then
          ops[#ops + 1] = "when " .. describe_operand(c.agg.filter[1]) .. " " .. c.agg.filter[2] .. " " ..
                          c.agg.filter[3]
        end
        add("    way: C (core/agg, no Lua call per sample): %s", table.concat(ops, " "))
      else
        add("    way: Lua, a call per sample: %s", c.why)
      end
    end
  end
  if plan.tick_ms then add("  interval: a tick every %d ms", plan.tick_ms) end
  return table.concat(out, "\n") .. "\n"
end

return M
