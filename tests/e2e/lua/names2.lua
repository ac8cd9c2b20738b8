-- names2.lua: per user sample with a stack, "COUNT SYM | MANGLED | CALLER"
-- of its leaf's own function (the first frame not inlined: a dwarf
-- stack puts the functions inlined there before it) and the function
-- after it.
local c = {}
function on_sample(s)
  if s.kernel then return end
  local st = s.stack
  local i = 1
  while st[i] and st[i].inlined do i = i + 1 end
  local f, g = st[i], st[i + 1]
  if not f then return end
  local k = (f.sym or "?") .. " | " .. (f.mangled or "-") .. " | " .. (g and g.sym or "?")
  c[k] = (c[k] or 0) + 1
end
function on_end() for k, n in pairs(c) do print(n .. " " .. k) end end
