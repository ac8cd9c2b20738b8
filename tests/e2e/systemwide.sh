# -a sees a process luaprof did not start.
# test: alone
. "$(dirname "$0")/lib.sh"
need_perf_events
[ "$(cat /proc/sys/kernel/perf_event_paranoid)" -le 0 ] || [ "$(id -u)" = 0 ] ||
	skip "system-wide profiling needs root or kernel.perf_event_paranoid <= 0"
"$PROGS/spin" 60000 & pid=$!      # busy until killed below
trap 'kill $pid 2>/dev/null; rm -rf "$TMP"' EXIT
sleep 0.1
expect_status 0 "$LUAPROF" run "$CHECKS/comms.lua" -a -- "$PROGS/leafs" 75    # a window of 0.3 s of CPU, not of wall time
kill $pid 2>/dev/null; wait $pid 2>/dev/null
expect_grep "^comm $pid spin$" "$TMP/out"
