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
# rings large enough for every sample of the run (100k raw_syscalls
# samples): the close checked below comes last, and a reader slowed by a
# busy machine lost it once to a full ring
expect_status 0 "$LUAPROF" run "$CHECKS/tpfields.lua" -m 4096 \
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
expect_grep '^names	prev_comm=string,prev_pid=integer,prev_prio=integer,prev_state=integer,next_comm=string,next_pid=integer,next_prio=integer$' "$TMP/out"
# s.fields is a view of the current sample, like s: kept past the call, it
# says so instead of reading another sample's data.
printf 'local kept\nfunction on_sample(s) kept = kept or s.fields end\nfunction on_end() print(kept.prev_pid) end\n' > "$TMP/keep.lua"
expect_status 255 "$LUAPROF" run "$TMP/keep.lua" -e sched:sched_switch -- "$PROGS/sleeper" 1 1
expect_grep 's.fields used outside on_sample: copy the fields you need' "$TMP/err"
exit 0
