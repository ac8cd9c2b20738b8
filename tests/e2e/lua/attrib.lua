-- Prints "pid tid comm" for every sample, and the totals at the end.
function on_sample(s) print(s.pid, s.tid, s.comm) end
function on_end(info) print("end", info.samples, info.lost) end
