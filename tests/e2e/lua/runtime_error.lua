local n = 0
local function check(s)
  n = n + 1
  if n == 50 then error("deliberate failure at sample " .. n) end
end
function on_sample(s) check(s) end
function on_end() print("on_end must not run after an error") end
