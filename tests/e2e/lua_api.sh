# The Lua API: the luaprof module, on_start/on_end info, sample field types,
# read-only samples; and lost samples counted and reported when the ring is
# too small for the rate.
. "$(dirname "$0")/lib.sh"
need_perf_events
expect_status 0 "$LUAPROF" run "$CHECKS/api.lua" -e cpu-clock -- "$PROGS/spin" 100
expect_grep '^api ok [0-9]+' "$TMP/out"
expect_status 0 "$LUAPROF" run "$CHECKS/comms.lua" -m 1 -F 40000 -g -- "$PROGS/twothreads" 51
lost=$(awk '$1=="samples" {print $4}' "$TMP/out")
[ "${lost:-0}" -gt 0 ] || skip "a one-page ring did not overflow on this machine (lost 0); nothing to check"
expect_grep "the kernel lost $lost samples" "$TMP/err"
