# Off-CPU time from sched:sched_switch (prev_pid, prev_state, next_pid and
# the times): a program that sleeps ten times 50 ms is off the CPU, asleep,
# exactly 10 times, for 500 ms and at most 100 ms more.  Tolerance:
# nanosleep never returns before its 50 ms (the switch out follows the
# timer's start by microseconds, so 1 ms below is allowed for ten of them);
# above, each wake-up adds the timer slack (50 us) and the wait for a CPU,
# which on a loaded 2-CPU machine can reach milliseconds: 10 ms per sleep.
# (offcpu.lua says how it copes with switches in the kernel leaves out.)
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
need_tracefs
[ "$(id -u)" = 0 ] || skip "system-wide tracepoints need root"
expect_whole 0 "$LUAPROF" run "$CHECKS/offcpu.lua" -a -e sched:sched_switch -- "$PROGS/sleeper" 10 50
expect_grep '^sleeps	10$' "$TMP/out"
us=$(awk '$1 == "offcpu_us" {print $2}' "$TMP/out")
[ "$us" -ge 499000 ] && [ "$us" -le 600000 ] || fail "off-CPU time ${us} us, expected 500 ms (499-600)"
exit 0
