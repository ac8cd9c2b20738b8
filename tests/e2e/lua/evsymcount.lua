-- Prints "EVENT N [k] sym" / "EVENT N [.] sym" per event and named function,
-- as perf report --sort sym -F sample,sym prints each event's table;
-- unnamed samples as "EVENT N [?] unknown".  One line per symbol of each
-- object, as symcount.lua.
local c, label = {}, {}
function on_sample(s)
  local sym = s.sym
  local k = sym and ((s.kernel and "[k] " or "[.] ") .. sym) or "[?] unknown"
  local key = s.event .. "\0" .. k .. "\0" .. tostring(s.dso)
  c[key] = (c[key] or 0) + 1
  label[key] = k
end
function on_end()
  for key, n in pairs(c) do print(key:match("^[^%z]*") .. " " .. n .. " " .. label[key]) end
end
