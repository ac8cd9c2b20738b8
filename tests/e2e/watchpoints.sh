# Watchpoints (mem: events) on a global variable of a PIE program, whose
# address moves with the load address.  Written exactly 500 times:
# mem:watched:w gives 500 samples, each at its address (needs watchpoints
# that fire).  Never written: the run says in one line that the watchpoint
# counted nothing, and why that may be (on any machine with the breakpoint
# PMU), live and under luaprof stat.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
[ -r /sys/bus/event_source/devices/breakpoint/type ] || skip "this kernel has no breakpoint PMU"
P=$PROGS/probed
readelf -h "$P" | grep -q 'DYN' || fail "$P is not PIE: the test wants a PIE program"

silent='^luaprof: mem:watched:w counted nothing: no such access happened, or hardware breakpoints do not fire on this machine'
expect_status 0 "$LUAPROF" run "$CHECKS/probes.lua" -e mem:watched:w -- "$P" calls 10
expect_grep '^addrs	0$' "$TMP/out"
expect_grep "$silent" "$TMP/err"
[ "$(grep -c 'counted nothing' "$TMP/err")" = 1 ] || fail "the warning is not one line"
expect_status 0 "$LUAPROF" stat -e mem:watched:w -- "$P" calls 10
expect_grep "$silent" "$TMP/err"

need_watchpoints
expect_status 0 "$LUAPROF" run "$CHECKS/probes.lua" -e mem:watched:w -- "$P" watch 500
expect_grep '^event	mem:watched:w	500	0	0$' "$TMP/out"
expect_grep '^addrs	1$' "$TMP/out"
grep -q 'counted nothing' "$TMP/err" && fail "a watchpoint that counted was said to count nothing"
exit 0
