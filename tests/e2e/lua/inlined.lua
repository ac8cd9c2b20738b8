-- inlined.lua FIRST LAST: of the user samples in outer(), counts those
-- whose s.stack starts with mix() marked inlined, then outer() (not
-- inlined), and whose s.file and s.line lie in mix()'s body (inlined.c,
-- lines FIRST..LAST).
-- Prints "outer N inlined M srcline K".
local first, last = tonumber(arg[1]), tonumber(arg[2])
local n, inl, src = 0, 0, 0
function on_sample(s)
  if s.kernel or s.sym ~= "outer" then return end
  n = n + 1
  local st = s.stack
  if st[1].sym == "mix" and st[1].inlined and st[2].sym == "outer" and not st[2].inlined then
    inl = inl + 1
  end
  local line = s.line
  if line and line >= first and line <= last and s.file:match("inlined%.c$") then
    src = src + 1
  end
end
function on_end() print("outer " .. n .. " inlined " .. inl .. " srcline " .. src) end
