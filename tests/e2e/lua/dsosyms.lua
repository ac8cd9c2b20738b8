-- For the object arg[1]: "named N" and "unnamed N" (its samples with and
-- without s.sym), then "N [.] sym" per function as perf report --dsos
-- prints them.  Kernel samples: "kernel named N" / "kernel unnamed N".
local dso = arg[1]
local named, unnamed, knamed, kunnamed, syms = 0, 0, 0, 0, {}
function on_sample(s)
  if s.kernel then
    if s.sym then knamed = knamed + 1 else kunnamed = kunnamed + 1 end
  elseif s.dso == dso then
    if s.sym then
      named = named + 1
      syms[s.sym] = (syms[s.sym] or 0) + 1
    else
      unnamed = unnamed + 1
    end
  end
end
function on_end()
  print("named " .. named)
  print("unnamed " .. unnamed)
  print("kernel named " .. knamed)
  print("kernel unnamed " .. kunnamed)
  for sym, n in pairs(syms) do print(n .. " [.] " .. sym) end
end
