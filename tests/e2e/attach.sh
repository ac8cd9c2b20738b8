# -p attaches to a running process, including threads it creates later, and
# stops by itself when the process exits.  The process is held at a gate
# (lib.sh's gated) until luaprof has attached, so its threads are surely
# created after that, however slowly luaprof starts.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
gated "$PROGS/latethreads" 0 400
pid=$GATE_PID
start=$(date +%s%N)
attach_gated 0 "$LUAPROF" run "$CHECKS/comms.lua"
end=$(date +%s%N)
expect_grep "^comm $pid latethreads$" "$TMP/out"
expect_grep "^comm $pid late-[12]$" "$TMP/out"
# it must end when the target does (about 1 s), not hang
[ $(( (end - start) / 1000000 )) -lt 5000 ] || fail "luaprof -p did not stop when its target exited"
# --duration stops early while the target keeps running
"$PROGS/spin" 3000 & pid=$!
sleep 0.1
expect_status 0 "$LUAPROF" run "$CHECKS/comms.lua" -p $pid --duration 0.5
kill -0 $pid 2>/dev/null || fail "the -p target did not survive luaprof"
kill $pid; wait $pid 2>/dev/null
expect_grep "^comm $pid spin$" "$TMP/out"
