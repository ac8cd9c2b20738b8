-- speedscope.lua: the sampled call stacks as a speedscope profile (JSON),
-- one profile per thread (or process), in time order.
--
--   luaprof run speedscope [--out=FILE] [--per=process] -- ./prog
--
-- Open it at speedscope.app, or in speedscope's offline viewer.  With
-- --offcpu, each profile holds the thread's waits, weighed by their time.

local profile = require "profile"
local opt = luaprof.options{
  description = "a speedscope JSON profile, one per thread (-g implied; --offcpu: waits)",
  { "out", "string", "profile.speedscope.json", "the file to write (- for stdout)" },
  { "name", "string", nil, "the profile's name (default: the command)" },
  { "weight", "string", "time", "weigh samples by their time or count them",
    choices = { "time", "samples" } },
  { "per", "string", "thread", "one profile per thread or per process", choices = { "thread", "process" } },
  profile.offcpu_option("nanoseconds"), profile.EVERY,
}
profile.setup(opt)

local p, title

-- The samples go to the profile in C as the run reads them (feed = "all":
-- no Lua per sample); with --offcpu the waits, from Lua.
local function new()
  p = luaprof.speedscope{ name = title, per = opt.per, feed = not opt.offcpu and "all" or nil,
                              unit = (opt.weight == "time" or opt.offcpu) and "nanoseconds" or "none" }
end

-- --every: a file per period, each with a new profile
local per = profile.periods(opt, function(path)
  p:write(path)
  p:close()
  new()
end)
if per then
  function on_interval(info) per:interval(info) end
end

function on_start(info)
  title = opt.name or (info.command and table.concat(info.command, " "))
         or info.file or "luaprof"
  new()
  if per then per:start(info) end
end

on_event, on_switch = profile.offcpu_events(opt, function(o, ns, stack)
  local key, name = p:profile_of(o.comm, o.pid, o.tid)
  p:add_stack(key, name, stack, ns)
end, "stack")

function on_end(info)
  if per then return per:report(opt.offcpu and "sched_switch samples" or "samples") end
  p:write(opt.out)
  if opt.out ~= "-" then
    io.stderr:write(string.format("luaprof: wrote %d samples to %s\n", info.samples, opt.out))
  end
end
