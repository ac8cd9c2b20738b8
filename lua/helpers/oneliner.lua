-- oneliner, the front end of `luaprof -x PROGRAM` (no public module): it
-- runs as the script of the run, with PROGRAM as arg[1].
--
--   PROGRAM := CLAUSE...
--   CLAUSE  := SPEC [/COND/] { LUA }
--   SPEC    := BEGIN | END | EVENT[,EVENT...]      (as -e takes them)
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
-- A clause whose LUA is one count/sum/min/max/hist call whose operands are
-- comm, pid, tid, cpu, sym (keys only) or args.NAME, with no COND or `OPERAND CMP INTEGER`,
-- alone on its event, is evaluated in C (lagg.c, core/agg): no Lua call
-- per sample.  Both ways give the same numbers; LUAPROF_ONELINER=lua in
-- the environment turns the C way off (the tests compare the two), and
-- LUAPROF_ONELINER=explain says on stderr which way each clause went.

-- luacheck: globals _ONELINER_AGG
local prog = table.remove(arg, 1)
local AGG = _ONELINER_AGG
_ONELINER_AGG = nil
local MODE = os.getenv("LUAPROF_ONELINER") or ""

local function fail(msg)
  io.stderr:write("luaprof: -x: ", tostring(msg), "\n")
  os.exit(255)
end

---------------------------------------------------------------------------
-- parsing

-- The index just past a Lua string or comment starting at i, or nil when
-- none starts there.
local function skip_lua_token(src, i)
  local c = src:sub(i, i)
  if c == '"' or c == "'" then
    local j = i + 1
    while j <= #src do
      local d = src:sub(j, j)
      if d == "\\" then j = j + 2
      elseif d == c then return j + 1
      else j = j + 1 end
    end
    fail("a string opened at character " .. i .. " is not closed")
  end
  local long = src:match("^%[(=*)%[", i)
  if long then
    local _, e = src:find("]" .. long .. "]", i, true)
    if not e then fail("a long string opened at character " .. i .. " is not closed") end
    return e + 1
  end
  if src:sub(i, i + 1) == "--" then
    long = src:match("^%-%-%[(=*)%[", i)
    if long then
      local _, e = src:find("]" .. long .. "]", i, true)
      if not e then fail("a comment opened at character " .. i .. " is not closed") end
      return e + 1
    end
    local e = src:find("\n", i, true)
    return e and e + 1 or #src + 1
  end
  return nil
end

-- The body of the clause whose "{" is at i: its text and the index after
-- its "}".
local function read_body(src, i)
  local depth, j = 1, i + 1
  while j <= #src do
    local after = skip_lua_token(src, j)
    if after then
      j = after
    else
      local c = src:sub(j, j)
      if c == "{" then depth = depth + 1
      elseif c == "}" then
        depth = depth - 1
        if depth == 0 then return src:sub(i + 1, j - 1), j + 1 end
      end
      j = j + 1
    end
  end
  fail("the { at character " .. i .. " is not closed: every clause is SPEC { LUA }")
end

