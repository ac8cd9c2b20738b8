-- Prints each sample's stack, leaf first, as "sym;sym;..." ("[unknown]"
-- for unnamed frames; inlined frames left out), one line per sample: what
-- perf script --no-inline -F ip,sym prints, joined.
function on_sample(s)
  local t = {}
  for _, f in ipairs(s.stack) do
    if not f.inlined then t[#t + 1] = f.sym or "[unknown]" end
  end
  print(table.concat(t, ";"))
end
