-- flamegraph.lua: an interactive flame graph (one self-contained SVG) of
-- the sampled call stacks, or of where threads waited (--offcpu).
--
--   luaprof run flamegraph [--out=FILE] [--icicle] [--per=thread] -- ./prog
--   luaprof run flamegraph -i new.data --diff=old.data     (differential)
--
-- Stacks are counted by their folded form (comm;root;...;leaf, as
-- s.folded), in C as the run reads the samples (luaprof.stacks), so a
-- long recording costs about what naming its frames does.  --base or --diff draws a differential
-- graph: frame widths are this run's, colours the change from the base
-- profile (red: more of the samples than in the base, blue: fewer).

local profile = require "profile"
local opt = luaprof.options{
  description = "an interactive flame graph SVG of the call stacks (-g implied; --offcpu: waits)",
  help = [[Open the SVG in a browser: click a frame to zoom, "Reset Zoom" to go
back, "Search" (or Ctrl-F) to highlight frames matching a regular
expression with their share of the samples.  Kernel frames are blue,
user frames warm, inlined teal, JIT-compiled green (frames named by a
perf map: node's JS:*, python -X perf's py::).  Differential: give
the base as a recording (--diff=OLD.data, replayed with the same --per
and --offcpu) or as folded stacks (--base=FILE, from luaprof run folded).
--offcpu weighs stacks by the time threads waited there, in microseconds.]],
  { "out", "string", "flamegraph.svg", "the SVG file to write (- for stdout)" },
  { "title", "string", nil, "the title (default: Flame Graph, or Off-CPU Time Flame Graph)" },
  { "icicle", "boolean", false, "draw the root at the top (an icicle graph)" },
  { "base", "string", nil, "a folded file to compare with: a differential graph" },
  { "diff", "string", nil, "a recording (perf.data) to compare with: a differential graph" },
  { "width", "integer", 1200, "the image width in pixels" },
  profile.PER, profile.offcpu_option("microseconds"), profile.EVERY,
}
profile.setup(opt)

-- Every sample's stack, counted in C as the run reads it (no Lua per
-- sample): its folded form, root named per --per.  With --offcpu the
-- samples are sched_switch's, whose waits are added at the end instead.
local stacks = luaprof.stacks{ per = opt.per, feed = opt.offcpu and "script" or "all" }

local waits = luaprof.map()
on_event, on_switch = profile.offcpu_events(opt, function(_, ns, folded) waits:add(folded, ns) end)

-- The base profile of --diff: the other recording's folded stacks, from
-- this luaprof running the folded script over it with the same options.
local function diff_base(path)
  local function q(s) return "'" .. s:gsub("'", "'\\''") .. "'" end
  local tmp = os.tmpname()
  local cmd = string.format("%s run folded -i %s --out=%s --per=%s%s", q(luaprof.executable), q(path),
                            q(tmp), opt.per, opt.offcpu and " --offcpu" or "")
  local ok = os.execute(cmd)
  local base = ok and luaprof.folded.read(tmp)
  os.remove(tmp)
  if not base then error("--diff: cannot read the stacks of " .. luaprof.shown(path), 0) end
  return base
end

-- The graph of stacks (samples: their count, for the subtitle) to path.
local base_name = opt.diff or opt.base
local base
local function write(path, samples)
  for folded, ns in pairs(waits) do stacks:add(folded, (ns + 500) // 1000) end
  if base_name and base == nil then
    base = opt.diff and diff_base(opt.diff) or luaprof.folded.read(opt.base)
  end
  luaprof.flamegraph.write(path, stacks, {
    title = opt.title or (opt.offcpu and "Off-CPU Time Flame Graph" or nil),
    countname = opt.offcpu and "us" or nil,
    icicle = opt.icicle, base = base, width = opt.width,
    subtitle = string.format("%d %s%s", opt.offcpu and stacks:sum() or samples,
                             opt.offcpu and "us off the CPU" or "samples",
                             base and ", colours: change from " .. base_name or ""),
  })
end

-- --every: a graph per period, the stacks started afresh after each
local per = profile.periods(opt, function(path, period)
  write(path, period.samples)
  stacks:clear()
  waits = luaprof.map()
end)
if per then
  function on_start(info) per:start(info) end
  function on_interval(info) per:interval(info) end
end

function on_end(info)
  if per then return per:report(opt.offcpu and "sched_switch samples" or "samples") end
  write(opt.out, info.samples)
  if opt.out ~= "-" then
    io.stderr:write(string.format("luaprof: wrote %d %s (%d stacks) to %s\n", stacks:sum(),
                                  opt.offcpu and "us" or "samples", #stacks, opt.out))
  end
end
