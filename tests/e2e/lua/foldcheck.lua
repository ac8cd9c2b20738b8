-- Checks every sample's s.folded (which may come from the folded-string
-- cache) against the same string built here from s.comm and s.stack.
local n, bad, first = 0, 0, nil

local function clean(name, comm)
  name = name:gsub(";", ":"):gsub("\n", "_")
  if comm then name = name:gsub(" ", "_") end
  return name
end

local function build(s)
  local parts = { clean(s.comm or "[unknown]", true) }
  local st = s.stack
  for i = #st, 1, -1 do
    local f = st[i]
    local jit = f.dso and f.dso:match("^/tmp/perf%-%d+%.map$")
    parts[#parts + 1] = clean(f.sym or "[unknown]") ..
                        (f.kernel and "_[k]" or f.inlined and "_[i]" or jit and "_[j]" or "")
  end
  return table.concat(parts, ";")
end

function on_sample(s)
  n = n + 1
  local want, got = build(s), s.folded
  if got ~= want then
    bad = bad + 1
    first = first or ("sample " .. n .. ": s.folded " .. got .. " built " .. want)
  end
end

function on_end()
  print(string.format("%d samples %d differ", n, bad))
  if first then print(first) end
end
