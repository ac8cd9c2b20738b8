# -p and -a: the maps of processes that existed before the run are read
# once at start, so their samples are named.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
"$PROGS/spin" 60000 & pid=$!      # busy until killed below
trap 'kill $pid 2>/dev/null; rm -rf "$TMP"' EXIT
sleep 0.3
expect_status 0 "$LUAPROF" run "$CHECKS/named.lua" -A spin -p $pid --duration 0.5
# -a for as long as a command takes to burn 0.3 s of CPU (not a wall time:
# the busy spin gets its share however loaded the machine is)
expect_status 0 "$LUAPROF" run "$CHECKS/named.lua" -A spin -a -- "$PROGS/leafs" 75 && cp "$TMP/out" "$TMP/out.a"
kill $pid; wait $pid 2>/dev/null
expect_grep '^obj spin_iters [0-9]+' "$TMP/out"
expect_grep '^obj spin_iters [0-9]+' "$TMP/out.a"
