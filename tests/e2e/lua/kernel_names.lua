-- kernel_names.lua: the kernel samples of a replay by name and object
-- ("?" for none), then a first line "kernel N unnamed M" (kcache,
-- kallsyms_copy).
local c, kernel, unnamed = {}, 0, 0
function on_sample(s)
  if s.kernel then
    kernel = kernel + 1
    if not s.sym then unnamed = unnamed + 1 end
    local k = (s.sym or "?") .. " " .. (s.dso or "?")
    c[k] = (c[k] or 0) + 1
  end
end
function on_end()
  local t = {}
  for k, n in pairs(c) do t[#t + 1] = n .. " " .. k end
  table.sort(t)
  print("kernel " .. kernel .. " unnamed " .. unnamed)
  for _, l in ipairs(t) do print(l) end
end
