-- leafsrc.lua: per user sample, "SYM FILE:LINE" of its leaf (the file's
-- base name; "?" for unknown); prints each distinct line with its count.
local c = {}
function on_sample(s)
  if s.kernel then return end
  local src = s.file and s.file:gsub("^.*/", "") .. ":" .. (s.line or 0) or "?"
  local k = (s.sym or "?") .. " " .. src
  c[k] = (c[k] or 0) + 1
end
function on_end() for k, n in pairs(c) do print(n .. " " .. k) end end
