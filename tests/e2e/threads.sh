# Two threads: both sampled, distinct tids, time order, 1:2 work split.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
expect_status 0 "$LUAPROF" run "$CHECKS/threads.lua" -F 2000 -- "$PROGS/twothreads" 301
cat "$TMP/out"
