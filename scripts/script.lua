-- script.lua: every sample as text, in `perf script`'s default layout: a
-- header line (command, thread, CPU, time, period, event), then with call
-- stacks one frame per line (address, symbol+offset, object) and a blank
-- line.  FlameGraph's stackcollapse-perf.pl, speedscope and the Firefox
-- Profiler import it as they import perf script's.
--
--   luaprof run script -i perf.data > out.perf
--   luaprof run script -g -- ./prog | stackcollapse-perf.pl | flamegraph.pl > cpu.svg
--
-- As perf prints them: the command right-aligned in 16 columns unless the
-- sample has a call chain; the CPU only when the samples carry it; the
-- event name right-aligned to the longest of the run's.  The frames come
-- from luaprof.perfscript (C, cached per distinct stack).  A tracepoint's
-- payload is its fields as name=value (perf formats it with the event's
-- print format, so there the two differ).
--
-- --fields=comm,tid,time,event,ip,sym,dso is perf script's -F: the fields
-- to print, in perf's order whatever theirs, as perf prints them (the
-- command padded unless ip and a call chain are printed; sym, symoff, dso
-- and srcline only after an ip).  "+F,-G" adds to and takes from the
-- default fields.

local opt = luaprof.options{
  description = "every sample as text in perf script's layout (stackcollapse-perf.pl, speedscope import it)",
  { "out", "string", "-", "the file to write (- for stdout)" },
  { "fields", "string", "", "perf script -F: the fields to print, of " ..
    "comm, pid, tid, cpu, time, period, event, trace, ip, sym, symoff, dso, srcline; " ..
    "+F,-G adds to or takes from the default (default: perf's)" },
}

-- perf script's fields that luaprof prints.
local FIELDS = { "comm", "pid", "tid", "cpu", "time", "period", "event", "trace", "ip", "sym",
                 "symoff", "dso", "srcline" }

-- The default fields +F,-G change, perf's for the event type: a
-- tracepoint's are its payload (trace), no period and no frame (without
-- --fields perf adds a tracepoint's call chain, not to these); cpu only
-- where the samples carry it (an "optional" field, as its defaults are to
-- perf: left out where the samples lack them).
local function default_fields(tp)
  local d = { comm = true, tid = true, cpu = true, time = true, event = true }
  if tp then
    d.trace = true
  else
    d.period, d.ip, d.sym, d.symoff, d.dso = true, true, true, true, true
  end
  return d
end

-- --fields' value: a set of fields (a plain list), or changes to the
-- default (+F,-G: field -> true or false); nil for perf's default.  A
-- mistake is one line, as perf refuses it.
local function parse_fields(text)
  if text == "" then return nil end
  local set, signed, plain = {}, 0, 0
  for name in (text .. ","):gmatch("([^,]*),") do
    local sign, f = name:match("^([+-]?)(.*)$")
    if sign == "" then plain = plain + 1 else signed = signed + 1 end
    local known = false
    for _, k in ipairs(FIELDS) do known = known or k == f end
    if not known then
      luaprof.usage_error(string.format("--fields: %s is no field this script prints " ..
        "(one of %s)", luaprof.shown(f), table.concat(FIELDS, ", ")))
    end
    set[f] = sign ~= "-"
  end
  if signed > 0 and plain > 0 then
    luaprof.usage_error("--fields: either a list of fields or changes to the default " ..
      "(+F,-G), not both")
  end
  local sym = set.sym or (signed > 0 and set.sym == nil)
  local ip = set.ip or (signed > 0 and set.ip == nil)
  if set.symoff ~= false and (set.symoff or signed > 0) and not sym then
    luaprof.usage_error("--fields: symoff is sym's offset: it needs sym (perf script refuses it too)")
  end
  if set.srcline and not ip then
    luaprof.usage_error("--fields: srcline is the line of ip: it needs ip (perf script refuses it too)")
  end
  return set, signed > 0
end
local CHOSEN, CHANGES = parse_fields(opt.fields)

-- The fields to print for a sample (of a tracepoint or not), the optional
-- ones among them, and what perfscript prints of its frames; computed
-- once per kind.
local kinds = {}
local function fields_for(tp)
  local key = tp and 1 or 0
  local k = kinds[key]
  if k then return k[1], k[2], k[3] end
  local set, optional = {}, {}
  if CHANGES then
    for f, v in pairs(default_fields(tp)) do set[f], optional[f] = v, true end
    for f, v in pairs(CHOSEN) do set[f], optional[f] = v or nil, nil end
  else
    for f, v in pairs(CHOSEN) do set[f] = v end
  end
  local frame = { sym = set.sym, symoff = set.symoff, dso = set.dso, srcline = set.srcline }
  kinds[key] = { set, optional, frame }
  return set, optional, frame
