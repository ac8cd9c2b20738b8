# oneliner_plan: the one-liner compiler's plan (luaprof -x), decided on
# the parsed program, not on its text:
# - a string literal naming a function ("hist(x)") changes no map name;
#   count((comm)) and a clause ending in a comment still go to C (their
#   output the same as through Lua); a condition may divide;
# - bpftrace's probes run as written: tracepoint:, profile:hz:N,
#   software:faults:1, interval:ms:N (a clause run every interval),
#   u:/ur: (uprobe:, uretprobe:), and their answers are luaprof's own
#   spelling's;
# - a software event that counts things (page-faults) counts every event
#   unless -F or -c: main of faults has exactly 8192 faults (4 rounds of
#   8 MB, page by page), with -F 99 it is sampled;
# - an alias (cs) is its event's name: no "on_event names no event";
# - LUAPROF_ONELINER=explain prints the plan, =lua forces Lua.
. "$(dirname "$0")/lib.sh"
need_perf_events
need_tracefs
cd "$TMP"
X() { "$LUAPROF" -x "$@"; }

# The recording the cases read (a case fails on its own when it is
# missing), and its number of sched_switch samples.
perf record -q -e sched:sched_switch -o rec.data -- "$PROGS/pingpong" 2000 >/dev/null 2>&1 ||
	echo "perf record failed: no rec.data"
n=$(perf script -i rec.data -F event 2>/dev/null | grep -c 'sched:sched_switch')
need_rec() { [ -s rec.data ] || fail "perf record failed"; }

# ---- map names and C, on the tree ------------------------------------------
string_literal() {
	expect_status 0 X 'BEGIN { count(); local x = "hist(x)"; exit() }'
	printf '\n@: 1\n' | diff - "$TMP/out" || fail "a string literal renamed the map @"
}

# c_and_lua PROG: evaluated in C, the same output as through Lua
c_and_lua() {
	local prog=$1
	need_rec
	LUAPROF_ONELINER=explain expect_status 0 X "$prog" -i rec.data
	mv "$TMP/out" c.out
	grep -q 'evaluated in C' "$TMP/err" || { cat "$TMP/err"; fail "$prog: not evaluated in C"; }
	LUAPROF_ONELINER=lua expect_status 0 X "$prog" -i rec.data
	[ -s c.out ] || fail "$prog: no output"
	diff c.out "$TMP/out" || fail "$prog: C and Lua differ"
}

# a condition that divides (it ends at the '/' before its '{')
divides() {
	need_rec
	expect_status 0 X 'sched:sched_switch /args.next_pid // 2 >= 0 and args.prev_pid / 1 >= 0/ { count() }' -i rec.data
	expect_grep "^@: $n\$" "$TMP/out"
}

# ---- the plan, explained ---------------------------------------------------
explain() {
	need_rec
	LUAPROF_ONELINER=explain expect_status 0 X 'sched:sched_switch /args.prev_state == 1/ { hist(args.next_prio) } BEGIN { }' -i rec.data
	for line in '^luaprof: -x plan \(LUAPROF_ONELINER=explain\):$' \
		'^  clause 1 at 1:1: sched:sched_switch /args.prev_state == 1/ \{ hist\(args.next_prio\) \}$' \
		'^    event: sched:sched_switch$' '^    sample.s names: args.prev_state, args.next_prio$' \
		'^    aggregation: hist\(\) into @ \(value args.next_prio\)$' \
		'^    way: C \(core/agg, no Lua call per sample\): hist\(args.next_prio\) when args.prev_state == 1$' \
		'^  clause 2 at 1:68: BEGIN \{ \}$' '^    runs: once, before the first sample$'; do
		expect_grep "$line" "$TMP/err"
	done
}
explain_lua() {
	need_rec
	LUAPROF_ONELINER=lua,explain expect_status 0 X 'sched:sched_switch { count() }' -i rec.data
	expect_grep "^@: $n\$" "$TMP/out"
	expect_grep '^    way: Lua, a call per sample: LUAPROF_ONELINER=lua$' "$TMP/err"
}

