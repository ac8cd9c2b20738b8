# The Lua API: the luaprof module, on_start/on_end info, sample field types,
# read-only samples; and lost samples counted and reported when the ring is
# too small for what the reader leaves in it.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
expect_status 0 "$LUAPROF" run "$CHECKS/api.lua" -e cpu-clock -- "$PROGS/spin" 100
expect_grep '^api ok [0-9]+' "$TMP/out"
# The script stalls at the first sample while the threads work on: the
# queue's least bound (64K) fills, then the one page overflows, whatever the
# machine's speed (some 2400 samples of 0.3 s against a few hundred held).
expect_status 0 "$LUAPROF" run "$CHECKS/stall.lua" -m 1 --queue-size=64K -F 4000 -g -- "$PROGS/twothreads" 301
lost=$(awk '$1=="samples" {print $4}' "$TMP/out")
[ "${lost:-0}" -gt 0 ] || fail "a one-page ring left unread did not overflow (lost ${lost:-none})"
expect_grep "the kernel lost $lost samples" "$TMP/err"
