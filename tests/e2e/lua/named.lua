-- Per command: samples, and how many have a function name (s.sym).
-- Also counts samples in the object whose path ends in arg[1], if given.
local n, named, in_obj, kernel, kernel_named = {}, {}, {}, 0, 0
local want = arg[1]
function on_sample(s)
  local c = s.comm
  n[c] = (n[c] or 0) + 1
  if s.sym then named[c] = (named[c] or 0) + 1 end
  if s.kernel then
    kernel = kernel + 1
    assert(s.dso == "[kernel.kallsyms]" or s.dso:match("^%[.+%]$"), "kernel dso " .. tostring(s.dso))
    if s.sym then kernel_named = kernel_named + 1 end
  end
  if want and s.dso and s.dso:sub(-#want) == want then
    in_obj[s.sym or "?"] = (in_obj[s.sym or "?"] or 0) + 1
  end
end
function on_end()
  for c, k in pairs(n) do print(string.format("comm %s %d named %d", c, k, named[c] or 0)) end
  for sym, k in pairs(in_obj) do print(string.format("obj %s %d", sym, k)) end
  print(string.format("kernel %d named %d", kernel, kernel_named))
end
