# Several events at once: each sample names its event; both events appear.
# cycles without a PMU falls back to cpu-clock with one line; a hardware
# event with no fallback is refused with one clear line.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
expect_status 0 "$LUAPROF" run "$CHECKS/comms.lua" -e cpu-clock,page-faults -- "$PROGS/faults" 32
expect_grep '^event cpu-clock [0-9]+$' "$TMP/out"
expect_grep '^event page-faults [0-9]+$' "$TMP/out"
! grep -qvE '^(comm|event (cpu-clock|page-faults)|samples|status) ' "$TMP/out" || fail "unexpected lines: $(cat "$TMP/out")"
if ! perf stat -e instructions true 2>&1 | grep -q 'not supported'; then
	skip "this machine has a hardware PMU (perf stat counts instructions): the fallback to cpu-clock needs one without"
fi
expect_status 0 "$LUAPROF" run "$CHECKS/comms.lua" -e cycles:u -- "$PROGS/spin" 50
expect_grep '^event cpu-clock:u [0-9]+$' "$TMP/out"
expect_grep "no hardware 'cycles' event" "$TMP/err"
expect_status 255 "$LUAPROF" run "$CHECKS/comms.lua" -e instructions -- "$PROGS/spin" 50
expect_grep "cannot open event 'instructions'.*not supported.*cpu-clock" "$TMP/err"
