# offcpu: a program that sleeps ten times 50 ms (nanosleep) is off the CPU
# asleep exactly ten times, for 500 ms and at most 100 ms more, on the
# stack of its nanosleep call; live (the script's own system-wide
# sched_switch), with -a, from its own recording (-o then -i: the same
# sleeper rows), and from perf's recording (perf record -a -g -e
# sched:sched_switch).  With -p, a sleeper of twenty 50 ms sleeps, held at
# a gate until luaprof has attached (lib.sh's gated): all twenty seen,
# 1000-1200 ms.  --states=R leaves the sleeps out.  Tolerance: nanosleep never
# returns before its 50 ms (the switch out follows the timer's start by
# microseconds: 1 ms below 500 is allowed for ten of them); above, each
# wake-up adds the timer slack (50 us) and the wait for a CPU, which on a
# loaded 2-CPU machine can reach milliseconds: 10 ms per sleep.
# The profile scripts' --offcpu on offcpu's recording: the sleeper's
# folded stacks (us), its speedscope profile (ns) and pprof's total under
# do_nanosleep (go tool pprof, ms) in the same range; the flame graph has
# the do_nanosleep frame and an off-CPU title.
. "$(dirname "$0")/lib.sh"
need_perf_events
need_tracefs
[ "$(id -u)" = 0 ] || skip "system-wide tracepoints need root"
cd "$TMP"
# A copy of the sleeper under a name of its own: other tests, running at
# the same time, sleep too, and -a and replays see every process.
C=slp$$
cp "$PROGS/sleeper" "$C"
# nanosleep_us FILE [COMM]: the microseconds of the folded stacks of COMM
# (default $C) through the kernel's nanosleep.
nanosleep_us() {
	awk -v c="${2:-$C}" 'index($0, c ";") == 1 && /do_nanosleep/ {s += $NF} END {print s + 0}' "$1"
}
in_range() { [ "$2" -ge "$3" ] && [ "$2" -le "$4" ] || fail "$1: ${2} us off the CPU in nanosleep, expected $3-$4"; }

# made FILE: fails unless the live case made FILE
made() { [ -s "$1" ] || fail "no $1: the live case did not make it"; }

