# Hundreds of events in one run (the issue's syscalls:sys_enter_* is about
# 360): the event list has no fixed size, and when the fds outrun the soft
# limit on open files luaprof raises it to the hard limit, as perf does.
# 300 software events on every CPU with a soft limit of 100 open files.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
[ "$(ulimit -Hn)" = unlimited ] || [ "$(ulimit -Hn)" -ge 2048 ] || skip "hard limit on open files below 2048"
list=$(printf 'cpu-clock,%.0s' $(seq 300)); list=${list%,}
printf 'function on_start(i) print("events", #i.events) end\nfunction on_end(i) print("samples", i.samples > 0) end\n' > "$TMP/n.lua"
(ulimit -Sn 100 && exec "$LUAPROF" run "$TMP/n.lua" -F 100 -e "$list" -- "$PROGS/spin" 100) >"$TMP/out" 2>"$TMP/err" ||
	{ cat "$TMP/err"; fail "300 events with a soft limit of 100 files failed"; }
expect_grep '^events	300$' "$TMP/out"
expect_grep '^samples	true$' "$TMP/out"
exit 0
