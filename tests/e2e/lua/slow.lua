-- A script slower than the samples come: ~0.5 ms of Lua per sample.
local x = 0
function on_sample() for i = 1, 100000 do x = x + i end end
function on_end(info) print("end", info.samples, info.lost) end