# ---- bpftrace's probes, as written ---------------------------------------------
tracepoint_prefix() {
	expect_status 0 X 'raw_syscalls:sys_enter { count(comm) }' -- "$PROGS/openread" 2
	grep '^@\[openread\]' "$TMP/out" > plain
	expect_status 0 X 'tracepoint:raw_syscalls:sys_enter { count(comm) }' -- "$PROGS/openread" 2
	grep '^@\[openread\]' "$TMP/out" > bpf
	[ -s plain ] && diff plain bpf || fail "tracepoint:raw_syscalls:sys_enter differs from raw_syscalls:sys_enter"
}
# 99 Hz of 500 ms of CPU: about 50 samples (cpu-clock counts the task's CPU time)
profile_hz() {
	expect_status 0 X 'profile:hz:99 { count(comm) }' -- "$PROGS/spin" 500
	awk '/^@\[spin\]: / {f = $2 >= 25 && $2 <= 75} END {exit !f}' "$TMP/out" ||
		{ cat "$TMP/out"; fail "profile:hz:99 over 500 ms: not about 50 samples"; }
}
# an interval clause: the third tick ends the run, long before spin does
# (stopped by SIGTERM, as exit() stops a command)
interval_ms() {
	expect_status 143 X 'interval:ms:100 { t.n = (t.n or 0) + 1; if t.n == 3 then exit() end } END { print(t.n) }' -- \
		"$PROGS/spin" 20000
	printf '3\n' | diff - "$TMP/out" || fail "interval:ms:100: not three ticks"
}
u_ur() {
	[ -r /sys/bus/event_source/devices/uprobe/type ] ||
		skip "this kernel has no uprobe PMU: u: and ur: are not run"
	expect_status 0 X "u:$PROGS/calls:fc_two { count() } ur:$PROGS/calls:fc_three { count('@ret') }" -- \
		"$PROGS/calls" 3 1
	printf '\n@: 6\n@ret: 9\n' | diff - "$TMP/out" || fail "u: and ur: did not count 2N and 3N calls"
}

# ---- events counted, not sampled -------------------------------------------------
thp=$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
main_faults() {
	local prog=$1
	expect_status 0 X "$prog" -- "$PROGS/faults" 8
	case $thp in
	*"[always]"*) awk '/^@: / {f = $2 >= 16 && $2 <= 8192} END {exit !f}' "$TMP/out" ;;
	*) grep -qx '@: 8192' "$TMP/out" ;;
	esac || { cat "$TMP/out"; fail "$prog: main's faults are not 8192"; }
}
# in C too: the process's every fault, perf stat's count of a run of it
every_fault() {
	total=$(perf stat -x, -e page-faults -- "$PROGS/faults" 8 2>&1 >/dev/null | awk -F, '/page-faults/ {print $1}')
	expect_status 0 X 'page-faults { count(comm) }' -- "$PROGS/faults" 8
	awk -v lo=8192 -v hi=$((total + 64)) '/^@\[faults\]: / {f = $2 >= lo && $2 <= hi} END {exit !f}' "$TMP/out" ||
		{ cat "$TMP/out"; fail "page-faults { count(comm) }: not every fault (perf stat counts $total)"; }
}
# -F samples them: of 65,536 faults in main, 60-100 at 999 Hz (at 99 Hz
# on 8 MB, 1 or 2, and a check-asan run with a CPU busy saw none)
sampled_faults() {
	expect_status 0 X 'page-faults /sym == "main"/ { count() }' -F 999 -- "$PROGS/faults" 64
	awk '/^@: / {f = $2 < 4096} END {exit !f}' "$TMP/out" || { cat "$TMP/out"; fail "-F 999 did not sample page-faults"; }
}

# ---- an alias is its event's name ---------------------------------------------------
alias_cs() {
	expect_status 0 X 'cs { count(event) }' -- "$PROGS/pingpong" 100
	expect_grep '^@\[context-switches\]: [0-9]+$' "$TMP/out"
	! grep -q 'names no event' "$TMP/err" || { cat "$TMP/err"; fail "cs: on_event named no event"; }
}

scenario "a string literal names no map" string_literal
scenario "count((comm)) in C" c_and_lua 'sched:sched_switch { count((comm)) }'
scenario "a clause ending in a comment in C" c_and_lua $'sched:sched_switch { count(comm) -- by thread\n}'
scenario "a condition 0 < x in C" c_and_lua 'sched:sched_switch /0 < args.prev_state/ { count(args.next_pid) }'
scenario "a condition that divides" divides
scenario "LUAPROF_ONELINER=explain" explain
scenario "LUAPROF_ONELINER=lua,explain" explain_lua
scenario "tracepoint:" tracepoint_prefix
scenario "profile:hz:99" profile_hz
scenario "interval:ms:100" interval_ms
scenario "u: and ur:" u_ur
scenario "page-faults counted" main_faults 'page-faults /sym == "main"/ { count() }'
scenario "software:faults:1 counted" main_faults 'software:faults:1 /sym == "main"/ { count() }'
scenario "faults counted" main_faults 'faults /sym == "main"/ { count() }'
scenario "every fault, in C: perf stat's" every_fault
scenario "-F 999 samples page-faults" sampled_faults
scenario "an alias: cs" alias_cs
scenarios_done
