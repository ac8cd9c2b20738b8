# A script that declares its events (luaprof.setup) runs with no -e: samples
# of sched:sched_process_exec go to on_event's handler, every other to
# on_sample; on_comm, on_fork and on_exit see the fork+exec workload's
# processes, and every callback comes in time order.  A replay of the same
# run (-o) makes the same calls.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
need_tracefs
[ "$(id -u)" = 0 ] || skip "tracepoint data needs root"
check() {
	local f=$1 p c
	p=$(awk '$1 == "start" && $2 != "nil" {print $2}' "$f")
	[ -n "$p" ] || p=$(awk '$1 == "exec" && $2 ~ /forkexec$/ {print $3}' "$f")
	expect_grep "^exec	$PROGS/forkexec	$p	sched:sched_process_exec\$" "$f"
	c=$(awk -v p="$p" '$1 == "fork" && $3 == p {print $2}' "$f")
	[ "$(printf '%s\n' "$c" | grep -c .)" = 1 ] || fail "expected one fork of $p, got '$c'"
	expect_grep "^fork	$c	$p	$c	$p\$" "$f"
	expect_grep "^comm	forkexec	$p	$p	true\$" "$f"
	expect_grep "^comm	spin	$c	$c	true\$" "$f"
	expect_grep "^exec	$PROGS/spin	$c	sched:sched_process_exec\$" "$f"
	expect_grep "^exit	$c	$p	$c	$p\$" "$f"
	[ "$(grep -c '^exec' "$f")" = 2 ] || fail "expected 2 exec samples in $f"
	expect_grep '^on_sample	cpu-clock	true$' "$f"
	grep -q '^on_sample	sched' "$f" && fail "an exec sample reached on_sample"
	expect_grep '^disorder	0$' "$f"
	# the child's exit comes after its exec, and the parent's after the child's
	awk -v c="$c" -v p="$p" '$1 == "exec" && $3 == c {e = NR} $1 == "exit" && $2 == c {x = NR}
		$1 == "exit" && $2 == p {px = NR} END {exit !(e && x > e && px > x)}' "$f" ||
		fail "exec/exit calls out of order in $f"
}

# Live.
live() {
	expect_status 0 "$LUAPROF" run "$CHECKS/hooks.lua" -o "$TMP/h.data" -- "$PROGS/forkexec" "$PROGS/spin" 100
	check "$TMP/out"
}

# The replay of a run of its own (-o) makes the same calls.
replay() {
	expect_status 0 "$LUAPROF" run "$CHECKS/hooks.lua" -o "$TMP/r.data" -- "$PROGS/forkexec" "$PROGS/spin" 100
	cp "$TMP/out" "$TMP/live"
	expect_status 0 "$LUAPROF" run "$CHECKS/hooks.lua" -i "$TMP/r.data"
	check "$TMP/out"
	diff <(grep -v '^start' "$TMP/live") <(grep -v '^start' "$TMP/out") ||
		fail "the replay made other calls than the live run"
}

# An on_event key that names no event of the run is said, once.
unknown_key() {
	printf 'on_event = { ["sched:nope"] = function() end }\n' > "$TMP/typo.lua"
	expect_status 0 "$LUAPROF" run "$TMP/typo.lua" -e cpu-clock -- true
	expect_grep "on_event\[\"sched:nope\"\] names no event of this run" "$TMP/err"
}

# A value that is no function stops the run.
not_function() {
	printf 'on_event = { ["cpu-clock"] = 42 }\n' > "$TMP/bad.lua"
	expect_status 255 "$LUAPROF" run "$TMP/bad.lua" -e cpu-clock -- true
	expect_grep 'on_event\[cpu-clock\] must be a function' "$TMP/err"
}

scenario "live" live
scenario "a replay makes the same calls" replay
scenario "an on_event key naming no event" unknown_key
scenario "an on_event value that is no function" not_function
scenarios_done
