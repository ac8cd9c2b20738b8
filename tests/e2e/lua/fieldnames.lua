-- What each hook is handed knows its fields: an unknown one is an error
-- naming the valid ones, a known one with no value is nil.  Prints, for
-- each hook, the first message of an unknown field (its location cut) and
-- whether a known field with no value read as nil.
local seen = {}
local function probe(hook, fn_bad, fn_nil)
  if seen[hook] then return end
  local ok, err = pcall(fn_bad)
  seen[hook] = string.format("%s: %s; nil %s", hook, ok and "no error" or err:gsub("^[^:]*:%d+: ", ""),
                             tostring(fn_nil == nil or fn_nil() == nil))
end
luaprof.setup{ interval = 20 }
function on_start(info)
  probe(info.file and "on_start replay" or "on_start live", function() return info.fil end,
        function() if info.file then return info.pids end return info.file end)
end
function on_comm(t) probe("on_comm", function() return t.ppid end) end
function on_fork(t) probe("on_fork", function() return t.comm end) end
function on_exit(t) probe("on_exit", function() return t.exec end) end
function on_switch(t)
  probe("on_switch", function() return t.ot end,
        function() if t.out then return t.prev_pid end return t.next_pid end)
end
function on_interval(info) probe("on_interval", function() return info.elapse end) end
function on_sample(s) probe("on_sample", function() return s.symm end, function() return s.retval or s.addr end) end
function on_end(info)
  probe("on_end", function() return info.samples_ end)
  local lines = {}
  for _, l in pairs(seen) do lines[#lines + 1] = l end
  table.sort(lines)
  for _, l in ipairs(lines) do print(l) end
end
