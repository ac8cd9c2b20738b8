# top's --sort keys as perf report's (issue 24 #8), on one perf recording:
# - pid: perf's key is per thread, printed TID:COMMAND under Pid:Command
#   (twothreads: three threads, two of them renamed);
# - dso: a perf map (/tmp/perf-PID.map) is "[JIT] tid PID" (jit), with sym
#   too.  Rows are perf report's; for pid in any order (perf's order of
#   threads of equal share is not top's concern here).
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed"
cd "$TMP"
jitpid=
trap '[ -n "$jitpid" ] && rm -f "/tmp/perf-$jitpid.map"; rm -rf "$TMP"' EXIT
rows() { awk '$1 ~ /%$/ {$1 = $1; print}'; }
# same FILE SORT [sort]: top --sort=SORT's rows equal perf report --sort SORT's
same() {
	local f=$1 key=$2 order=${3:-cat}
	perf report -i "$f" --stdio --no-children --sort "$key" -n -g none 2>/dev/null | rows | $order > perf.rows
	[ -s perf.rows ] || fail "perf report --sort $key printed no rows"
	"$LUAPROF" run top --sort="$key" --limit=100000 -i "$f" > out 2>&1 || { cat out; fail "top --sort=$key failed"; }
	rows < out | $order > our.rows
	diff perf.rows our.rows > d.out || { cat d.out; fail "top --sort=$key differs from perf report --sort $key"; }
	perf report -i "$f" --stdio --no-children --sort "$key" -n -g none 2>/dev/null | grep -q "^# Overhead .*${4:-}" ||
		fail "perf's header for $key is not '${4:-}'"
	grep -q "^Overhead .*${4:-}" out || fail "top's header for --sort=$key is not '${4:-}'"
	echo "--sort=$key: $(wc -l < our.rows) rows as perf report's"
}
perf record -q -F 999 -o tt.data -- "$PROGS/twothreads" 100 >/dev/null 2>&1 || fail "perf record twothreads failed"
same tt.data pid sort 'Pid:Command'
grep -q ':worker-2$' our.rows || fail "no worker-2 thread row"
perf record -q -F 999 -o jit.data -- "$PROGS/jit" 200 200 >/dev/null 2>&1 || fail "perf record jit failed"
jitpid=$(perf script -i jit.data -F pid 2>/dev/null | awk 'NR == 1 {print $1}')
[ -n "$jitpid" ] && [ -s "/tmp/perf-$jitpid.map" ] || fail "jit left no perf map"
same jit.data dso cat 'Shared Object'
grep -q "^\[JIT\] tid $jitpid$" <(awk '{$1 = $2 = ""; sub(/^ +/, ""); print}' our.rows) || fail "no [JIT] tid $jitpid row"
same jit.data dso,sym
