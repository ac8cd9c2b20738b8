-- luaprof.calltree: building a tree from paths and folded lines, and its
-- printed form.
local T = require "harness"
local calltree = luaprof.calltree

-- A printed line: percent, count (%10d), indent, name.
local function line(pct, n, depth, name)
  return string.format("%7.2f%% %10d  %s%s\n", pct, n, string.rep("  ", depth - 1), name)
end

local function lines_of(tree, opts)
  local out = {}
  opts = opts or {}
  opts.out = function(s) out[#out + 1] = s .. "\n" end
  tree:print(opts)
  return table.concat(out)
end

T.case("calltree: paths, heaviest first, ties by name", function()
  local t = calltree()
  t:add({ "main", "run", "work" }, 6)
  t:add({ "main", "run", "idle" }, 2)
  t:add({ "main", "init" }, 2)
  t:add({ "other" })
  T.eq(t:sum(), 11)
  T.eq(t.total, nil, "tree:sum(), as a map's")  -- api-rename: keep
  T.eq(lines_of(t),
       line(100 * 10 / 11, 10, 1, "main") ..
       line(100 * 8 / 11, 8, 2, "run") ..
       line(100 * 6 / 11, 6, 3, "work") ..
       line(100 * 2 / 11, 2, 3, "idle") ..
       line(100 * 2 / 11, 2, 2, "init") ..
       line(100 * 1 / 11, 1, 1, "other"))
end)

T.case("calltree: the literal text", function()
  local t = calltree()
  t:add({ "a", "b" }, 3)
  t:add({ "a" }, 1)
  T.eq(lines_of(t), " 100.00%          4  a\n  75.00%          3    b\n")
end)

T.case("calltree: min and depth cut, with a line for what was left out", function()
  local t = calltree()
  t:add({ "m", "big" }, 90)
  t:add({ "m", "s1" }, 6)
  t:add({ "m", "s2" }, 4)
  T.eq(lines_of(t, { min = 5 }),
       line(100, 100, 1, "m") .. line(90, 90, 2, "big") .. line(6, 6, 2, "s1") ..
       line(4, 4, 2, "[1 more below 5.00%]"))
  T.eq(lines_of(t, { depth = 1 }), line(100, 100, 1, "m"), "below depth: nothing, not even a line")
end)

T.case("calltree: total given to print", function()
  local t = calltree()
  t:add({ "x" }, 5)
  T.eq(lines_of(t, { total = 20 }), line(25, 5, 1, "x"))
end)

T.case("calltree: folded lines, caller and callee first, without the comm", function()
  local t = calltree()
  t:add_folded("bash;main;read", 3)
  t:add_folded("bash;main;write", 1)
  T.eq(lines_of(t), line(100, 4, 1, "bash") .. line(100, 4, 2, "main") ..
                    line(75, 3, 3, "read") .. line(25, 1, 3, "write"))
  local r = calltree()
  r:add_folded("bash;main;read", 3, { reverse = true, comm = false })
  r:add_folded("sh;other;read", 1, { reverse = true, comm = false })
  T.eq(lines_of(r), line(100, 4, 1, "read") .. line(75, 3, 2, "main") .. line(25, 1, 2, "other"))
end)

T.case("calltree: print writes with print by default", function()
  local t = calltree()
  t:add({ "f" }, 2)
  T.eq(T.output(function() t:print() end), line(100, 2, 1, "f"))
end)

T.case("calltree: an empty tree prints nothing", function()
  T.eq(lines_of(calltree()), "")
end)

T.done()
