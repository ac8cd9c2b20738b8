-- live.lua: a live view of the hottest functions, as perf top.
--
--   luaprof top                          (the whole system; = luaprof run live -a)
--   luaprof top -p PID | luaprof top -- ./prog [args]
--   luaprof top -g -I 2000 --view=dso
--
-- On a terminal it takes the screen (luaprof.term) and redraws it in place
-- every interval (-I MS, 1000 by default): a title line with the event,
-- its rate, the samples per second and the samples lost so far, then the
-- hottest rows.  The counts decay as perf top's do: at each refresh every
-- row keeps 7/8 of its samples, so a row shows its recent share and fades
-- out when it stops being hot; z (or --zero, perf top's -z) shows the
-- last interval alone instead.  Keys: v cycles the view (functions,
-- objects, commands), c shows the children (inclusive) share when stacks
-- are recorded (-g), z switches zeroing, q quits.  Stacks are walked only
-- while children are shown (a stack costs three times the rest of a
-- sample): c starts the counts afresh, --children shows them from the
-- start.
-- When standard output is no terminal it prints one table per interval,
-- each of that interval's samples alone (they add up to the run's).
-- Rows are named as top.lua (perf report) names them: [k]/[.] and the
-- function as perf prints it, an unnamed address per object offset, the
-- object's base name, a perf map as [JIT] tid PID.

