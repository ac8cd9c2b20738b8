-- folded.lua: the sampled call stacks in FlameGraph's folded format, one
-- line per distinct stack with its count: comm;root;...;leaf COUNT.
--
--   luaprof run folded [--out=FILE] -- ./prog > out.folded
--
-- flamegraph.pl, inferno, speedscope, the Firefox Profiler and Pyroscope
-- read it; so does `luaprof run flamegraph --base=FILE`.

local opt = luaprof.options{
  description = "the call stacks in FlameGraph's folded format (-g implied)",
  { "out", "string", "-", "the file to write (- for stdout)" },
}
luaprof.setup{ call_graph = true }

local stacks = luaprof.map()

function on_sample(s)
  stacks:add(s.folded)
end

function on_end()
  luaprof.folded.write(opt.out, stacks)
end
