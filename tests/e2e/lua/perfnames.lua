-- perfnames.lua: each C++ function name of the run's stacks as luaprof
-- names it, a tab, and as perf names it (demangled without parameters),
-- one distinct pair a line: what tests use to compare rows by function
-- until top names functions as perf does.
local seen = {}
function on_sample(s)
  for _, f in ipairs(s.stack) do
    if f.mangled and f.sym and not seen[f.sym] then
      seen[f.sym] = true
      print(f.sym .. "\t" .. (luaprof.demangle(f.mangled, false) or f.sym))
    end
  end
end
