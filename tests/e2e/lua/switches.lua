-- Each sched:sched_switch sample as perf script -F trace prints it (the
-- kernel's print fmt): prev_state as its state letters (S D T t X Z P I
-- for the bits 0x01-0x80, R for none of them, "+" for 0x100, preempted).
-- Other events print nothing.
local letters = { "S", "D", "T", "t", "X", "Z", "P", "I" }
local function state(v)
  local s = {}
  for i, l in ipairs(letters) do
    if v & (1 << (i - 1)) ~= 0 then s[#s + 1] = l end
  end
  return (#s > 0 and table.concat(s, "|") or "R") .. (v & 0x100 ~= 0 and "+" or "")
end
on_event = {}
on_event["sched:sched_switch"] = function(s)
  local f = s.args
  print(string.format("prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s ==> " ..
                      "next_comm=%s next_pid=%d next_prio=%d", f.prev_comm, f.prev_pid,
                      f.prev_prio, state(f.prev_state), f.next_comm, f.next_pid, f.next_prio))
end
function on_sample() end