local function parse(src)
  local clauses, i = {}, 1
  while true do
    i = src:find("%S", i)
    if not i then break end
    local spec, after = src:match("^([^%s{/][^%s{]*)()", i)
    if not spec then
      fail("expected an event (or BEGIN, END) at character " .. i .. ": " ..
           "the program is SPEC [/COND/] { LUA } ...")
    end
    i = src:find("%S", after) or #src + 1
    local cond
    if src:sub(i, i) == "/" then
      local e = src:find("/", i + 1, true)
      if not e then fail("the condition at character " .. i .. " has no closing /") end
      cond = src:sub(i + 1, e - 1)
      i = src:find("%S", e + 1) or #src + 1
    end
    if src:sub(i, i) ~= "{" then
      fail("'" .. luaprof.shown(spec) .. "' needs a { LUA } after it (at character " .. i .. ")")
    end
    local body
    body, i = read_body(src, i)
    clauses[#clauses + 1] = { spec = spec, cond = cond, body = body, n = #clauses + 1 }
  end
  if #clauses == 0 then
    fail("the program is empty: give SPEC { LUA }, e.g. 'raw_syscalls:sys_enter { count(comm) }'")
  end
  return clauses
end

---------------------------------------------------------------------------
-- maps: name -> { op =, root = (the tree of entries), list = { { keys =, value =, hist =, n = }, ... } }

local maps, map_names = {}, {}
local map_name = {}

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

local bucket = AGG and AGG.bucket or function(v)
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

local c_aggs = {}       -- { agg =, map = } of the clauses evaluated in C

local function print_maps(blank)
  for _, ca in ipairs(c_aggs) do merge_c(ca.map, ca.agg) end
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

local builtins = {
  s = function() return cur end,
  comm = function() return cur.comm end,
  pid = function() return cur.pid end,
  tid = function() return cur.tid end,
  cpu = function() return cur.cpu end,
  nsecs = function() return cur.time end,
  sym = function() return cur.sym end,
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
-- compiling

local function compile(text, what)
  local f, err = load(text, "=" .. what, "t", env)
  if not f then fail(err) end
  return f
end

-- An event's clause becomes function(s) with the sample's names it uses
-- as locals, read once a call (not through the environment's __index),
-- all on the chunk's first line so that its line numbers stay the
-- user's.
local LOCALS = {
  comm = "s.comm", pid = "s.pid", tid = "s.tid", cpu = "s.cpu", nsecs = "s.time", sym = "s.sym", event = "s.event",
  retval = "s.retval", args = "s.args", ustack = "_B.stack(false, s)", kstack = "_B.stack(true, s)",
}
local B = { stack = stack_text }

local function compile_clause(c, what)
  local names, seen = {}, {}
  for pre, name in ("\n" .. c.body .. "\n" .. (c.cond or "")):gmatch("([^%w_.:])([%a_][%w_]*)") do
    if LOCALS[name] and not seen[name] and pre ~= "." and pre ~= ":" then
      seen[name] = true
      names[#names + 1] = name
    end
  end
  local decl = ""
  if #names > 0 then
    local vals = {}
    for i, n in ipairs(names) do vals[i] = LOCALS[n] end
    decl = "local " .. table.concat(names, ", ") .. " = " .. table.concat(vals, ", ") .. "; "
  end
  local text = "local _B = ...; return function(s) " .. decl ..
               (c.cond and ("if " .. c.cond .. " then ") or "") .. c.body ..
               (c.cond and "\nend" or "") .. "\nend"
  local f, err = load(text, "=" .. what, "t", env)
  if not f then fail(err) end
  return f(B)
end

local clauses = parse(prog)
local events, begins, ends, handlers = {}, {}, {}, {}
local uses_stack = prog:find("ustack", 1, true) or prog:find("kstack", 1, true)

for _, c in ipairs(clauses) do
  local what = "-x clause " .. c.n
  if c.spec == "BEGIN" or c.spec == "END" then
    if c.cond then fail(c.spec .. " takes no /condition/") end
    local fn = compile(c.body, what)
    local list = c.spec == "BEGIN" and begins or ends
    list[#list + 1] = fn
  else
    c.fn = compile_clause(c, what)
    c.events = {}
    for ev in c.spec:gmatch("[^,]+") do
      c.events[#c.events + 1] = ev
      events[#events + 1] = ev
    end
    handlers[#handlers + 1] = c
  end
end

-- The map names: "@" when the program aggregates one way, else "@count",
-- "@hist", ... by the function.
do
  local n = 0
  for op in pairs(AGG_OPS) do
    for _, c in ipairs(clauses) do
      local body = c.body:gsub("%f[%w_]" .. op .. "%s*%(%s*[\"']@", "")  -- named calls aside
      if body:find("%f[%w_]" .. op .. "%s*%(") then
        n = n + 1
        break
      end
    end
  end
  for op in pairs(AGG_OPS) do map_name[op] = n <= 1 and "@" or "@" .. op end
end

local function glob_match(glob, name)
  local pat = "^" .. glob:gsub("[%^%$%(%)%%%.%+%-]", "%%%0"):gsub("%*", ".*"):gsub("%?", ".") .. "$"
  return name:find(pat) ~= nil
end

local function bare(name)
  local b = name:match("^(.*):[ukpPhHGI]+$")
  return b
end

---------------------------------------------------------------------------
-- short forms in C

local OPERAND = { comm = "comm", pid = "pid", tid = "tid", cpu = "cpu", sym = "sym" }

local function c_operand(text)
  text = text:match("^%s*(.-)%s*$")
  if OPERAND[text] then return OPERAND[text] end
  local f = text:match("^args%.([%a_][%w_]*)$") or text:match("^args%[%s*[\"']([%a_][%w_]*)[\"']%s*%]$")
  return f and "field:" .. f or nil
end

local CMPS = { ["=="] = true, ["~="] = true, ["<"] = true, ["<="] = true, [">"] = true, [">="] = true }

-- The agg.new spec of clause c, or nil when it is not a short form.
local function short_form(c)
  if #c.events ~= 1 or c.events[1]:find("[*?%[]") then return nil end
  local op, inner = c.body:match("^%s*(%a+)%s*(%b())%s*;?%s*$")
  if not op or not AGG_OPS[op] or op == "avg" then return nil end
  inner = inner:sub(2, -2)
  local parts = {}
  local name = inner:match("^%s*[\"'](@[%w_]*)[\"']%s*,?")
  if name then inner = inner:gsub("^%s*[\"']@[%w_]*[\"']%s*,?", "") end
  if inner:find("%S") then
    for p in (inner .. ","):gmatch("([^,]*),") do
      local o = c_operand(p)
      if not o then return nil end
      parts[#parts + 1] = o
    end
  end
  local spec = { event = c.events[1], op = op, keys = parts, map = name }
  if op ~= "count" then
    spec.value = table.remove(parts, 1)
    if not spec.value or spec.value == "comm" or spec.value == "sym" then return nil end
  end
  if #parts > 4 then return nil end
  if c.cond then
    local a, cmp, k = c.cond:match("^%s*(.-)%s*([=~<>]=?)%s*(%-?%d+)%s*$")
    local o = a and c_operand(a)
    if not o or o == "comm" or o == "sym" or not CMPS[cmp] or not math.tointeger(tonumber(k)) then return nil end
    spec.filter = { o, cmp, math.tointeger(tonumber(k)) }
  end
  return spec
end

do
  -- how many of the clauses' events (exact or globs) take event name
  local function takers(name)
    local n = 0
    for _, c in ipairs(handlers) do
      for _, ev in ipairs(c.events) do
        local evb = bare(ev) or ev
        if ev == name or evb == (bare(name) or name) or glob_match(evb, bare(name) or name) then n = n + 1 end
      end
    end
    return n
  end
  for _, c in ipairs(handlers) do
    local spec = AGG and MODE ~= "lua" and takers(c.events[1]) == 1 and short_form(c)
    if spec then
      local agg = AGG.new(spec)
      c_aggs[#c_aggs + 1] = { agg = agg, map = get_map(spec.op, spec.map), clause = c }
    end
    if MODE == "explain" then
      io.stderr:write(string.format("luaprof: -x clause %d (%s): %s\n", c.n, c.spec,
                                    spec and "C, unless its event cannot (then Lua)" or "Lua"))
    end
  end
  if #handlers > 0 and #c_aggs == #handlers then AGG.only() end
end

---------------------------------------------------------------------------
-- the run

-- BEGIN and END alone sample the CPU clock (not cycles, which a VM lacks)
local setup = { events = #events > 0 and events or { "cpu-clock" } }
if uses_stack then setup.call_graph = true end
do
  local ok, err = pcall(luaprof.setup, setup)
  if not ok then fail(tostring(err):gsub("^luaprof%.setup: ", ""), nil) end
end

-- The clauses of a sample's event, found once per event name.
local by_event = {}
local replaying = false

local function clauses_of(name)
  local list = by_event[name]
  if list then return list end
  list = {}
  for _, c in ipairs(handlers) do
    for _, ev in ipairs(c.events) do
      local evb = bare(ev) or ev
      if ev == name or evb == name or evb == (bare(name) or name) or glob_match(evb, bare(name) or name) then
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
  -- a clause whose events the recording lacks would never run
  for _, c in ipairs(handlers) do
    for _, ev in ipairs(c.events) do
      local found = false
      for _, name in ipairs(info.events or {}) do
        local evb = bare(ev) or ev
        if ev == name or evb == (bare(name) or name) or glob_match(evb, bare(name) or name) then
          found = true
        end
      end
      if not found then
        fail("the recording has no event '" .. luaprof.shown(ev) .. "' (it has " ..
             table.concat(info.events or {}, ", ") .. ")")
      end
    end
  end
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
    for _, ev in ipairs(c.events) do
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

function on_interval()
  print_maps(false)
end

function on_end()
  for _, fn in ipairs(ends) do fn() end
  print_maps(true)
  if MODE == "explain" then
    for _, ca in ipairs(c_aggs) do
      io.stderr:write(string.format("luaprof: -x clause %d: %s\n", ca.clause.n,
                                    ca.agg:active() and "evaluated in C" or "evaluated in Lua"))
    end
  end
end

for _, fn in ipairs(begins) do fn() end
