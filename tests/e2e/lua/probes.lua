-- probes.lua: per probe event, its samples, how many uprobe/usdt samples had
-- s.args[1] out of order (the k-th call's first argument is k-1), and how
-- many uretprobe samples had s.retval ~= 2 * (k-1), k the return's number.
-- USDT probes: the first three samples' s.args.  Watchpoints: s.addr.
local n, order_bad, ret_bad, addrs = {}, {}, {}, {}
local shown = 0
function on_sample(s)
  local e = s.event
  local k = (n[e] or 0) + 1
  n[e] = k
  if e:match("^uretprobe:") then
    if s.retval ~= 2 * (k - 1) or s.args ~= nil then ret_bad[e] = (ret_bad[e] or 0) + 1 end
  elseif e:match("^uprobe:") or e:match("^usdt:") then
    if s.args[1] ~= k - 1 or s.retval ~= nil then order_bad[e] = (order_bad[e] or 0) + 1 end
    if e:match("^usdt:") and shown < 3 then
      shown = shown + 1
      local a = s.args
      print("usdt_args", a[1], a[2], a[3], a[4])
    end
  elseif e:match("^mem:") then
    addrs[s.addr] = true
  end
end
function on_end(info)
  for e, k in pairs(n) do print("event", e, k, order_bad[e] or 0, ret_bad[e] or 0) end
  local na = 0
  for _ in pairs(addrs) do na = na + 1 end
  print("addrs", na)
  print("lost", info.lost)
end
