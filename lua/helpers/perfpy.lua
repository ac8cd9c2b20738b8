-- perfpy, a helper of the shipped scripts (require "perfpy"; no public
-- module): what the Lua ports of perf's own scripts (perf script -s
-- syscall-counts.py, failed-syscalls-by-pid.py, ...) share, so that each
-- prints what the original prints:
--
--   perfpy.dict()            a table that keeps its keys in the order they
--                            were first set, as Python's dicts do (the
--                            scripts' autodict): d:at(k, make) gets or
--                            makes, d:add(k, n) counts, d:keys() in order
--   perfpy.by_count(d)       d's (key, count) pairs as Python's
--                            sorted(d.items(), key=lambda kv: (kv[1], kv[0]),
--                            reverse=True) orders them: most first, ties
--                            by the larger key
--   perfpy.syscall_name(id)  Util.syscall_name: the name, or the number
--   perfpy.strerror(ret)     Util.strerror: "ENOENT" for -2 (Python's
--                            names: ENOTSUP for 95), else "Unknown N errno"
--   perfpy.only(value)       the scripts' [comm] / [pid] argument: a
--                            function(comm, pid) -> whether to count
--   perfpy.print_syscall_totals(d, for_comm, rule)
--                            syscall-counts.py's and sctop.py's table of
--                            d (id -> count); rule: the count column's
--                            dashes (they differ by one)

local M = {}
local Dict = {}
Dict.__index = Dict

function M.dict()
  return setmetatable({ order = {}, vals = {} }, Dict)
end

function Dict:at(k, make)
  local v = self.vals[k]
  if v == nil then
    v = make and make() or 0
    self.vals[k] = v
    self.order[#self.order + 1] = k
  end
  return v
end

function Dict:add(k, n)
  self:at(k)
  self.vals[k] = self.vals[k] + (n or 1)
end

function Dict:get(k) return self.vals[k] end

function Dict:keys()
  local i = 0
  return function()
    i = i + 1
    return self.order[i]
  end
end

function Dict:clear()
  self.order, self.vals = {}, {}
end

function M.by_count(d)
  local list = {}
  for k in d:keys() do list[#list + 1] = k end
  table.sort(list, function(a, b)
    local va, vb = d.vals[a], d.vals[b]
    if va ~= vb then return va > vb end
    return a > b
  end)
  local i = 0
  return function()
    i = i + 1
    local k = list[i]
    if k ~= nil then return k, d.vals[k] end
  end
end

-- perf's Util.syscall_name with python3-audit, as Debian's perf runs its
-- scripts: audit's name, and None for a number it has no name for (such as
-- -1, which raw_syscalls:sys_exit reports for some exits).
function M.syscall_name(id)
  return luaprof.syscall_name(id, "audit") or "None"
end

-- Python's errno.errorcode, which Util.strerror reads, names two numbers
-- by their other name: the later of the two its errno module defines.
local PYTHON_ERRNO = { [35] = "EDEADLOCK", [95] = "ENOTSUP" }

function M.strerror(nr)
  local n = math.abs(nr)
  return PYTHON_ERRNO[n] or luaprof.errno_name(nr) or string.format("Unknown %d errno", nr)
end

-- The [comm|pid] argument: a number is a pid, anything else a command name.
function M.only(value)
  if value == nil or value == "" then return function() return true end end
  local pid = math.tointeger(tonumber(value))
  if pid then return function(_, p) return p == pid end end
  return function(comm) return comm == value end
end

function M.print_syscall_totals(d, for_comm, rule)
  if for_comm then
    print(string.format("\nsyscall events for %s:\n", for_comm))
  else
    print("\nsyscall events:\n")
  end
  print(string.format("%-40s  %10s", "event", "count"))
  print(string.format("%-40s  %10s", string.rep("-", 40), rule))
  for id, n in M.by_count(d) do
    print(string.format("%-40s  %10d", M.syscall_name(id), n))
  end
end

return M
