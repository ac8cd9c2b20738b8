local kept
function on_sample(s) kept = s end
function on_end() print(kept.pid) end
