-- harness.lua - the Lua library's unit tests run inside luaprof's own VM,
-- where the C modules (luaprof.hist, luaprof.json, ...) exist.  A test
-- file is a script whose top level does all the work:
--
--   local T = require "harness"
--   T.case("map counts", function()
--     local m = luaprof.map(); m:add("a")
--     T.eq(m:get("a"), 1)
--   end)
--   T.done()
--
-- tests/run.sh runs each file as `luaprof run FILE -i /dev/null`: luaprof
-- runs a script's top level before it opens its input, and T.done() ends
-- the run there with os.exit, so nothing is read (a file that forgets
-- T.done() fails: /dev/null is no recording).  Each case prints "ok NAME"
-- or "FAIL NAME" with what was expected and what came, and the file ends
-- with "N passed, N failed, N skipped" as the C unit tests do.

local T = {}
local passed, failed = 0, 0
local current            -- the failures of the running case

-- A value shown exactly: strings quoted (%q), tables as sorted {k = v}.
local function show(v, depth)
  depth = depth or 0
  if type(v) == "string" then return string.format("%q", v) end
  if math.type(v) == "float" then return string.format("%.17g", v) end
  if type(v) ~= "table" or depth > 4 then return tostring(v) end
  local keys = {}
  for k in pairs(v) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b)
    if type(a) ~= type(b) then return type(a) < type(b) end
    return a < b
  end)
  local parts = {}
  for _, k in ipairs(keys) do
    local kk = math.type(k) == "integer" and "[" .. k .. "]" or tostring(k)
    parts[#parts + 1] = kk .. " = " .. show(v[k], depth + 1)
  end
  return "{" .. table.concat(parts, ", ") .. "}"
end
T.show = show

local function same(a, b)
  if rawequal(a, b) then return math.type(a) == math.type(b) end
  if type(a) ~= "table" or type(b) ~= "table" then
    return a == b and math.type(a) == math.type(b)
  end
  for k, v in pairs(a) do if not same(v, b[k]) then return false end end
  for k in pairs(b) do if a[k] == nil then return false end end
  return true
end

local function fail(what, expected, actual)
  local where = debug.getinfo(3, "Sl")
  current[#current + 1] = string.format("  %s:%d: %s\n    expected: %s\n    actual:   %s",
    where.short_src, where.currentline, what, expected, actual)
end

-- actual equals expected: the same value (integers and floats apart),
-- tables compared deeply.
function T.eq(actual, expected, what)
  if not same(actual, expected) then fail(what or "values differ", show(expected), show(actual)) end
end

-- fn(...) raises an error whose message, its "file:line: " dropped, is
-- exactly expected.
function T.error(expected, fn, ...)
  local ok, err = pcall(fn, ...)
  if ok then return fail("no error raised", show(expected), "(no error)") end
  local msg = tostring(err):gsub("^[^:\n]*:%d+: ", "")
  if msg ~= expected then fail("another error", show(expected), show(msg)) end
end

-- What fn writes with print and io.write, as one string: the two are
-- swapped for the call, which is what luacheck's 121/122 warn of.
-- luacheck: push ignore 121 122
function T.output(fn, ...)
  local out = {}
  local p, w = print, io.write
  print = function(...)
    local n, t = select("#", ...), { ... }
    for i = 1, n do t[i] = tostring(t[i]) end
    out[#out + 1] = table.concat(t, "\t", 1, n) .. "\n"
  end
  io.write = function(...)
    for _, s in ipairs({ ... }) do out[#out + 1] = tostring(s) end
  end
  local ok, err = pcall(fn, ...)
  print, io.write = p, w
  if not ok then error(err, 0) end
  return table.concat(out)
end
-- luacheck: pop

-- A case: fn runs under pcall; an error in it fails the case.
function T.case(name, fn)
  current = {}
  local ok, err = xpcall(fn, debug.traceback)
  if not ok then current[#current + 1] = "  error: " .. tostring(err) end
  if #current == 0 then
    passed = passed + 1
    print("ok " .. name)
  else
    failed = failed + 1
    print("FAIL " .. name)
    for _, line in ipairs(current) do print(line) end
  end
end

-- The summary line; ends the run (exit 1 when a case failed).
function T.done()
  print(string.format("%d passed, %d failed, 0 skipped", passed, failed))
  io.stdout:flush()
  os.exit(failed == 0 and 0 or 1)
end

return T
