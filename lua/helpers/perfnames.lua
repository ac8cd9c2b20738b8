-- perfnames: how perf report and perf top name a row's function and
-- object, shared by the shipped scripts top and live (a helper of theirs,
-- not a public module).
local M = {}

-- path's base name; "[unknown]" for none.
function M.basename(path)
  return path and (path:match("([^/]+)$") or path) or "[unknown]"
end

local short_names = {}          -- mangled name -> its short form

-- f's function (a frame, or the sample) as perf names it: demangled
-- without the parameter list and clone suffixes, once per name.
function M.short_name(f)
  local m = f.mangled
  if not m then return f.sym end
  local n = short_names[m]
  if not n then
    n = luaprof.demangle(m, false) or f.sym
    short_names[m] = n
  end
  return n
end

-- An object's name as perf's dso column shows it: the file's base name,
-- and a perf map (/tmp/perf-PID.map) as "[JIT] tid PID"
-- (dso__set_basename).
function M.dso_name(path)
  local pid = path and path:match("^/tmp/perf%-(%-?%d+)")
  if pid then return "[JIT] tid " .. math.tointeger(tonumber(pid)) end
  return M.basename(path)
end

return M
