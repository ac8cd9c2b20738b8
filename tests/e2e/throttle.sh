# Throttling: the kernel stops an event that overflows more often than
# kernel.perf_event_max_sample_rate allows per tick, until the next tick,
# and writes a THROTTLE record.  luaprof tells apart the throttles of a
# task, a sign of too high a rate ("use a lower -F"), from those of the
# idle task: an idle CPU's tick stops, and its timer's samples pile up
# against the last tick until they pass the limit (a quiet CPU at 4 kHz
# may, a few times a run), which loses only idle samples.  With the
# limit lowered to 1000/s for the test (4 per tick at HZ=250), and restored
# at once, also when the test fails or is killed:
# - per task, a 10 kHz cpu-clock on a busy program (events that follow a
#   task never sample the idle task): every throttle is the task's, and
#   luaprof's count equals the file's THROTTLE records and perf's count;
# - system-wide over a sleep: the idle and busy counts luaprof prints equal
#   the file's THROTTLE records whose sample_id names pid 0 and the others
#   (throttles.py), and together perf report's.  (How many are idle depends
#   on how quiet the machine is: none when every CPU is busy.)
# - -F above the limit, given or the default, is lowered to it with one line.
# test: alone
. "$(dirname "$0")/lib.sh"
need_perf_events
[ "$(id -u)" = 0 ] || skip "lowering kernel.perf_event_max_sample_rate needs root"
command -v perf >/dev/null || skip "perf is not installed: nothing to count the THROTTLE records with"
cd "$TMP"
rate=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
restore() { sysctl -q kernel.perf_event_max_sample_rate="$rate"; }
trap 'restore; rm -rf "$TMP"' EXIT
trap 'restore; exit 1' INT TERM HUP
sysctl -q kernel.perf_event_max_sample_rate=1000 || fail "cannot set kernel.perf_event_max_sample_rate"

# said KIND: the count luaprof's line for KIND (busy or idle) in err gives
said() {
	local re
	case $1 in
	busy) re='^luaprof: the kernel throttled sampling ([0-9]+) times?: use a lower -F \(its limit is kernel\.perf_event_max_sample_rate\)$' ;;
	idle) re='^luaprof: the kernel throttled sampling ([0-9]+) times? on idle CPUs \(their tick stops\): only the idle task and at most a tick of what ran next went unsampled$' ;;
	esac
	sed -nE "s/$re/\1/p" "$TMP/err"
}

# perf_count FILE: perf report's count of FILE's THROTTLE records
perf_count() {
	perf report -i "$1" --stats 2>/dev/null | awk '$1 == "THROTTLE" {n = $3} END {print n + 0}'
}

expect_status 0 "$LUAPROF" record -e cpu-clock -c 100000 -o task.data -- "$PROGS/spin" 300
busy=$(said busy) idle=$(said idle)
read -r _ f_idle _ f_busy < <(python3 "$ROOT/tests/e2e/throttles.py" task.data)
theirs=$(perf_count task.data)
echo "per task: luaprof said ${busy:-0} busy, ${idle:-0} idle; the file has $f_busy busy, $f_idle idle; perf counts $theirs"
[ -n "$busy" ] && [ "$busy" -gt 0 ] || { cat "$TMP/err"; fail "a 10 kHz cpu-clock at a 1000/s limit: no throttle said"; }
[ -z "$idle" ] && [ "$f_idle" = 0 ] || { cat "$TMP/err"; fail "a per-task event throttled in the idle task"; }
[ "$busy" = "$f_busy" ] && [ "$busy" = "$theirs" ] || fail "luaprof said $busy throttles; the file has $f_busy, perf counts $theirs"

expect_status 0 "$LUAPROF" record -a -e cpu-clock -c 100000 -o all.data -- sleep 0.5
busy=$(said busy) idle=$(said idle)
read -r _ f_idle _ f_busy < <(python3 "$ROOT/tests/e2e/throttles.py" all.data)
theirs=$(perf_count all.data)
echo "system-wide: luaprof said ${busy:-0} busy, ${idle:-0} idle; the file has $f_busy busy, $f_idle idle; perf counts $theirs"
[ "${busy:-0}" = "$f_busy" ] && [ "${idle:-0}" = "$f_idle" ] && [ $((f_busy + f_idle)) = "$theirs" ] ||
	{ cat "$TMP/err"; fail "system-wide: luaprof's throttle counts differ from the file's"; }
[ "$theirs" -gt 0 ] || fail "system-wide at 10 kHz and a 1000/s limit: no throttle at all"

# -F above the limit (the kernel refuses it): lowered to the limit, with
# one line, as perf does; the default rate (4000) too
expect_status 0 "$LUAPROF" record -F 5000 -o f.data -- "$PROGS/spin" 100
expect_grep '^luaprof: -F 5000 is above kernel\.perf_event_max_sample_rate: sampling at 1000 Hz' "$TMP/err"
perf evlist -v -i f.data 2>/dev/null | grep -q 'sample_freq }: 1000,.* freq: 1' ||
	fail "the recording's attr is not at 1000 Hz: $(perf evlist -v -i f.data 2>/dev/null | head -1)"
expect_status 0 "$LUAPROF" record -o d.data -- "$PROGS/spin" 100
expect_grep '^luaprof: -F 4000 is above kernel\.perf_event_max_sample_rate: sampling at 1000 Hz' "$TMP/err"
restore
[ "$(cat /proc/sys/kernel/perf_event_max_sample_rate)" = "$rate" ] || fail "kernel.perf_event_max_sample_rate was not restored"
exit 0
