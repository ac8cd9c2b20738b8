-- speedscope.lua: the sampled call stacks as a speedscope profile (JSON),
-- one profile per thread, in time order.
--
--   luaprof run speedscope [--out=FILE] -- ./prog
--
-- Open it at speedscope.app, or in speedscope's offline viewer.

local opt = luaprof.options{
  description = "a speedscope JSON profile, one per thread (-g implied)",
  { "out", "string", "profile.speedscope.json", "the file to write (- for stdout)" },
  { "name", "string", nil, "the profile's name (default: the command)" },
  { "weight", "string", "time", "weigh samples by their time or count them",
    choices = { "time", "samples" } },
}
luaprof.setup{ call_graph = true }

local profile

function on_start(info)
  local name = opt.name or (info.command and table.concat(info.command, " "))
               or info.file or "luaprof"
  profile = luaprof.speedscope.new{ name = name,
                                     unit = opt.weight == "time" and "nanoseconds" or "none" }
end

function on_sample(s)
  profile:add(s)
end

function on_end(info)
  profile:write(opt.out)
  if opt.out ~= "-" then
    io.stderr:write(string.format("luaprof: wrote %d samples to %s\n", info.samples, opt.out))
  end
end