local term = luaprof.term
local opt = luaprof.options{
  description = "a live view of the hottest functions, objects or commands, as perf top",
  help = [[On a terminal: redrawn in place every interval (-I MS, default 1000);
keys v (view: functions, objects, commands), c (children, with -g),
z (zero: the last interval only, instead of decaying counts), q (quit).
Otherwise: one table per interval, of that interval's samples.]],
  { "view", "string", "sym", "the first view: sym (functions), dso (objects) or comm (commands)",
    choices = { "sym", "dso", "comm" } },
  { "children", "boolean", false, "start with the children (inclusive) share (needs -g)" },
  { "zero", "boolean", false, "each refresh shows the last interval only (perf top -z)" },
  { "limit", "integer", 0, "rows to show (0: as many as the terminal holds; 20 in tables)", min = 0 },
}
luaprof.setup{ interval = 1000 }

local VIEWS = { "sym", "dso", "comm" }
local VIEW_NAME = { sym = "functions", dso = "objects", comm = "commands" }
local DECAY_NUM, DECAY_DEN = 7, 8       -- perf top's hists__decay_entries

local on_tty = term.isatty()
local view, children, zero = opt.view, opt.children, opt.zero or not on_tty
local keys_on = false
local stacks = nil                      -- whether samples carry call chains (first sample)
local event, rate = "?", ""
local rows = { sym = {}, dso = {}, comm = {} }  -- view -> id -> row
local shown = rows                      -- what the screen shows (zero: the last interval's)
local status = "waiting for the first refresh"  -- the last refresh's numbers, for the title
local message = ""                      -- a key's answer, shown once
local elapsed = 0                       -- seconds from the first sample to the last refresh

-- ---- naming rows, as top.lua (perf report) does ----

local names = require "perfnames"
local func_name, dso_name = names.short_name, names.dso_name

-- The function row's label and identity of sample s at frame f (nil: the
-- sampled frame): named functions per object, unnamed ones per address.
local function sym_key(s, f)
  local x = f or s
  local level = x.kernel and "[k] " or "[.] "
  local name = func_name(x)
  if name then return level .. name, (x.dso or "") .. "\0" .. name end
  local addr = f and (f.caller and f.ip - 1 or f.ip) or s.offset or s.ip
  local text = addr == 0 and "0000000000000000" or string.format("0x%016x", addr)
  return level .. text, text
end

local function row(t, id, label, dso)
  local r = t[id]
  if not r then
    r = { label = label, dso = dso, self = 0, children = 0, n = 0 }
    t[id] = r
  end
  return r
end

function on_sample(s)
  if stacks == nil then stacks = s.has_callchain end
  local p = s.period
  local label, id = sym_key(s)
  local dso = dso_name(s.dso)
  local rs = row(rows.sym, id, label, dso)
  local rd = row(rows.dso, dso, dso)
  local rc = row(rows.comm, s.comm or "?", s.comm or "?")
  for _, r in ipairs{ rs, rd, rc } do
    r.self, r.n = r.self + p, r.n + 1
  end
  rc.children = rc.children + p
  if not (children and stacks) then return end  -- a stack costs 3-4 times the rest
  local seen = {}
  local st = s.stack
  for i = #st, 1, -1 do
    local f = st[i]
    if not f.inlined or i == 1 then
      local fl, fid = sym_key(s, i > 1 and f or nil)
      local fd = dso_name(f.dso)
      local r1, r2 = row(rows.sym, fid, fl, fd), row(rows.dso, fd, fd)
      if not seen[r1] then seen[r1] = true r1.children = r1.children + p end
      if not seen[r2] then seen[r2] = true r2.children = r2.children + p end
    end
  end
end

-- ---- the table ----

local pct = require("luaprof.fmt").pct

-- The rows of the current view, hottest first, and their total.
local function sorted()
  local list, total = {}, 0
  local by = (children and stacks) and "children" or "self"
  for _, r in pairs(shown[view]) do
    total = total + r.self
    if r[by] > 0 then list[#list + 1] = r end
  end
  table.sort(list, function(a, b)
    if a[by] ~= b[by] then return a[by] > b[by] end
    if a.self ~= b.self then return a.self > b.self end
    return a.label < b.label
  end)
  return list, total
end

local function cells(limit)
  local list, total = sorted()
  local ch = children and stacks
  local headers = ch and { "Children", "Self", "Samples" } or { "Overhead", "Samples" }
  if view == "sym" then headers[#headers + 1] = "Shared Object" end
  headers[#headers + 1] = view == "sym" and "Symbol" or view == "dso" and "Shared Object" or "Command"
  local out = {}
  for i = 1, math.min(limit, #list) do
    local r = list[i]
    local c = ch and { pct(r.children, total), pct(r.self, total), r.n } or { pct(r.self, total), r.n }
    if view == "sym" then c[#c + 1] = r.dso end
    c[#c + 1] = r.label
    out[i] = c
  end
  return out, headers
end

local function title()
  local mode = VIEW_NAME[view] .. (children and stacks and ", children" or "")
               .. (zero and ", last interval" or ", decaying")
  return string.format("%s%s: %s | %s | %.1f s", event, rate ~= "" and (", " .. rate) or "", status,
                       mode, elapsed)
end

local function draw()
  local h, w = term.size()
  if not h or not term.active() then return end     -- the terminal was given back
  local limit = opt.limit > 0 and math.min(opt.limit, h - 4) or h - 4
  local data, headers = cells(math.max(limit, 0))
  local text = luaprof.fmt.table(data, { headers = headers })
  local lines = { title(),
    message ~= "" and message or
      (keys_on and "keys: v view (functions/objects/commands)  c children  z zero  q quit" or
       "(no keys: standard input is not a terminal; Ctrl-C ends)"), "" }
  for line in text:gmatch("[^\n]+") do lines[#lines + 1] = line end
  local out = { "\27[H" }
  for i = 1, math.min(#lines, h) do
    local l = lines[i]
    if #l > w then l = l:sub(1, w) end
    out[#out + 1] = l .. "\27[K" .. (i < h and "\n" or "")
  end
  out[#out + 1] = "\27[J"
  io.write(table.concat(out))
  io.flush()
end

-- After a refresh: zero starts the next interval afresh (the screen
-- keeps showing the last one's rows until then); else every row keeps
-- 7/8 of its counts, and goes once they reach 0.
local function clear_or_decay()
  if zero then
    rows = { sym = {}, dso = {}, comm = {} }
    return
  end
  for _, v in ipairs(VIEWS) do
    local t = rows[v]
    for id, r in pairs(t) do
      r.self = r.self * DECAY_NUM // DECAY_DEN
      r.children = r.children * DECAY_NUM // DECAY_DEN
      r.n = r.n * DECAY_NUM // DECAY_DEN
      if r.self == 0 and r.children == 0 then t[id] = nil end
    end
  end
end

function on_start(info)
  event = info.events[1] or "?"
  rate = info.freq and (info.freq .. " Hz") or info.period and ("period " .. info.period) or ""
  if on_tty then
    keys_on = term.start()
    draw()              -- the title and the keys at once, the rows at the first refresh
  end
end

function on_interval(info)
  shown = rows
  local secs = info.delta / 1e9
  status = string.format("%d samples/s, %d lost",
                         secs > 0 and math.floor(info.samples / secs + 0.5) or 0, info.lost)
  elapsed = info.elapsed / 1e9
  if on_tty then
    draw()
    message = ""
  else
    local data, headers = cells(opt.limit > 0 and opt.limit or 20)
    print(string.format("# %.1f s: %d samples of event '%s'%s, %s", elapsed,
                        info.samples, event, rate ~= "" and (", " .. rate) or "", status))
    luaprof.fmt.print_table(data, { headers = headers })
    print()
    io.flush()
  end
  clear_or_decay()
end

function on_key(key)
  if key == "q" then
    os.exit(0)          -- the user's choice: 0, even when a command is cut short
  elseif key == "v" then
    for i, v in ipairs(VIEWS) do
      if v == view then view = VIEWS[i % #VIEWS + 1] break end
    end
  elseif key == "c" then
    if not stacks then
      message = "children need call stacks: run with -g"
    else
      children = not children
      if children then      -- stacks are walked from now on: the counts start afresh
        rows = { sym = {}, dso = {}, comm = {} }
        shown = rows
        message = "children: counting from now"
      end
    end
  elseif key == "z" then
    zero = not zero
  else
    return
  end
  draw()
end

function on_end()
  term.stop()
end
