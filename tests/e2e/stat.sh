# luaprof stat against perf stat on the same deterministic commands:
# page faults within 2% and task-clock within 5% (medians of five runs
# each, alternated: a CPU-time loop's cost moves with the machine's load),
# context switches equal for a program that sleeps 20 times (the minimum
# of five runs each: on a loaded machine a preemption now and then adds a
# switch to a run of either tool, never takes one away).  -I 100 on
# a program of about 1 s prints about 10 intervals, whose counts add up to
# the totals exactly.  A probe counted without sampling (counting) is
# exact too.
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed"

# value EVENT FILE: EVENT's value in luaprof stat's report (msec for clocks)
value() { awk -v e="$1" '$0 !~ /^#/ && ($2 == e || $3 == e) {print $1; exit}' "$2"; }
# pvalue EVENT FILE: the same from perf stat -x, (msec for task-clock)
pvalue() { awk -F, -v e="$1" '$3 == e {print $1; exit}' "$2"; }
median() { sort -g | sed -n 3p; }

# page faults and task-clock: medians of five runs each, alternated
EV=task-clock,page-faults,context-switches
faults_clock() {
	for i in 1 2 3 4 5; do
		"$LUAPROF" stat -e $EV -- "$PROGS/faults" 16 2> "$TMP/ours" >/dev/null || fail "luaprof stat failed: $(cat "$TMP/ours")"
		perf stat -x, -e $EV -- "$PROGS/faults" 16 2> "$TMP/perf" >/dev/null || fail "perf stat failed"
		value task-clock "$TMP/ours" >> "$TMP/tc.ours"; pvalue task-clock "$TMP/perf" >> "$TMP/tc.perf"
		value page-faults "$TMP/ours" >> "$TMP/pf.ours"; pvalue page-faults "$TMP/perf" >> "$TMP/pf.perf"
	done
	expect_grep "^ Performance counter stats for '$PROGS/faults 16':$" "$TMP/ours"
	expect_grep '^ +[0-9]+\.[0-9]+ seconds time elapsed$' "$TMP/ours"
	expect_grep '^ +[0-9.]+ msec task-clock +# +[0-9.]+ CPUs utilized$' "$TMP/ours"
	expect_grep '^ +[0-9]+ +page-faults +# +[0-9.]+ [KMG]?/sec$' "$TMP/ours"
	tc=$(median < "$TMP/tc.ours") ptc=$(median < "$TMP/tc.perf")
	pf=$(median < "$TMP/pf.ours") ppf=$(median < "$TMP/pf.perf")
	echo "task-clock: luaprof $tc msec, perf $ptc msec; page-faults: luaprof $pf, perf $ppf"
	awk -v a="$pf" -v b="$ppf" 'BEGIN {exit (a > 0 && (a - b) / b < 0.02 && (b - a) / b < 0.02) ? 0 : 1}' ||
		fail "page faults: luaprof $pf, perf $ppf: more than 2% apart"
	awk -v a="$tc" -v b="$ptc" 'BEGIN {exit (a > 0 && (a - b) / b < 0.05 && (b - a) / b < 0.05) ? 0 : 1}' ||
		fail "task-clock: luaprof $tc, perf $ptc: more than 5% apart"
}

# context switches: 20 sleeps, nothing else
switches() {
	for i in 1 2 3 4 5; do
		"$LUAPROF" stat -e context-switches -- "$PROGS/sleeper" 20 10 2> "$TMP/ours" || fail "luaprof stat failed"
		perf stat -x, -e context-switches -- "$PROGS/sleeper" 20 10 2> "$TMP/perf" || fail "perf stat failed"
		value context-switches "$TMP/ours" >> "$TMP/cs.ours"; pvalue context-switches "$TMP/perf" >> "$TMP/cs.perf"
	done
	cs=$(sort -g "$TMP/cs.ours" | head -1) pcs=$(sort -g "$TMP/cs.perf" | head -1)
	echo "context-switches of 20 sleeps, least of 5 runs: luaprof $cs ($(tr '\n' ' ' < "$TMP/cs.ours")), perf $pcs ($(tr '\n' ' ' < "$TMP/cs.perf"))"
	[ "$cs" = "$pcs" ] && [ "$cs" -ge 20 ] || fail "context switches: luaprof $cs, perf $pcs for 20 sleeps"
}

# unsupported events are shown as such, not refused (no hardware PMU here)
unsupported() {
	expect_status 0 "$LUAPROF" stat -e task-clock,instructions -- true
	if grep -q '<not supported> +instructions' "$TMP/err"; then
		perf stat -e instructions -- true 2>&1 | grep -q 'not supported' || fail "perf counts instructions, luaprof does not"
	fi
}

# -I 100 over about 1 s: ~10 intervals, each line as perf stat -I; they add up to the totals
intervals() {
	expect_status 0 "$LUAPROF" stat -I 100 -e task-clock,page-faults -- "$PROGS/sleeper" 1 1000
	expect_grep '^#           time             counts unit events$' "$TMP/err"
	# (a sleeping task's clock does not run: perf prints those intervals <not counted>)
	n=$(grep -c '^ *[0-9.]\+ \+\([0-9.]\+\|<not counted>\) msec task-clock' "$TMP/err")
	[ "$n" -ge 10 ] && [ "$n" -le 11 ] || fail "-I 100 over 1 s printed $n task-clock intervals"
}
interval_sums() {
	expect_status 0 "$LUAPROF" run "$CHECKS/countsum.lua" -e task-clock,page-faults,cs -- "$PROGS/faults" 16
	for e in task-clock page-faults context-switches; do
		expect_grep "^count	$e	([0-9]+)	\\1	[0-9]+	true$" "$TMP/out"
	done
	awk '$1 == "intervals" && $2 >= 2 {ok = 1} END {exit !ok}' "$TMP/out" || fail "no intervals: $(cat "$TMP/out")"
}

# a function's calls counted, nothing sampled
probe_counted() {
	[ -r /sys/bus/event_source/devices/uprobe/type ] && [ "$(id -u)" = 0 ] ||
		skip "no uprobe PMU, or not root: a probe's count not checked"
	expect_status 0 "$LUAPROF" stat -e "uprobe:$PROGS/probed:twice" -- "$PROGS/probed" calls 100000
	expect_grep "^ +100000 +uprobe:$PROGS/probed:twice" "$TMP/err"
}

scenario "page faults and task-clock: perf stat's" faults_clock
scenario "context switches: perf stat's" switches
scenario "an unsupported event" unsupported
scenario "-I 100" intervals
scenario "intervals add up to the totals" interval_sums
scenario "a probe counted" probe_counted
scenarios_done
