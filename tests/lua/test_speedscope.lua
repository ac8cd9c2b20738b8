-- luaprof.speedscope: the JSON of a profile, exactly, from fake samples
-- (tables with the fields add reads: folded, stack, pid, tid, comm, period).
local T = require "harness"
local speedscope = luaprof.speedscope

local function smp(tid, pid, comm, period, ...)
  local stack = {}
  for i, f in ipairs({ ... }) do stack[i] = { sym = f[1], dso = f[2], kernel = f[3] } end
  local folded = {}
  for i = #stack, 1, -1 do folded[#folded + 1] = stack[i].sym or "[unknown]" end
  return { tid = tid, pid = pid, comm = comm, period = period, stack = stack,
           folded = comm .. ";" .. table.concat(folded, ";") }
end

local HEAD = '{"$schema":"https://www.speedscope.app/file-format-schema.json","activeProfileIndex":0,' ..
             '"exporter":"luaprof@' .. luaprof.version .. '",'

T.case("speedscope: per thread, nanoseconds, identical stacks merged", function()
  local sp = speedscope{ name = "run" }
  sp:add(smp(11, 10, "app", 100, { "work", "/bin/app" }, { "main", "/bin/app" }))
  sp:add(smp(11, 10, "app", 50, { "work", "/bin/app" }, { "main", "/bin/app" }))
  sp:add(smp(12, 10, "app", 7, { "read", "[kernel.kallsyms]", true }, { "main", "/bin/app" }))
  sp:add(smp(11, 10, "app", 1, { nil, "/bin/app" }, { "main", "/bin/app" }))
  T.eq(sp:json(), HEAD ..
    '"name":"run","profiles":[' ..
    '{"endValue":151,"name":"app (tid 11)","samples":[[0,1],[0,3]],"startValue":0,"type":"sampled",' ..
    '"unit":"nanoseconds","weights":[150,1]},' ..
    '{"endValue":7,"name":"app (tid 12)","samples":[[0,2]],"startValue":0,"type":"sampled",' ..
    '"unit":"nanoseconds","weights":[7]}],' ..
    '"shared":{"frames":[{"file":"/bin/app","name":"main"},{"file":"/bin/app","name":"work"},' ..
    '{"file":"[kernel.kallsyms]","name":"read [k]"},{"file":"/bin/app","name":"[unknown]"}]}}')
end)

T.case("speedscope: per process, counting samples, stacks of one's own", function()
  local sp = speedscope{ unit = "none", per = "process" }
  sp:add(smp(11, 10, "app", 100, { "f", "x" }))
  sp:add(smp(12, 10, "app", 100, { "f", "x" }))
  sp:add_stack(99, "wait", { { sym = "sleep" }, { sym = "f", dso = "x" } }, 5)
  T.eq(sp:profile_of("app", 10, 11), 10)
  T.eq(select(2, sp:profile_of("app", 10, 11)), "app (pid 10)")
  T.eq(sp:json(), HEAD ..
    '"name":"luaprof","profiles":[' ..
    '{"endValue":2,"name":"app (pid 10)","samples":[[0]],"startValue":0,"type":"sampled",' ..
    '"unit":"none","weights":[2]},' ..
    '{"endValue":5,"name":"wait","samples":[[0,1]],"startValue":0,"type":"sampled",' ..
    '"unit":"none","weights":[5]}],' ..
    '"shared":{"frames":[{"file":"x","name":"f"},{"name":"sleep"}]}}')
end)

T.case("speedscope: an empty profile", function()
  T.eq(speedscope():json(), HEAD .. '"name":"luaprof","profiles":[],"shared":{"frames":[]}}')
end)

T.case("speedscope: bad options", function()
  T.error('speedscope: unit is "nanoseconds" or "none"', function() speedscope{ unit = "ms" } end)
  T.error('speedscope: per is "thread" or "process"', function() speedscope{ per = "cpu" } end)
end)

T.done()