# live, with a recording the replays below read
live() {
	expect_whole 0 "$LUAPROF" run offcpu -o off.data -- ./"$C" 10 50
	cp "$TMP/out" live.txt
	expect_grep "^$C"' +[0-9]+ +[0-9]+ +sleeping +10 ' live.txt
	awk '/^# the / {s = 1} s && /do_nanosleep/ {f = 1} END {exit !f}' live.txt || fail "no stack through do_nanosleep"
}
live_folded() {
	expect_whole 0 "$LUAPROF" run offcpu --folded -- ./"$C" 10 50
	in_range "live" "$(nanosleep_us "$TMP/out")" 499000 600000
}
# its recording: the same sleeper rows
replay() {
	made off.data
	made live.txt
	expect_status 0 "$LUAPROF" run offcpu --limit=1000 -i off.data
	grep "^$C " live.txt | awk '{$1 = $1; print}' > live.rows
	grep "^$C " "$TMP/out" | awk '{$1 = $1; print}' > replay.rows
	diff live.rows replay.rows || fail "the replay of the recording gives other sleeper rows than the live run"
}
# --min-block: waits under 40 ms left out keep the ten 50 ms sleeps; over
# 60 ms, none of them (over the longest sleep the live run measured, when
# a wake-up waited more than 10 ms for a CPU: the sleeper's LONGEST)
min_block_40() {
	made off.data
	expect_status 0 "$LUAPROF" run offcpu --min-block=40000 --folded -i off.data
	in_range "--min-block=40000" "$(nanosleep_us "$TMP/out")" 499000 600000
}
min_block_60() {
	made off.data
	made live.txt
	local longest
	longest=$(awk -v c="$C" '$1 == c && $4 == "sleeping" {
		u = $NF == "s" ? 1000000 : $NF == "ms" ? 1000 : $NF == "us" ? 1 : -1
		print u < 0 ? -1 : int($(NF - 1) * u) + 1000 }' live.txt)
	[ -n "$longest" ] && [ "$longest" -gt 0 ] || fail "no LONGEST in the sleeper's row of the live run"
	[ "$longest" -gt 60000 ] || longest=60000
	expect_status 0 "$LUAPROF" run offcpu --min-block="$longest" --folded -i off.data
	[ "$(nanosleep_us "$TMP/out")" = 0 ] || fail "--min-block=$longest kept a sleep of 50 ms"
}
# -a with the command: the whole system, the sleeper among it
all_cpus() {
	expect_whole 0 "$LUAPROF" run offcpu -a --folded -- ./"$C" 10 50
	in_range "-a" "$(nanosleep_us "$TMP/out")" 499000 600000
}
# --states=R: only the waits for a CPU, not the 500 ms of sleeps.  A switch
# out from do_nanosleep can be runnable (R): a preemption on the way into
# the sleep or out of it, whose wait for a CPU is as long as the machine
# is busy (microseconds when quiet, milliseconds with a CPU taken).  So
# the bound is the sleeps': any one of them counted would add 50 ms; all
# the preemptions together must stay under half of that.
states_r() {
	expect_whole 0 "$LUAPROF" run offcpu --states=R --folded -- ./"$C" 10 50
	r_us=$(nanosleep_us "$TMP/out")
	[ "$r_us" -lt 25000 ] || fail "--states=R counted the sleeps: $r_us us through do_nanosleep (one sleep is 50000)"
}
# -p: attached before the program runs (gated), so all of its 20 sleeps
attached() {
	gated ./"$C" 20 50
	attach_gated 0 "$LUAPROF" run offcpu --folded
	in_range "-p" "$(nanosleep_us "$TMP/out")" 999000 1200000
}
# perf's recording
perf_recording() {
	perf record -q -a -g -e sched:sched_switch -o perf.data -- ./"$C" 10 50 >/dev/null 2>&1 ||
		fail "perf record -a -e sched:sched_switch failed"
	expect_status 0 "$LUAPROF" run offcpu --folded -i perf.data
	in_range "perf's recording" "$(nanosleep_us "$TMP/out")" 499000 600000
}
# the profile scripts, off-CPU
folded() {
	made off.data
	expect_status 0 "$LUAPROF" run folded --offcpu -i off.data
	in_range "folded --offcpu (us)" "$(nanosleep_us "$TMP/out")" 499000 600000
}
flamegraph() {
	made off.data
	expect_status 0 "$LUAPROF" run flamegraph --offcpu --out=off.svg -i off.data
	grep -q 'do_nanosleep' off.svg || fail "the off-CPU flame graph has no do_nanosleep frame"
	grep -q 'Off-CPU' off.svg || fail "the off-CPU flame graph is not titled so"
}
speedscope() {
	made off.data
	expect_status 0 "$LUAPROF" run speedscope --offcpu --out=off.json -i off.data
	ns=$(/usr/bin/python3 -c "
import json; d = json.load(open('off.json'))
print(sum(sum(p['weights']) for p in d['profiles'] if p['name'].startswith('$C ')))")
	in_range "speedscope --offcpu (ns, the sleeper's profile)" "$ns" 499000000 610000000
}
pprof() {
	command -v go >/dev/null ||
		skip "go is not installed (make test-deps installs golang-go as root): pprof --offcpu not checked"
	made off.data
	expect_status 0 "$LUAPROF" run pprof --offcpu --per=process --out=off.pb.gz -i off.data
	HOME=$TMP go tool pprof -top -focus=do_nanosleep -tagfocus=comm=$C -unit=ms off.pb.gz > pp.txt 2>&1 || { cat pp.txt; fail "go tool pprof cannot read the off-CPU profile"; }
	ms=$(awk '/Showing nodes accounting for/ {gsub(/ms,?/, "", $5); print int($5)}' pp.txt)
	in_range "pprof --offcpu (ms through do_nanosleep)" "$ms" 499 610
}

scenario "live, -o" live
scenario "live, --folded" live_folded
scenario "its recording: the same rows" replay
scenario "--min-block=40000" min_block_40
scenario "--min-block=60000" min_block_60
scenario "-a" all_cpus
scenario "--states=R" states_r
scenario "-p, gated" attached
scenario "perf's recording" perf_recording
scenario "folded --offcpu" folded
scenario "flamegraph --offcpu" flamegraph
scenario "speedscope --offcpu" speedscope
scenario "pprof --offcpu" pprof
scenarios_done
