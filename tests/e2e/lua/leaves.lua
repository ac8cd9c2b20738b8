-- Self samples of leaf_a and leaf_b (2:1 by construction), their object,
-- and, with -g, that every leaf sample's stack is the full recursive chain.
local self, bad_stacks, checked = {}, 0, 0
local expect = { "work", "recurse", "recurse", "recurse", "recurse", "recurse",
                 "recurse", "recurse", "recurse", "recurse", "run", "main" }
function on_sample(s)
  local sym = s.sym
  if sym == "leaf_a" or sym == "leaf_b" then
    assert(s.dso:match("/leafs$"), "leaf in " .. tostring(s.dso))
    assert(not s.kernel and s.symoff >= 0)
    self[sym] = (self[sym] or 0) + 1
    local st = s.stack
    if #st > 1 then
      checked = checked + 1
      local ok = st[1].sym == sym and st[1].ip == s.ip
      for i, name in ipairs(expect) do ok = ok and st[i + 1] and st[i + 1].sym == name end
      if not ok then bad_stacks = bad_stacks + 1 end
    end
  end
end
function on_end()
  local a, b = self.leaf_a or 0, self.leaf_b or 0
  print(string.format("leaf_a %d leaf_b %d stacks %d bad %d", a, b, checked, bad_stacks))
  assert(a + b > 500, "too few leaf samples")
  local share = a / (a + b)
  -- expected 2/3; tolerance +-0.06
  assert(math.abs(share - 2 / 3) < 0.06, string.format("leaf_a share %.3f, expected 0.667 +- 0.06", share))
  -- a sample in a leaf's two-instruction prologue or epilogue has no frame
  -- yet: allow 0.5% of such stacks, no more
  assert(bad_stacks <= checked * 0.005, bad_stacks .. " of " .. checked .. " stacks lack the caller chain")
end
