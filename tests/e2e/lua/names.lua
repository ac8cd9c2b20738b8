-- Prints "N pid/tid comm sym dso" for each way samples were named (sym "?"
-- when unnamed), sorted, so that two runs compare line by line.  With
-- arg[1], only the samples of that pid.
local count = {}
local only = arg[1] and tonumber(arg[1])
function on_sample(s)
  if only and s.pid ~= only then return end
  local k = string.format("%d/%d %s %s %s", s.pid, s.tid, s.comm, s.sym or "?", tostring(s.dso))
  count[k] = (count[k] or 0) + 1
end
function on_end()
  local lines = {}
  for k, n in pairs(count) do lines[#lines + 1] = n .. " " .. k end
  table.sort(lines)
  for _, l in ipairs(lines) do print(l) end
end
