-- folded.lua: the sampled call stacks in FlameGraph's folded format, one
-- line per distinct stack with its count: comm;root;...;leaf COUNT.
--
--   luaprof run folded [--out=FILE] [--per=thread] -- ./prog > out.folded
--   luaprof run folded --offcpu -- ./prog       (where it waited, in us)
--
-- Frames carry FlameGraph's annotations, as stackcollapse-perf.pl --all
-- writes them: _[k] kernel, _[j] JIT (named by /tmp/perf-PID.map), and _[i]
-- for inlined functions, which flamegraph.pl --color=java or js colours.
-- flamegraph.pl, inferno, speedscope, the Firefox Profiler and Pyroscope
-- read it; so does `luaprof run flamegraph --base=FILE`.

local profile = require "profile"
local opt = luaprof.options{
  description = "the call stacks in FlameGraph's folded format (-g implied; --offcpu: waits)",
  help = [[--per=process or thread names each stack's root comm-PID or
comm-PID/TID (as stackcollapse-perf.pl --pid/--tid).  --offcpu counts the
time threads spent switched out, in microseconds, by the stack where they
blocked, instead of samples by the stack where they ran.  Frames end in
_[k] (kernel), _[j] (JIT code named by a perf map) or _[i] (inlined), as
stackcollapse-perf.pl --all annotates them.]],
  { "out", "string", "-", "the file to write (- for stdout)" },
  profile.PER, profile.offcpu_option("microseconds"), profile.EVERY,
}
profile.setup(opt)

-- Every sample's stack, counted in C as the run reads it (no Lua per
-- sample): its folded form, root named per --per.  With --offcpu the
-- samples are sched_switch's, whose waits are added at the end instead.
local stacks = luaprof.stacks{ per = opt.per, feed = opt.offcpu and "script" or "all" }

local waits = luaprof.map()     -- off-CPU: ns per stack, in microseconds at the end
on_event, on_switch = profile.offcpu_events(opt, function(_, ns, folded) waits:add(folded, ns) end)

local function write(path)
  for folded, ns in pairs(waits) do stacks:add(folded, (ns + 500) // 1000) end
  luaprof.folded.write(path, stacks)
end

-- --every: a file per period, the stacks started afresh after each
local per = profile.periods(opt, function(path)
  write(path)
  stacks:clear()
  waits = luaprof.map()
end)
if per then
  function on_start(info) per:start(info) end
  function on_interval(info) per:interval(info) end
end

function on_end()
  if per then per:report(opt.offcpu and "sched_switch samples" or "samples") else write(opt.out) end
end
