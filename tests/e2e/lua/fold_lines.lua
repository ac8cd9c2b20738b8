-- Prints "folded 1" per sample: the input flamegraph.pl expects.
function on_sample(s) print(s.folded .. " 1") end
