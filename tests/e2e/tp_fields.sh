# Tracepoint fields have their types: char[16] and __data_loc char[] become
# strings, pid_t and long integers (negative ones too), unsigned long[6] a
# Lua array; common_* fields are left out; s.raw is the raw data with
# common_type (the tracepoint id) first; other events have neither.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
need_tracefs
[ "$(id -u)" = 0 ] || skip "tracepoint data needs root"
"$LUAPROF" list --fields raw_syscalls:sys_enter > "$TMP/list" || fail "luaprof list --fields failed"
id=$(sed -n '1s/.*(id \([0-9]*\)).*/\1/p' "$TMP/list")

# Each field with its type.  Rings large enough for every sample of the
# run (100k raw_syscalls samples): the close checked below comes last, and
# a reader slowed by a busy machine could lose it to a full ring; tpcalls
# first sleeps 1 ms, so it is switched out at least once (alone on its
# CPU, a program may otherwise never be switched out)
types() {
	expect_status 0 "$LUAPROF" run "$CHECKS/tpfields.lua" -m 4096 \
		-e sched:sched_switch,sched:sched_process_exec,syscalls:sys_exit_close \
		-e raw_syscalls:sys_enter,cpu-clock -- "$PROGS/tpcalls" 100000 1
	expect_grep '^switch	tpcalls	[0-9]+	[0-9]+$' "$TMP/out"
	pid=$(awk '$1 == "switch" {print $3}' "$TMP/out")
	expect_grep "^exec	$PROGS/tpcalls	$pid\$" "$TMP/out"
	expect_grep '^close_ret	-9	integer$' "$TMP/out"
	expect_grep '^close_args	6	123456	integer$' "$TMP/out"
	expect_grep '^fd123456	1$' "$TMP/out"
	expect_grep "^raw	[0-9]+	$id\$" "$TMP/out"
	expect_grep '^other	nil	nil$' "$TMP/out"
	expect_grep '^cached	true	nil$' "$TMP/out"
	expect_grep '^names	prev_comm=string,prev_pid=integer,prev_prio=integer,prev_state=integer,next_comm=string,next_pid=integer,next_prio=integer$' "$TMP/out"
}

# s.args is a view of the current sample, like s: kept past the call, it
# says so instead of reading another sample's data.
kept() {
	printf 'local kept\nfunction on_sample(s) kept = kept or s.args end\nfunction on_end() print(kept.prev_pid) end\n' > "$TMP/keep.lua"
	expect_status 255 "$LUAPROF" run "$TMP/keep.lua" -e sched:sched_switch -- "$PROGS/sleeper" 1 1
	expect_grep 's.args used outside on_sample: copy the fields you need' "$TMP/err"
}

# The same once a field of it has been read in its call: that call's values
# are not left in it.
kept_read() {
	printf 'local kept\nfunction on_sample(s) if not kept then kept = s.args; assert(kept.prev_pid) end end\nfunction on_end() print(kept.prev_pid) end\n' > "$TMP/keep2.lua"
	expect_status 255 "$LUAPROF" run "$TMP/keep2.lua" -e sched:sched_switch -- "$PROGS/sleeper" 1 1
	expect_grep 's.args used outside on_sample: copy the fields you need' "$TMP/err"
}

# ... and in the call of another tracepoint's sample, whose s.args is
# another table; s.args is read-only but for the fields it holds.
other_tracepoint() {
	cat > "$TMP/keep3.lua" <<'LUA'
local kept, n = nil, 0
on_event = {}
on_event["syscalls:sys_enter_getppid"] = function(s)
  kept = s.args
  n = n + (kept.__syscall_nr == kept.__syscall_nr and 1 or 0)
end
on_event["syscalls:sys_exit_close"] = function(s)
  if s.args.ret ~= -9 then return end  -- closes before the exec
  print("close", s.args.ret, s.args ~= kept, n, pcall(function() s.args.nope = 1 end))
  print(kept.__syscall_nr)
end
LUA
	expect_status 255 "$LUAPROF" run "$TMP/keep3.lua" -e syscalls:sys_enter_getppid,syscalls:sys_exit_close \
		-- "$PROGS/tpcalls" 1000
	expect_grep '^close	-9	true	1000	false	.*s.args is read-only' "$TMP/out"
	expect_grep 's.args used outside on_sample: copy the fields you need' "$TMP/err"
}

# A script that fills --script-memory while reading string fields stops
# with the limit named: short of memory, the fields are decoded inside its
# call, not before it where running out would abort.
script_memory() {
	cat > "$TMP/hog.lua" <<'LUA'
local keep = {}
function on_sample(s) keep[#keep + 1] = string.rep(s.args.prev_comm, 256) .. #keep end
LUA
	expect_status 255 "$LUAPROF" run --script-memory 2 "$TMP/hog.lua" -e sched:sched_switch -- "$PROGS/sleeper" 2000 1
	expect_grep 'reached the --script-memory limit of 2 MB' "$TMP/err"
}

scenario "fields and their types" types
scenario "s.args kept past its call" kept
scenario "s.args kept after a field was read" kept_read
scenario "s.args in another tracepoint's call" other_tracepoint
scenario "--script-memory while reading string fields" script_memory
scenarios_done
