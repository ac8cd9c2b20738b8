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

local opt = luaprof.options{
  description = "every sample as text in perf script's layout (stackcollapse-perf.pl, speedscope import it)",
  { "out", "string", "-", "the file to write (- for stdout)" },
}

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

function on_sample(s)
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
