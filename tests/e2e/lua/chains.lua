-- chains.lua LEAF CHAIN: counts the user-mode samples whose s.sym is LEAF,
-- and of those, the ones whose s.stack holds CHAIN (a ;-separated list of
-- function names, root first, that must appear as consecutive frames; a
-- "*" entry stands for one or more frames of any name).  Prints
-- "leaf N whole M".
local leaf, want = arg[1], {}
for name in arg[2]:gmatch("[^;]+") do want[#want + 1] = name end
local nleaf, nwhole = 0, 0

-- whether names (root first) match want from position i on
local function match_at(names, i, w)
  if w > #want then return true end
  if want[w] == "*" then
    for j = i + 1, #names do
      if match_at(names, j, w + 1) then return true end
    end
    return false
  end
  return names[i] == want[w] and match_at(names, i + 1, w + 1)
end

function on_sample(s)
  if s.kernel or s.sym ~= leaf then return end
  nleaf = nleaf + 1
  local names, st = {}, s.stack
  for i = #st, 1, -1 do names[#names + 1] = st[i].sym or "?" end
  for i = 1, #names do
    if match_at(names, i, 1) then nwhole = nwhole + 1 return end
  end
end

function on_end() print("leaf " .. nleaf .. " whole " .. nwhole) end
