-- A script slower than the samples come: ~100 us of Lua per sample.
local x = 0
function on_sample(s) for i = 1, 20000 do x = x + i end end
function on_end(info) print("end", info.samples, info.lost) end
