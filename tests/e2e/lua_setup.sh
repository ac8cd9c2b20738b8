# luaprof.setup{...}: a script that declares its events, period and call
# graph runs with no flags; -e, -F and -c on the command line replace what
# it declares; bad calls stop the run before anything starts, naming the
# script's line.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
# faults 4: four rounds of 1024 fresh pages, so at least 4096 page faults.
declared() {
	expect_status 0 "$LUAPROF" run "$CHECKS/setup.lua" -- "$PROGS/faults" 4
	n=$(awk '$1=="event" && $2=="page-faults" {print $3}' "$TMP/out")
	[ "${n:-0}" -ge 4096 ] || fail "setup{period=1} on page-faults gave ${n:-0} samples, expected >= 4096"
	read -r _ deep total < <(grep '^deep' "$TMP/out")
	[ "$deep" -ge $((total * 9 / 10)) ] || fail "call_graph=true: only $deep of $total samples had stacks"
}

# -c replaces count: one sample per 512 faults (counted by a run without -c).
count() {
	expect_status 0 "$LUAPROF" run "$CHECKS/setup.lua" -- "$PROGS/faults" 4
	n=$(awk '$1=="event" && $2=="page-faults" {print $3}' "$TMP/out")
	expect_status 0 "$LUAPROF" run "$CHECKS/setup.lua" -c 512 -- "$PROGS/faults" 4
	m=$(awk '$1=="event" && $2=="page-faults" {print $3}' "$TMP/out")
	# the two runs' faults differ by a few (the loader's, before main):
	# within two samples of the first run's count / 512, not its 4096+
	[ "$m" -ge $((n / 512 - 2)) ] && [ "$m" -le $((n / 512 + 2)) ] || fail "-c 512 gave $m samples ($n faults)"
}

# -e replaces the events.
events() {
	expect_status 0 "$LUAPROF" run "$CHECKS/setup.lua" -e cpu-clock -- "$PROGS/faults" 4
	expect_grep '^event	cpu-clock	[0-9]+' "$TMP/out"
	! grep -q 'page-faults' "$TMP/out" || fail "-e cpu-clock kept the script's page-faults"
}

# Mistakes: one message naming the script line, exit 255, nothing run.
unknown_key() {
	printf 'luaprof.setup{ bogus = 1 }\n' > "$TMP/bad1.lua"
	expect_status 255 "$LUAPROF" run "$TMP/bad1.lua" -- "$PROGS/faults" 1
	expect_grep "bad1.lua:1: bad argument #1 to 'setup' \(unknown key 'bogus' \(known: events, " "$TMP/err"
}

# The names issue 22 settled: the old ones are unknown keys, the error
# listing the valid ones (no aliases).
old_names() {
	known="events, freq, period, call_graph, filter, all_cpus, counting, switch_events, all_cgroups, strings, interval"
	for old in count system_wide count_only; do     # api-rename: keep
		printf 'luaprof.setup{ %s = 1 }\n' "$old" > "$TMP/old.lua"
		expect_status 255 "$LUAPROF" run "$TMP/old.lua" -- true
		expect_grep "old.lua:1: bad argument #1 to 'setup' \\(unknown key '$old' \\(known: $known\\)\\)\$" "$TMP/err"
	done
}

unknown_event() {
	printf 'luaprof.setup{ events = "nope" }\n' > "$TMP/bad2.lua"
	expect_status 255 "$LUAPROF" run "$TMP/bad2.lua" -- "$PROGS/faults" 1
	expect_grep "bad2.lua:1: bad argument #1 to 'setup' \(unknown event 'nope'" "$TMP/err"
}

bad_freq() {
	printf 'luaprof.setup{ freq = -3 }\n' > "$TMP/bad3.lua"
	expect_status 255 "$LUAPROF" run "$TMP/bad3.lua" -- "$PROGS/faults" 1
	expect_grep "bad3.lua:1: bad argument #1 to 'setup' \(freq must be a positive integer\)" "$TMP/err"
}

not_top_level() {
	printf 'function on_start() luaprof.setup{} end\n' > "$TMP/bad4.lua"
	expect_status 255 "$LUAPROF" run "$TMP/bad4.lua" -- "$PROGS/faults" 1
	expect_grep "luaprof.setup must be called at the script's top level" "$TMP/err"
}

scenario "events, period and call graph declared" declared
scenario "-c replaces the period" count
scenario "-e replaces the events" events
scenario "an unknown key" unknown_key
scenario "the old names are unknown keys" old_names
scenario "an unknown event" unknown_event
scenario "a bad freq" bad_freq
scenario "setup outside the top level" not_top_level
scenarios_done
