-- srclines.lua DSO: for every frame in the object DSO of every sample,
-- the address looked up (the sampled ip; a caller's return address minus
-- one) in hex, then the frame's source frames as addr2line -f -i prints
-- them: "function" and "file:line" lines, inlined functions first; one
-- block per distinct address, blocks separated by "--".
local dso, seen = arg[1], {}
function on_sample(s)
  local st, block, addr, first = s.stack, {}, nil, true
  local function flush()
    if addr and not seen[addr] then
      seen[addr] = true
      print(string.format("%x", addr))
      for _, l in ipairs(block) do print(l) end
      print("--")
    end
    block = {}
  end
  for _, f in ipairs(st) do
    if not f.kernel then
      if f.dso == dso then
        table.insert(block, f.sym or "??")
        table.insert(block, (f.file or "??") .. ":" .. (f.line or "?"))
        if not f.inlined then
          addr = first and f.ip or f.ip - 1
          flush()
        end
      end
      if not f.inlined then first = false end
    end
  end
end