end

local perfscript = luaprof.perfscript
local out = opt.out == "-" and io.stdout or assert(io.open(opt.out, "w"))
out:setvbuf("full", 1 << 16)
local event_fmt = "%s: "

function on_start(info)
  local width = 0
  for _, ev in ipairs(info.events or {}) do width = math.max(width, #ev) end
  event_fmt = "%" .. width .. "s: "
end

-- A tracepoint's fields, name=value.
local function payload(fields)
  local t = {}
  for k, v in pairs(fields) do
    if type(v) == "table" then v = "[" .. table.concat(v, ",") .. "]" end
    t[#t + 1] = k .. "=" .. tostring(v)
  end
  return table.concat(t, " ")
end

-- The header line's format for each combination of what is printed.
local formats = {}
local function header_format(chain, cpu, period)
  local key = (chain and 1 or 0) + (cpu and 2 or 0) + (period and 4 or 0)
  local f = formats[key]
  if not f then
    f = (chain and "%s %5d " or "%16s %5d ") .. (cpu and "[%03d] " or "%s") .. "%12s: "
        .. (period and "%10d " or "%s") .. event_fmt
    formats[key] = f
  end
  return f
end

-- A field asked for that the run's samples lack: one line, exit 255 (perf
-- says "Samples for 'cpu-clock' event do not have CPU attribute set.
-- Cannot print 'cpu' field.").
local function missing(s, field)
  out:flush()
  io.stderr:write(string.format("luaprof: script: --fields=...%s...: the samples of %s have no %s " ..
    "(record them with it: %s)\n", field, luaprof.shown(s.event or "[unknown]"), field,
    field == "cpu" and "-a, or perf record --sample-cpu" or "perf record -T"))
  os.exit(255)
end

-- The sample as --fields chose, in perf's order (process_event).
local function chosen(s)
  local fields, chain = s.raw and s.args, s.has_callchain
  local F, OPTIONAL, frame_fields = fields_for(s.raw ~= nil)
  local t = {}
  if F.comm then t[#t + 1] = string.format((F.ip and chain) and "%s " or "%16s ", s.comm) end
  if F.pid and F.tid then
    t[#t + 1] = string.format("%5d/%-5d ", s.pid, s.tid)
  elseif F.pid or F.tid then
    t[#t + 1] = string.format("%5d ", F.pid and s.pid or s.tid)
  end
  if F.cpu and (s.cpu or not OPTIONAL.cpu) then
    t[#t + 1] = string.format("[%03d] ", s.cpu or missing(s, "cpu"))
  end
  if F.time and (s.time or not OPTIONAL.time) then
    local ns = s.time or missing(s, "time")
    t[#t + 1] = string.format("%12s: ", string.format("%d.%06d", ns // 1000000000, ns % 1000000000 // 1000))
  end
  if F.period then t[#t + 1] = string.format("%10d ", s.period or 0) end
  if F.event then t[#t + 1] = string.format(event_fmt, s.event or "[unknown]") end
  if F.trace and fields then t[#t + 1] = payload(fields) end
  if F.ip then
    if chain then
      t[#t + 1] = "\n" .. perfscript.chain(s, frame_fields)
    else
      t[#t + 1] = perfscript.frame(s, frame_fields)
    end
  end
  t[#t + 1] = "\n"
  out:write(table.concat(t))
end

function on_sample(s)
  if CHOSEN then return chosen(s) end
  -- a tracepoint's fields (only tracepoints have s.raw), not a probe's s.args
  local fields, chain, t, cpu = s.raw and s.args, s.has_callchain, s.time, s.cpu
  out:write(string.format(header_format(chain, cpu, not fields), s.comm, s.tid, cpu or "",
                          string.format("%d.%06d", t // 1000000000, t % 1000000000 // 1000),
                          fields and "" or s.period, s.event or "[unknown]"))
  if fields then out:write(payload(fields)) end
  if chain then
    out:write("\n", perfscript.chain(s), "\n")
  else
    out:write(fields and "" or perfscript.frame(s), "\n")
  end
end

function on_end()
  out:flush()
  if out ~= io.stdout then assert(out:close()) end
end
