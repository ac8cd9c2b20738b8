# An exec while luaprof attaches (-p) is in what it sees: every sample of
# the new program is named, and carries the new program's name, live and
# in the recording of -o, which perf reads the same (issue 31).  luaprof
# used to read the processes' maps from /proc and only then enable the
# events, 0.16-0.5 s later (the kernel's symbols were read in between):
# an exec in that gap made no COMM or MMAP record, and every later sample
# kept the old name and no function, 1 to 3 times in 7 attaches.  It now
# enables the events first, as perf record does for -a.  The exec is put
# in the gap, not hoped for: tests/progs/execgate waits at a FIFO, and the
# script's on_comm for its second thread (luaprof reads /proc thread by
# thread, after the main thread's maps) opens it and waits for the exec
# (tests/e2e/lua/exec_gate.lua).
. "$(dirname "$0")/lib.sh"
need_perf_events
cd "$TMP"
SPIN=$(readlink -f "$PROGS/spin")

# attach_exec ARGS...: execgate held at its gate with its two threads,
# then luaprof run exec_gate.lua ARGS -p on it, which must exit 0; leaves
# the pid in $PID and the output in $TMP/out.
attach_exec() {
	local gate=$TMP/gate.$RANDOM i rc
	mkfifo "$gate"
	"$PROGS/execgate" "$gate" "$SPIN" 400 &
	PID=$!
	for i in $(seq 400); do
		[ "$(ls "/proc/$PID/task" 2>/dev/null | wc -l)" = 2 ] && break
		sleep 0.05
	done
	"$LUAPROF" run "$CHECKS/exec_gate.lua" -A "$PID" -A "$SPIN" -A "$gate" -e cpu-clock "$@" \
		-p "$PID" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	kill "$PID" 2>/dev/null     # still at its gate when luaprof failed
	wait "$PID"
	[ "$rc" = 0 ] || { cat "$TMP/out" "$TMP/err"; fail "luaprof run -p exited $rc"; }
}

# all_named WHAT N SPIN UNNAMED: N user samples of the process, at least
# 90% of them named spin (a few may come before the exec, from execgate
# leaving its read), at most 2% in no function (the dynamic linker's
# first steps).
all_named() {
	local what=$1 n=$2 spin=$3 unnamed=$4
	[ "$n" -ge 100 ] || fail "$what: only $n user samples of the process (spin 400 ms at 4 kHz)"
	[ $((spin * 10)) -ge $((n * 9)) ] ||
		fail "$what: $spin of $n samples after the exec carry the new program's name: the exec was missed"
	[ $((unnamed * 50)) -le "$n" ] ||
		fail "$what: $unnamed of $n samples after the exec are in no function: the new program's maps were missed"
}

# ours: the numbers of exec_gate.lua's line in $TMP/out.
ours() {
	expect_grep '^samples [0-9]+ spin [0-9]+ unnamed [0-9]+$' "$TMP/out"
	awk '/^samples/ {print $2, $4, $6}' "$TMP/out"
}

attach_exec
all_named "live" $(ours)

attach_exec -o exec.data
all_named "-o, live" $(ours)
expect_status 0 "$LUAPROF" run "$CHECKS/exec_gate.lua" -A "$PID" -A "$SPIN" -i exec.data
all_named "-o, replayed" $(ours)
if command -v perf >/dev/null; then
	perf script -i exec.data -F comm,pid,ip,sym,dso > script.txt 2> perf.err ||
		fail "perf script cannot read exec.data: $(head -3 perf.err)"
	all_named "-o, perf script" $(awk -v pid="$PID" '
		$2 == pid && $NF != "([kernel.kallsyms])" { n++; if ($1 == "spin") s++; if ($4 == "[unknown]") u++ }
		END { print n + 0, s + 0, u + 0 }' script.txt)
fi
echo "ok: an exec between the reading of /proc and the start of the events is seen, live and recorded"
