-- callgraph.lua: the call tree of the hottest paths with their shares, like
-- `perf report -g caller` (root first: who calls what) or `-g callee`
-- (leaf first: each hot function, then its callers).
--
--   luaprof run callgraph [--order=caller|callee] [--min=PCT] [--per=comm] -- ./prog
--
-- Stacks are counted by their folded form (as s.folded) in C as the run
-- reads the samples (luaprof.stacks), and the tree is built once at the
-- end from the distinct stacks, so a long recording costs about what
-- naming its frames does.

local opt = luaprof.options{
  description = "the caller/callee tree of the hottest paths with percentages (-g implied)",
  help = [[Each line: the share of all samples through the path, the samples,
then the function, indented under its caller (--order=caller) or its
callee (--order=callee).  Paths under --min percent are summed into one
"[N more below ...]" line.  Kernel functions end in _[k], JIT code in
_[j], inlined functions in _[i].  One tree per event.]],
  { "order", "string", "caller", "root first (caller) or leaf first (callee)",
    choices = { "caller", "callee" } },
  { "min", "number", 0.5, "leave out paths under this share of the samples, in percent" },
  { "depth", "integer", 64, "levels of the tree to print at most" },
  { "per", "string", "all", "one tree for all commands (all), or each command's name at its root (comm)",
    choices = { "all", "comm" } },
}
luaprof.setup{ call_graph = true }

-- Every sample's stack by its event, counted in C as the run reads it
-- (no Lua per sample); the tree is built from the distinct stacks.
local stacks = luaprof.stacks{ events = true }

function on_end()
  for i, ev in ipairs(stacks:events()) do
    local tree = luaprof.calltree()
    for folded, n in stacks:each(ev) do
      tree:add_folded(folded, n, { reverse = opt.order == "callee", comm = opt.per == "comm" })
    end
    if i > 1 then print() end
    print(string.format("# %d samples of event '%s', %s graph (%s first), paths under %.2f%% left out",
                        tree:sum(), ev, opt.order, opt.order == "caller" and "root" or "leaf", opt.min))
    tree:print{ min = opt.min, depth = opt.depth }
  end
end
