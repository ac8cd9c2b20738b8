-- luaprof.calltree: a call tree (caller -> callee, or callee -> caller)
-- from stacks, printed with each path's count and share.
--
--   local tree = luaprof.calltree()
--   tree:add({ "main", "run", "work" }, n)   -- a path from the root, n samples
--   tree:add_folded("comm;main;run;work", n [, { reverse = true, comm = false }])
--   tree:print{ min = 0.5, depth = 20, total = N, unit = "samples" }
--   tree:sum()                               -- the sum of what was added
--
-- add_folded takes a line of FlameGraph's folded format (s.folded, or a
-- luaprof.map of them): reverse = true makes the tree leaf first (callee
-- mode: each leaf, then who called it); comm = false drops the command
-- name in front.  print writes one line per node, children under their
-- parent indented by two spaces, the heaviest first; nodes under min
-- percent of the total (default 0.5) are left out with what is below them,
-- and one line per parent says how much was left out.

local Tree = {}
Tree.__index = Tree

-- The module is the constructor: luaprof.calltree().
local function new()
  return setmetatable({ n = 0, root = { n = 0, kids = {} } }, Tree)
end

-- The sum of what was added (as a map's and a histogram's :sum()).
function Tree:sum() return self.n end

function Tree:add(path, n)
  n = n or 1
  self.n = self.n + n
  local node = self.root
  node.n = node.n + n
  for i = 1, #path do
    local name = path[i]
    local kid = node.kids[name]
    if not kid then
      kid = { n = 0, kids = {} }
      node.kids[name] = kid
    end
    kid.n = kid.n + n
    node = kid
  end
end

function Tree:add_folded(line, n, opts)
  local path = {}
  for name in line:gmatch("[^;]+") do path[#path + 1] = name end
  if opts and opts.comm == false then table.remove(path, 1) end
  if opts and opts.reverse then
    local m = #path
    for i = 1, m // 2 do path[i], path[m - i + 1] = path[m - i + 1], path[i] end
  end
  self:add(path, n)
end

-- The children of node, heaviest first (ties by name).
local function sorted_kids(node)
  local list = {}
  for name, kid in pairs(node.kids) do list[#list + 1] = { name, kid } end
  table.sort(list, function(a, b)
    if a[2].n ~= b[2].n then return a[2].n > b[2].n end
    return a[1] < b[1]
  end)
  return list
end

local function fmt_n(n)
  return math.type(n) == "integer" and string.format("%10d", n) or string.format("%10.0f", n)
end

local function walk(node, depth, o, out)
  local cut, cut_nodes = 0, 0
  for _, e in ipairs(sorted_kids(node)) do
    local name, kid = e[1], e[2]
    local p = o.total > 0 and 100 * kid.n / o.total or 0
    if p < o.min or depth > o.depth then
      cut, cut_nodes = cut + kid.n, cut_nodes + 1
    else
      out(string.format("%7.2f%% %s  %s%s", p, fmt_n(kid.n), string.rep("  ", depth - 1), name))
      walk(kid, depth + 1, o, out)
    end
  end
  if cut_nodes > 0 and depth <= o.depth then
    out(string.format("%7.2f%% %s  %s[%d more below %.2f%%]", 100 * cut / math.max(o.total, 1),
                      fmt_n(cut), string.rep("  ", depth - 1), cut_nodes, o.min))
  end
end

function Tree:print(opts)
  opts = opts or {}
  local o = { min = opts.min or 0.5, depth = opts.depth or math.huge,
              total = opts.total or self.n }
  walk(self.root, 1, o, opts.out or print)
end

return new
