# Tracepoint fields have their types: char[16] and __data_loc char[] become
# strings, pid_t and long integers (negative ones too), unsigned long[6] a
# Lua array; common_* fields are left out; s.raw is the raw data with
# common_type (the tracepoint id) first; other events have neither.
. "$(dirname "$0")/lib.sh"
need_perf_events
need_tracefs
[ "$(id -u)" = 0 ] || skip "tracepoint data needs root"
"$LUAPROF" list --fields raw_syscalls:sys_enter > "$TMP/list" || fail "luaprof list --fields failed"
id=$(sed -n '1s/.*(id \([0-9]*\)).*/\1/p' "$TMP/list")
expect_status 0 "$LUAPROF" run "$CHECKS/tpfields.lua" \
	-e sched:sched_switch,sched:sched_process_exec,syscalls:sys_exit_close \
	-e raw_syscalls:sys_enter,cpu-clock -- "$PROGS/tpcalls" 100000
expect_grep '^switch	tpcalls	[0-9]+	[0-9]+$' "$TMP/out"
pid=$(awk '$1 == "switch" {print $3}' "$TMP/out")
expect_grep "^exec	$PROGS/tpcalls	$pid\$" "$TMP/out"
expect_grep '^close_ret	-9	integer$' "$TMP/out"
expect_grep '^close_args	6	123456	integer$' "$TMP/out"
expect_grep "^raw	[0-9]+	$id\$" "$TMP/out"
expect_grep '^other	nil	nil$' "$TMP/out"
expect_grep '^cached	true	nil$' "$TMP/out"
exit 0
