-- hookpos: where a script declares the names luaprof's hook check asks
-- about (lua/host/lhooks.c runs it in a Lua state of its own, only when
-- it has something to say or a hook's name follows a "local").
--
--   local where = dofile("hookpos.lua")
--   where(src, { "on_sample", "on_samples" })
--     -> { on_sample = { ["local"] = true, read = false, line = 3, col = 16 }, ... }
--
-- For each name: its first local declaration (local NAME, local function
-- NAME), else its first assignment as a global (function NAME(),
-- NAME = ...), with its line and column (from 1); read says whether the
-- script reads the name anywhere as a value (on_event = { x = on_sample }
-- uses a local so named).  Names the script does not declare are absent;
-- a source the parser refuses gives an empty table.  The parser is the
-- one-liners' (olparse.lua), which reads all of Lua 5.4.

local P = require "olparse"

return function(src, names)
  local asked, out = {}, {}
  for _, n in ipairs(names) do asked[n] = true end
  -- the first line is skipped when it starts with '#', as Lua does
  src = src:gsub("^#[^\n]*", function(line) return #line > 1 and ("-"):rep(#line) or " " end)
  local ok, block = pcall(P.chunk, src)
  if not ok then return out end
  local locals, globals, read = {}, {}, {}
  local function note(t, name, pos)
    if asked[name] and not t[name] then t[name] = pos end
  end
  local written = {}
  P.walk(block, function(n)
    if n.tag == "Local" then
      for _, v in ipairs(n.names) do note(locals, v.name, v.pos) end
    elseif n.tag == "LocalFunction" then
      note(locals, n.name.name, n.name.pos)
    elseif n.tag == "Assign" then
      for _, t in ipairs(n.targets) do written[t] = true end
    elseif n.tag == "FunctionStat" then
      written[n.target] = true
    elseif n.tag == "Name" and asked[n.name] and not written[n] then
      read[n.name] = true
    end
  end)
  for _, r in ipairs(P.free_names(block)) do
    if r.write then note(globals, r.name, r.pos) end
  end
  for name in pairs(asked) do
    local pos = locals[name] or globals[name]
    if pos then
      local line, col = P.where(src, pos)
      out[name] = { ["local"] = locals[name] ~= nil, read = read[name] or false, line = line, col = col }
    end
  end
  return out
end
