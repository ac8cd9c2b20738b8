local n = 0
function on_sample()
  n = n + 1
  if n == 10 then luaprof.exit() end
end
function on_end(info) print("delivered " .. info.samples .. " seen " .. n) end
