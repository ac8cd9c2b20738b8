-- Prints each sample's stack, leaf first, as "sym;sym;..." ("[unknown]"
-- for unnamed frames), one line per sample: what perf script -F sym
-- prints, joined.
function on_sample(s)
  local t = {}
  for i, f in ipairs(s.stack) do t[i] = f.sym or "[unknown]" end
  print(table.concat(t, ";"))
end
