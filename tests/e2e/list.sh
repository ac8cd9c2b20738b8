# luaprof list: the events this machine offers, grouped as perf list groups
# them: hardware events only when the machine accepts them (perf stat as
# the oracle), software events, PMUs from /sys/bus/event_source/devices,
# tracepoints from tracefs; a pattern or a group narrows it; --fields shows
# a tracepoint's fields as its tracefs format declares them.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
need_tracefs

# Everything: software, hardware the machine accepts, PMUs, tracepoints.
everything() {
	expect_status 0 "$LUAPROF" list
	cp "$TMP/out" "$TMP/all"
	expect_grep '^  cpu-clock +\[Software event\]$' "$TMP/all"
	expect_grep '^  context-switches OR cs +\[Software event\]$' "$TMP/all"
	expect_grep '^  sched:sched_switch +\[Tracepoint event\]$' "$TMP/all"
	for hw in cycles instructions cache-references cache-misses branches branch-misses bus-cycles ref-cycles; do
		if perf stat -x, -e "$hw" -- true 2>&1 | grep -q 'not supported\|not counted\|event syntax error'; then
			grep -qE "^  $hw( OR [a-z-]+)? +\[Hardware event\]" "$TMP/all" && fail "$hw is listed but the machine refuses it"
		else
			expect_grep "^  ($hw|[a-z-]+ OR $hw|$hw OR [a-z-]+) +\[Hardware event\]" "$TMP/all"
		fi
	done
	for pmu in /sys/bus/event_source/devices/*; do
		expect_grep "^  $(basename "$pmu") +\[Kernel PMU, type $(cat "$pmu/type")\]$" "$TMP/all"
	done
	# Every tracepoint in tracefs, once.  Probes come and go as tests
	# beside this one run (luaprof_PID, perf's probe_*, uprobes): the
	# kernel's own tracepoints are counted.
	local dyn='^(luaprof_[0-9]+|probe_.*|uprobes|kprobes)$'
	tp=$(awk -v dyn="$dyn" '/\[Tracepoint event\]$/ {split($1, g, ":"); if (g[1] !~ dyn) n++} END {print n + 0}' "$TMP/all")
	n=$(ls -d /sys/kernel/tracing/events/*/*/id 2>/dev/null | awk -F/ -v dyn="$dyn" '$6 !~ dyn' | wc -l)
	[ "$tp" = "$n" ] || fail "$tp tracepoints listed, tracefs has $n"
}

# A glob, a substring, a group.
narrowed() {
	expect_status 0 "$LUAPROF" list 'sched:sched_swi*'
	[ "$(cat "$TMP/out")" = "  $(printf '%-50s' sched:sched_switch) [Tracepoint event]" ] ||
		fail "list 'sched:sched_swi*' printed: $(cat "$TMP/out")"
	expect_status 0 "$LUAPROF" list faults
	[ "$(grep -c "Software event" "$TMP/out")" = 5 ] || fail "list faults: expected page-, minor-, major-, alignment- and emulation-faults"
	expect_status 0 "$LUAPROF" list sw
	! grep -qv 'Software event' "$TMP/out" || fail "list sw printed other events"
}

# --fields: prev_pid with the type, offset and size tracefs declares.
fields() {
	expect_status 0 "$LUAPROF" list --fields sched:sched_switch
	line=$(grep 'field:pid_t prev_pid;' /sys/kernel/tracing/events/sched/sched_switch/format)
	off=$(echo "$line" | sed 's/.*offset:\([0-9]*\);.*/\1/') size=$(echo "$line" | sed 's/.*size:\([0-9]*\);.*/\1/')
	expect_grep "^  prev_pid +pid_t +$off +$size +yes +integer$" "$TMP/out"
	expect_grep '^  prev_comm +char\[16\] +[0-9]+ +16 +no +string$' "$TMP/out"
	expect_grep '^  common_pid .*\(common: not in s.args\)$' "$TMP/out"
	expect_status 0 "$LUAPROF" list --fields 'sched:sched_process_exe*'
	expect_grep '^  filename +__data_loc char\[\] +[0-9]+ +4 +no +string$' "$TMP/out"
	expect_status 255 "$LUAPROF" list --fields cpu-clock
	expect_grep "^luaprof: 'cpu-clock' is not a tracepoint" "$TMP/err"
}

scenario "everything" everything
scenario "a glob, a substring, a group" narrowed
scenario "--fields" fields
scenarios_done
