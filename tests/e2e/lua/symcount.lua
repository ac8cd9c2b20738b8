-- Prints "N [k] sym" / "N [.] sym" per named function, as perf report
-- --sort sym -F sample,sym prints it; unnamed samples as "N [?] unknown".
-- Like perf, one line per symbol of each object: a name found in two
-- objects makes two lines.  With arg[1], only the samples of that pid (as
-- perf report --pid).
local c, label = {}, {}
local only = arg[1] and tonumber(arg[1])
function on_sample(s)
  if only and s.pid ~= only then return end
  local sym = s.sym
  local k = sym and ((s.kernel and "[k] " or "[.] ") .. sym) or "[?] unknown"
  local key = k .. "\0" .. tostring(s.dso)
  c[key] = (c[key] or 0) + 1
  label[key] = k
end
function on_end()
  for key, n in pairs(c) do print(n .. " " .. label[key]) end
end
