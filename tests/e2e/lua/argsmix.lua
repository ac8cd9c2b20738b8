-- argsmix.lua: one run of a tracepoint, a uprobe and a uretprobe, their
-- samples interleaved: s.args is each event's own (the tracepoint's
-- fields, the uprobe's registers, none for the uretprobe, whose value is
-- s.retval), and s.raw a tracepoint's only.  Prints the samples of each
-- kind and how many broke that.
local n = { tp = 0, up = 0, ret = 0, bad = 0 }
function on_sample(s)
  local ev = s.event
  if ev:match("^uprobe:") then
    n.up = n.up + 1
    if type(s.args) ~= "table" or math.type(s.args[1]) ~= "integer" or s.raw ~= nil then n.bad = n.bad + 1 end
  elseif ev:match("^uretprobe:") then
    n.ret = n.ret + 1
    if s.args ~= nil or math.type(s.retval) ~= "integer" then n.bad = n.bad + 1 end
  else
    n.tp = n.tp + 1
    if math.type(s.args.id) ~= "integer" or type(s.raw) ~= "string" or s.retval ~= nil then n.bad = n.bad + 1 end
  end
end
function on_end() print("argsmix", n.tp > 0, n.up, n.ret, n.bad) end
