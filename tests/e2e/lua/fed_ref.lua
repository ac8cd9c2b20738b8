-- fed_ref.lua --mode=MODE --per=PER: what the shipped profile writers wrote when
-- Lua fed them each sample (s.folded and s.stack), the reference the
-- writers fed in C (luaprof.stacks, feed = "all") must equal byte for
-- byte (tests/e2e/stacks_fed.sh).  MODE: folded (root per PER: comm,
-- process, thread), callgraph (PER: caller or callee order, min 0),
-- speedscope (PER: thread or process, named "ref").
local opt = luaprof.options{
  description = "the profile writers fed from Lua, the reference of stacks_fed.sh",
  { "mode", "string", "folded", "folded, callgraph or speedscope" },
  { "per", "string", "comm", "folded: the root; callgraph: the order; speedscope: the profiles" },
}
local mode, per = opt.mode, opt.per

local function root(comm, pid, tid)
  comm = (comm or "[unknown]"):gsub("[; ]", "_")
  if per == "process" then return string.format("%s-%d", comm, pid) end
  return string.format("%s-%d/%d", comm, pid, tid)
end

local stacks, by_event, sp = luaprof.map(), {}, nil
if mode == "speedscope" then sp = luaprof.speedscope{ name = "ref", per = per } end

function on_sample(s)
  if mode == "folded" then
    local f = s.folded
    if per ~= "comm" then f = root(s.comm, s.pid, s.tid) .. f:sub((f:find(";", 1, true) or #f + 1)) end
    stacks:add(f)
  elseif mode == "callgraph" then
    local ev = s.event or "?"
    by_event[ev] = by_event[ev] or luaprof.map()
    by_event[ev]:add(s.folded)
  else
    sp:add(s)
  end
end

function on_end()
  if mode == "folded" then
    io.write(luaprof.folded.text(stacks))
  elseif mode == "callgraph" then
    local events = {}
    for ev in pairs(by_event) do events[#events + 1] = ev end
    table.sort(events)
    for i, ev in ipairs(events) do
      local tree = luaprof.calltree()
      for folded, n in pairs(by_event[ev]) do
        tree:add_folded(folded, n, { reverse = per == "callee", comm = false })
      end
      if i > 1 then print() end
      print(string.format("# %d samples of event '%s', %s graph (%s first), paths under %.2f%% left out",
                          tree:sum(), ev, per, per == "caller" and "root" or "leaf", 0))
      tree:print{ min = 0, depth = 64 }
    end
  else
    io.write(sp:json())
  end
end
