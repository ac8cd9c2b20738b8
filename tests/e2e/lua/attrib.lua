-- Prints "pid tid comm time" for every sample, "comm pid tid comm time"
-- for every rename, and the totals at the end.
function on_sample(s) print(s.pid, s.tid, s.comm, s.time) end
function on_comm(t) print("comm", t.pid, t.tid, t.comm, t.time) end
function on_end(info) print("end", info.samples, info.lost) end
