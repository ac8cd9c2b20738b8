# Context switch records (PERF_RECORD_SWITCH and, system-wide,
# PERF_RECORD_SWITCH_CPU_WIDE: perf record --switch-events).  A script that
# defines on_switch gets them; --switch-events and luaprof.setup{
# switch_events = true} ask for them without one; otherwise none are made.
# Each switch reaches on_switch as perf script --show-switch-events prints
# it (switchlog.lua prints the same line), live, replaying luaprof's
# recording, and replaying perf record's, per task and system-wide:
# - sleeper 10 10 is out of the CPU of its own accord for 9 ms or more
#   exactly 10 times (its nanosleeps, which never end early; other waits of
#   its own, such as an ASan build's start-up, are shorter), and comes back
#   in as often as it left, preempted or not.  9 ms, not 10: the sleep's
#   timer is armed before the switch out is recorded, and a VM's vCPU
#   taken away between the two shortens the recorded wait (one was 9.95
#   ms, its switch out 50 us after the timer started);
# - perf script reads luaprof's recording, and prints the lines on_switch
#   was given, in the same order (per task; system-wide, as sets: records
#   of two CPUs with the same time may come in either order).
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed: nothing to read the recordings with"
cd "$TMP"

# perf_lines FILE FIELDS: perf script's switch lines of FILE, spaces squeezed
perf_lines() {
	perf script -i "$1" --show-switch-events -F "$2" 2> perf.err |
		grep "PERF_RECORD_SWITCH" | tr -s " " | sed "s/^ //; s/ $//"
	[ ! -s perf.err ] || fail "perf script warns on $1: $(head -3 perf.err)"
}
ours() { grep -v "^switches " "$1"; }

# live, per task, with a recording the replay below reads
per_task() {
	expect_status 0 "$LUAPROF" run "$CHECKS/switchlog.lua" -o live.data -- "$PROGS/sleeper" 10 10
	cp "$TMP/out" live.txt
	# naps: the waits from a switch out of its own accord to the next switch in
	# that lasted 9 ms or more
	naps=$(awk '{ sub(/:$/, "", $3) } $5 == "OUT" && NF == 5 {t = $3; next}
		$5 == "IN" && t != "" { if ($3 - t >= 0.009) n++; t = "" } END {print n + 0}' live.txt)
	outs=$(grep -c " OUT" live.txt) ins=$(grep -c " IN$" live.txt)
	echo "sleeper 10 10: $naps waits of its own of 9 ms or more, $outs switches out in all, $ins in"
	[ "$naps" = 10 ] || { head -30 live.txt; fail "sleeper was out of the CPU of its own accord for 9 ms or more $naps times, not 10"; }
	[ "$ins" = "$outs" ] || fail "sleeper switched out $outs times and in $ins times"
	! grep -q "_CPU_WIDE" live.txt || fail "a per-task run gave CPU-wide switch records"
	perf_lines live.data tid,cpu,time > perf.txt
	diff <(ours live.txt) perf.txt > diff.txt || { head diff.txt; fail "perf script reads other switches in luaprof's recording"; }
}
replay() {
	[ -s live.data ] && [ -s live.txt ] || fail "no live.data: the per-task case did not make it"
	expect_status 0 "$LUAPROF" run "$CHECKS/switchlog.lua" -i live.data
	diff live.txt "$TMP/out" > diff.txt || { head diff.txt; fail "the replay gives other switches than the live run"; }
}

# live, system-wide: CPU-wide records, with the task that came in or left
system_wide() {
	expect_whole 0 "$LUAPROF" run "$CHECKS/switchlog.lua" -a -o all.data -- "$PROGS/sleeper" 5 10
	cp "$TMP/out" all.txt
	grep -q "_CPU_WIDE IN prev pid/tid: " all.txt && grep -q "_CPU_WIDE OUT.* next pid/tid: " all.txt ||
		{ head all.txt; fail "-a gave no CPU-wide switches in and out"; }
	perf_lines all.data tid,cpu,time | sort > perf.txt
	diff <(ours all.txt | sort) perf.txt > diff.txt || { head diff.txt; fail "-a: perf script reads other switches in luaprof's recording"; }
}

# perf record's files: per task (its records carry no CPU) and system-wide
perf_record() {
	local mode=$1 a='' f=tid,time
	[ $mode = all ] && a=-a f=tid,cpu,time
	perf record -q --switch-events $a -o perf-$mode.data -- "$PROGS/sleeper" 5 10 2> perf.err ||
		fail "perf record --switch-events $a failed: $(head -3 perf.err)"
	expect_status 0 "$LUAPROF" run "$CHECKS/switchlog.lua" -i perf-$mode.data
	perf_lines perf-$mode.data $f > perf.txt
	[ -s perf.txt ] || fail "perf script shows no switches in perf-$mode.data"
	diff <(ours "$TMP/out") perf.txt > diff.txt || { head diff.txt; fail "perf record $a --switch-events: luaprof's on_switch and perf script differ"; }
}

# asked for, or not
switches_in() { perf script -i "$1" --show-switch-events 2>/dev/null | grep -c PERF_RECORD_SWITCH; }
not_asked() {
	expect_status 0 "$LUAPROF" record -o none.data -- "$PROGS/sleeper" 3 5
	[ "$(switches_in none.data)" = 0 ] || fail "switch records made without being asked for"
}
flag() {
	expect_status 0 "$LUAPROF" record --switch-events -o flag.data -- "$PROGS/sleeper" 3 5
	[ "$(switches_in flag.data)" -ge 6 ] || fail "--switch-events: $(switches_in flag.data) switch records, 6 or more expected"
}
setup() {
	printf 'luaprof.setup{ switch_events = true }\nfunction on_sample() end\n' > setup.lua
	expect_status 0 "$LUAPROF" run ./setup.lua -o setup.data -- "$PROGS/sleeper" 3 5
	[ "$(switches_in setup.data)" -ge 6 ] || fail "setup{switch_events = true}: $(switches_in setup.data) switch records, 6 or more expected"
}
# the view is valid only during its call, and read-only
kept() {
	printf 'local kept\nfunction on_switch(t) kept = t end\nfunction on_end() print(kept.tid) end\n' > kept.lua
	expect_status 255 "$LUAPROF" run ./kept.lua -- "$PROGS/sleeper" 1 5
	grep -q "this switch record's view expired when its on_switch returned" "$TMP/err" || { cat "$TMP/err"; fail "a switch record kept past its call was read"; }
}
written() {
	printf 'function on_switch(t) t.tid = 1 end\n' > write.lua
	expect_status 255 "$LUAPROF" run ./write.lua -- "$PROGS/sleeper" 1 5
	grep -q "a switch record is read-only" "$TMP/err" || { cat "$TMP/err"; fail "a switch record was written to"; }
}
bad_setup() {
	printf 'luaprof.setup{ switch_events = 1 }\n' > bad.lua
	expect_status 255 "$LUAPROF" run ./bad.lua -- true
	grep -q "bad argument #1 to 'setup' (switch_events must be true or false)" "$TMP/err" || { cat "$TMP/err"; fail "no message for a bad switch_events"; }
}

scenario "live, per task" per_task
scenario "its recording replayed" replay
scenario "live, -a" system_wide
scenario "perf record's, per task" perf_record task
scenario "perf record's, -a" perf_record all
scenario "not asked for: none" not_asked
scenario "--switch-events" flag
scenario "setup{switch_events = true}" setup
scenario "a record kept past its call" kept
scenario "a record written to" written
scenario "setup{switch_events = 1}" bad_setup
scenarios_done
