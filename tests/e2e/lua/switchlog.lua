-- Each context switch record as perf script --show-switch-events -F
-- tid,cpu,time prints it (spaces squeezed; the CPU only when the records
-- carry it, as -F tid,time otherwise), then "switches N".
local n = 0
function on_switch(t)
  n = n + 1
  local line = string.format("%d%s %d.%06d: PERF_RECORD_SWITCH%s %s", t.tid,
                             t.cpu and string.format(" [%03d]", t.cpu) or "",
                             t.time // 1000000000, t.time % 1000000000 // 1000,
                             (t.next_pid or t.prev_pid) and "_CPU_WIDE" or "",
                             t.out and "OUT" or "IN")
  if t.preempt then line = line .. " preempt" end
  if t.next_pid then line = line .. string.format(" next pid/tid: %d/%d", t.next_pid, t.next_tid) end
  if t.prev_pid then line = line .. string.format(" prev pid/tid: %d/%d", t.prev_pid, t.prev_tid) end
  print(line)
end
function on_end() print("switches " .. n) end
