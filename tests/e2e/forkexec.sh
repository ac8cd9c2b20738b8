# A command that forks and execs another program: both are sampled, under
# their own pids and command names.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
expect_status 0 "$LUAPROF" run "$CHECKS/comms.lua" -- "$PROGS/forkexec" "$PROGS/spin" 200
expect_grep '^comm [0-9]+ forkexec$' "$TMP/out"
expect_grep '^comm [0-9]+ spin$' "$TMP/out"
p1=$(awk '$3=="forkexec"{print $2}' "$TMP/out"); p2=$(awk '$3=="spin"{print $2}' "$TMP/out")
[ "$p1" != "$p2" ] || fail "parent and child share pid $p1"
