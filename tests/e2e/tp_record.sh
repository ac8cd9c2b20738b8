# Tracepoint recordings, both ways.  perf record's sched:sched_switch
# recording (a file and a pipe) replays with the fields perf script -F
# trace prints, sample for sample; luaprof record and run -o write the
# TRACING_DATA feature, so perf script prints the fields of luaprof's
# recordings, the same as luaprof's replay of them.
. "$(dirname "$0")/lib.sh"
need_perf_events
need_tracefs
[ "$(id -u)" = 0 ] || skip "system-wide tracepoints need root"
command -v perf >/dev/null || skip "perf is not installed"
# switches.lua renders prev_state as this kernel's print fmt does; a kernel
# that prints it otherwise is compared without it.
fmt=/sys/kernel/tracing/events/sched/sched_switch/format
[ -r "$fmt" ] || fmt=/sys/kernel/debug/tracing/events/sched/sched_switch/format
if grep -q '{ 0x00000080, "I" })' "$fmt" && grep -q '0x00000040) + 1) << 1) ? "+"' "$fmt"; then
	norm() { cat; }
else
	norm() { sed 's/ prev_state=[^ ]* / /'; }
fi
same() {   # same FILE: luaprof's replay prints every sched_switch as perf script does
	perf script -i "$1" -F trace 2>/dev/null | sed 's/^ *//; s/ *$//' | norm > "$TMP/perf.txt"
	"$LUAPROF" run "$CHECKS/switches.lua" -i "$1" 2>"$TMP/err" | norm > "$TMP/ours.txt" ||
		{ cat "$TMP/err"; fail "replay of $1 failed"; }
	[ -s "$TMP/perf.txt" ] || fail "perf script printed no sched_switch of $1"
	diff "$TMP/perf.txt" "$TMP/ours.txt" > "$TMP/diff" ||
		{ head "$TMP/diff"; fail "$1: fields differ from perf script -F trace"; }
	echo "$1: $(wc -l < "$TMP/ours.txt") samples agree"
}
perf record -q -o "$TMP/perf.data" -a -e sched:sched_switch -- "$PROGS/sleeper" 5 10 2>/dev/null ||
	fail "perf record failed"
same "$TMP/perf.data"
perf record -q -o - -e sched:sched_switch -- "$PROGS/sleeper" 5 10 2>/dev/null > "$TMP/pipe.data"
same "$TMP/pipe.data"
# luaprof's own recordings, with other events in them too.
expect_status 0 "$LUAPROF" record -o "$TMP/lp.data" -a -e sched:sched_switch,cpu-clock \
	-- "$PROGS/sleeper" 5 10
same "$TMP/lp.data"
perf script -i "$TMP/lp.data" -F event 2>/dev/null | grep -q 'cpu-clock' || fail "no cpu-clock samples in lp.data"
expect_status 0 "$LUAPROF" run "$CHECKS/tpcount.lua" -o "$TMP/run.data" \
	-e syscalls:sys_enter_getppid,sched:sched_process_exec -- "$PROGS/tpcalls" 300
expect_grep '^event	syscalls:sys_enter_getppid	300$' "$TMP/out"
n=$(perf script -i "$TMP/run.data" -F event,trace 2>/dev/null | grep -c 'sys_enter_getppid: *$')
[ "$n" = 300 ] || fail "perf script reads $n getppid samples in run.data, expected 300"
perf script -i "$TMP/run.data" -F trace 2>/dev/null | grep -q "filename=$PROGS/tpcalls pid=[0-9]* old_pid=" ||
	fail "perf script prints no exec fields from run.data"
exit 0
