-- luaprof.stat: printing event counts as perf stat prints them.
--
--   local stat = luaprof.stat
--   stat.line(name, c, all, wall_ns [, prefix]) -> string
--       one event's line: its value (task-clock and cpu-clock in msec),
--       <not supported> / <not counted>, the ratio perf derives after '#'
--       (CPUs utilized from wall_ns, rates per second of task time,
--       instructions per cycle, miss ratios), and for a multiplexed event
--       the share of the time it ran; c is info.values[name], all is
--       info.values
--   stat.ratio(name, c, all, wall_ns) -> string or nil    the '#' part
--   stat.names(list) -> list     event names without repeats (a USDT
--                                  probe with several sites counts once)
--   stat.report(info, names, target) -> string
--       perf stat's whole report for on_end's info: the header naming
--       target, a line per event, the elapsed, user and system times
--   stat.interval(info, names) -> string
--       perf stat -I's lines for on_interval's info (its values are the
--       interval's), each prefixed with the time since the start
--   stat.HEADER   perf stat -I's column header
--
-- info.values[name] is { value = scaled, raw =, enabled = ns, running = ns,
-- supported = bool } (see docs/commands.md, "Counting").

local M = {}

M.HEADER = "#           time             counts unit events"

local function base(name)
  return name:match("^[^:/]+") or name
end

local function is_clock(name)
  local b = base(name)
  return b == "task-clock" or b == "cpu-clock"
end

function M.names(list)
  local seen, out = {}, {}
  for _, n in ipairs(list) do
    if not seen[n] then seen[n] = true out[#out + 1] = n end
  end
  return out
end

local function value_of(all, n)
  local c = all[n]
  return c and c.supported and c.running > 0 and c.value or nil
end

-- "1.528 K/sec": events per second of task (or cpu) time.
local function rate(value, task)
  local r, unit = value * 1e9 / task, ""
  for _, u in ipairs({ { 1e9, "G" }, { 1e6, "M" }, { 1e3, "K" } }) do
    if r >= u[1] then r, unit = r / u[1], u[2] break end
  end
  return string.format("%8.3f %s/sec", r, unit)
end

function M.ratio(name, c, all, wall_ns)
  local b, v = base(name), c.value
  local task = value_of(all, "task-clock") or value_of(all, "cpu-clock")
  local cycles, branches, refs = value_of(all, "cycles"), value_of(all, "branches"),
                                 value_of(all, "cache-references")
  if is_clock(name) then
    return wall_ns and wall_ns > 0 and string.format("%8.3f CPUs utilized", v / wall_ns) or nil
  elseif b == "instructions" and cycles and cycles > 0 then
    return string.format("%8.2f  insn per cycle", v / cycles)
  elseif b == "branch-misses" and branches and branches > 0 then
    return string.format("%8.2f%% of all branches", 100 * v / branches)
  elseif b == "cache-misses" and refs and refs > 0 then
    return string.format("%8.3f %% of all cache refs", 100 * v / refs)
  elseif b == "cycles" and task and task > 0 then
    return string.format("%8.3f GHz", v / task)
  elseif task and task > 0 then
    return rate(v, task)
  end
  return nil
end

function M.line(name, c, all, wall_ns, prefix)
  local value
  local unit = is_clock(name) and "msec" or ""
  local counted = c and c.supported and c.running > 0
  if not c or not c.supported then
    value = "<not supported>"
  elseif c.running == 0 then
    value = "<not counted>"
  elseif is_clock(name) then
    value = string.format("%.2f", c.value / 1e6)
  else
    value = tostring(c.value)
  end
  local text = string.format("%s%18s %-4s %-32s", prefix or "", value, unit, name)
  local r = counted and M.ratio(name, c, all, wall_ns)
  if r then text = text .. " # " .. r end
  if counted and c.running < c.enabled then
    text = string.format("%s  (%.2f%%)", text, 100 * c.running / c.enabled)
  end
  return (text:gsub("%s+$", ""))
end

function M.interval(info, names)
  local prefix = string.format("%16.9f ", info.elapsed / 1e9)
  local lines = {}
  for _, n in ipairs(names) do
    lines[#lines + 1] = M.line(n, info.values[n], info.values, info.delta, prefix)
  end
  return table.concat(lines, "\n")
end

function M.report(info, names, target)
  local t = { "", string.format(" Performance counter stats for '%s':", target), "" }
  for _, n in ipairs(names) do
    t[#t + 1] = M.line(n, info.values[n], info.values, info.duration)
  end
  t[#t + 1] = ""
  t[#t + 1] = string.format("%18.9f seconds time elapsed", info.duration / 1e9)
  if info.user_time then
    t[#t + 1] = ""
    t[#t + 1] = string.format("%18.9f seconds user", info.user_time / 1e9)
    t[#t + 1] = string.format("%18.9f seconds sys", info.sys_time / 1e9)
  end
  t[#t + 1] = ""
  return table.concat(t, "\n")
end

return M
