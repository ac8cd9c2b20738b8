-- Stops reading for 0.3 s of CPU at the first sample, so that a one-page
-- ring overflows however fast the machine is (the command keeps running
-- meanwhile), then prints "samples N lost M" as comms.lua does.
local stalled = false
function on_sample()
  if stalled then return end
  stalled = true
  local t = os.clock() + 0.3
  while os.clock() < t do end
end
function on_end(info) print("samples " .. info.samples .. " lost " .. info.lost) end
