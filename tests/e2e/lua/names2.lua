-- names2.lua: per user sample, "SYM | MANGLED | CALLER" of its leaf (the
-- leaf's raw name, "-" when it was not mangled); prints each distinct
-- line with its count.
local c = {}
function on_sample(s)
  if s.kernel then return end
  local st = s.stack
  local k = (s.sym or "?") .. " | " .. (st[1].mangled or "-") .. " | " .. (st[2] and st[2].sym or "?")
  c[k] = (c[k] or 0) + 1
end
function on_end() for k, n in pairs(c) do print(n .. " " .. k) end end
