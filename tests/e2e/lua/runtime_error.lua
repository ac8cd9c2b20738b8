local n = 0
local function check()
  n = n + 1
  if n == 50 then error("deliberate failure at sample " .. n) end
end
function on_sample() check() end
function on_end(i) print("on_end after " .. i.samples .. " samples: " .. tostring(i.error)) end
