-- flamegraph.lua: an interactive flame graph (one self-contained SVG) of
-- the sampled call stacks.
--
--   luaprof run flamegraph [--out=FILE] [--icicle] [--base=FOLDED] -- ./prog
--
-- Stacks are counted by their folded form (s.folded: comm;root;...;leaf),
-- which luaprof caches per distinct stack, so a long recording costs about
-- what counting functions does.  --base draws a differential graph: frame
-- widths are this run's, colours the change from the base profile (red:
-- more of the samples than in the base, blue: fewer).

local opt = luaprof.options{
  description = "an interactive flame graph SVG of the call stacks (-g implied)",
  help = [[Open the SVG in a browser: click a frame to zoom, "Reset Zoom" to go
back, "Search" (or Ctrl-F) to highlight frames matching a regular
expression with their share of the samples.  Kernel frames are blue,
user frames warm, inlined teal, JIT-compiled green.  Differential: record
the base with `luaprof run folded --out=base.folded ...`, then pass
--base=base.folded.]],
  { "out", "string", "flamegraph.svg", "the SVG file to write (- for stdout)" },
  { "title", "string", nil, "the title (default: Flame Graph)" },
  { "icicle", "boolean", false, "draw the root at the top (an icicle graph)" },
  { "base", "string", nil, "a folded file to compare with: a differential graph" },
  { "width", "integer", 1200, "the image width in pixels" },
}
luaprof.setup{ call_graph = true }

local stacks = luaprof.map()

function on_sample(s)
  stacks:add(s.folded)
end

function on_end(info)
  local base = opt.base and luaprof.folded.read(opt.base) or nil
  luaprof.flamegraph.write(opt.out, stacks, {
    title = opt.title, icicle = opt.icicle, base = base, width = opt.width,
    subtitle = string.format("%d samples%s", info.samples,
                             base and ", colours: change from " .. opt.base or ""),
  })
  if opt.out ~= "-" then
    io.stderr:write(string.format("luaprof: wrote %d samples (%d stacks) to %s\n",
                                  stacks:total(), #stacks, opt.out))
  end
end
