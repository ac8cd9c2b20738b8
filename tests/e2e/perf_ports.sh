# The ports of perf's own scripts print what perf script -s prints with the
# original on the same recording, line for line:
# - syscall-counts, syscall-counts-by-pid, failed-syscalls-by-pid (each
#   with no argument, with a command, and the by-pid ones with a pid) on a
#   system-wide raw_syscalls recording of sysmix (1000 getppid, 100 failing
#   close) and preadwrite (200 pread, 200 pwrite, 20 failing pread: calls
#   that python3-audit names otherwise than the kernel);
# - sctop: its one block over the whole recording (-I longer than it) is
#   syscall-counts.py's table (sctop.py's own header, which perf prints
#   before reading the file, is its first lines: its timer thread prints
#   on the clock, so later blocks are not comparable);
# - sched-migration and wakeup-latency (Perl) on a system-wide recording of
#   the scheduler's events during pingpong and twothreads;
# - event_analyzing_sample on a cpu-clock and page-faults recording;
# - Util.strerror's names (Python's errno's) for every error number.
# The originals run as shipped, with python3-audit's system call names as
# Debian's perf gives them (tests/install-deps.sh test installs it), but
# for what this machine makes them need: sched-migration's
# window (a stub of SchedGui that prints the time slices the window would
# draw; the port prints the same), sched_wakeup without its "success"
# field (gone from the kernel's format since 4.x: the originals' handlers
# take fields by position), sched-migration's "rejected" message (a
# format bug that raises TypeError), and event_analyzing_sample's
# database (/dev/shm/perf.db, made here in the test's directory).
. "$(dirname "$0")/lib.sh"
need_perf_events
need_tracefs
[ "$(id -u)" = 0 ] || skip "system-wide tracepoints need root"
command -v perf >/dev/null || skip "perf is not installed: nothing to compare with"
PY=/usr/lib/perf-core/scripts/python PL=/usr/lib/perf-core/scripts/perl
[ -f "$PY/syscall-counts.py" ] || PY=/usr/libexec/perf-core/scripts/python PL=/usr/libexec/perf-core/scripts/perl
[ -f "$PY/syscall-counts.py" ] || skip "perf's Python scripts are not installed (linux-perf ships them)"
cd "$TMP"
# perf's embedded Python imports audit from the system's dist-packages
/usr/bin/python3 -c 'import audit' 2>/dev/null ||
	skip "python3-audit is not installed (tests/install-deps.sh test): perf's scripts would print numbers"
mkdir stub
cat > stub/SchedGui.py <<'PYEOF'
# Test stub for sched-migration.py's window: prints the time slices it would draw.
class _Wx:
    def App(self, *args):
        return self
    def MainLoop(self):
        pass
wx = _Wx()
_KINDS = {"RunqueueEventSleep": ("sleep", "sleeper"), "RunqueueEventWakeup": ("wakeup", "wakee"),
          "RunqueueEventFork": ("fork", "child"), "RunqueueMigrateIn": ("migrate_in", "new"),
          "RunqueueMigrateOut": ("migrate_out", "old")}
def _event(e):
    k = _KINDS.get(type(e).__name__)
    return "%s %d" % (k[0], getattr(e, k[1])) if k else "unknown"
class RootFrame:
    def __init__(self, timeslices, title):
        for i, ts in enumerate(timeslices.data):
            print("%d %d %d load=%d cpus=%s" % (i, ts.start, ts.end, ts.total_load,
                                                 ",".join(str(c) for c in ts.event_cpus)))
            for cpu in sorted(ts.rqs):
                rq = ts.rqs[cpu]
                print("  cpu %d: %s  %s" % (cpu, " ".join(str(t) for t in rq.tasks), _event(rq.event)))
PYEOF
python3 - "$PY" <<'PYEOF' || fail "cannot adapt the original scripts"
import sys
src = sys.argv[1]
s = open(src + "/sched-migration.py").read()
old = "% \\\n\t\t\t\theaders.ts_format(), headers.cpu, prev_comm, prev_pid, next_comm, next_pid)"
assert old in s, "sched-migration.py: the rejected message"
s = s.replace(old, "% \\\n\t\t\t\t(headers.ts_format(), headers.cpu, prev_comm, prev_pid, next_comm, next_pid))")
assert s.count("prio, success,\n\ttarget_cpu):") == 2, "sched-migration.py: the wake-up handlers"
s = s.replace("prio, success,\n\ttarget_cpu):", "prio,\n\ttarget_cpu, success=1):")
open("sched-migration.py", "w").write(s)
s = open(src + "/event_analyzing_sample.py").read()
assert "/dev/shm/perf.db" in s
open("event_analyzing_sample.py", "w").write(s.replace("/dev/shm/perf.db", "perf.db"))
PYEOF
sed 's/\$prio, \$success, \$target_cpu) = @_;/$prio, $target_cpu) = @_;/' "$PL/wakeup-latency.pl" > wakeup-latency.pl
grep -q '\$prio, \$target_cpu) = @_;' wakeup-latency.pl || fail "wakeup-latency.pl: the wake-up handler"
# same SCRIPT DATA ORIGINAL [ARG]: the port's output is the original's.
same() {
	local port=$1 data=$2 orig=$3 arg=${4:-}
	PYTHONPATH=$TMP/stub perf script -i "$data" -s "$orig" $arg > orig.txt 2> orig.err ||
		{ tail -5 orig.err; fail "perf script -s $(basename "$orig") failed"; }
	expect_status 0 "$LUAPROF" run "$port" ${arg:+-A "$arg"} -i "$data"
	diff orig.txt "$TMP/out" > diff.txt || { head -20 diff.txt; fail "$port${arg:+ $arg} differs from $(basename "$orig")"; }
	[ "$(wc -l < orig.txt)" -ge 5 ] || fail "$port: fewer than 5 lines: $(cat orig.txt)"
	echo "$port${arg:+ $arg}: the same $(wc -l < orig.txt) lines"
}
# the system calls' recording most cases read
perf record -q -a -e raw_syscalls:sys_enter,raw_syscalls:sys_exit -o sys.data -- \
	sh -c "'$PROGS/sysmix'; '$PROGS/preadwrite'" >/dev/null 2>&1 ||
	fail "perf record of raw_syscalls failed"
# sysmix's 100 close(-1), as many as the recording holds (perf script's
# own text: perf's recording may lack some; at least half must be there);
# its output (failed-sysmix.txt) names sysmix's pid for the cases after it
failed_sysmix() {
	same failed-syscalls-by-pid sys.data "$PY/failed-syscalls-by-pid.py" sysmix
	cp "$TMP/out" failed-sysmix.txt
	ebadf=$(perf script -i sys.data -F comm,trace 2>/dev/null | grep -c '^ *sysmix .*NR 3 = -9$')
	[ "$ebadf" -ge 50 ] || fail "perf's recording holds only $ebadf of sysmix's 100 failing close calls"
	grep -qE "^ +err = EBADF +$ebadf\$" "$TMP/out" || fail "failed-syscalls-by-pid: not the recording's $ebadf EBADF for sysmix"
	echo "failed-syscalls-by-pid sysmix: $ebadf EBADF, as the recording holds"
}
# by_pid SCRIPT: SCRIPT with sysmix's pid
by_pid() {
	[ -s failed-sysmix.txt ] || fail "no failed-sysmix.txt: the failed-syscalls-by-pid sysmix case did not make it"
	pid=$(awk '/^sysmix \[/ {gsub(/[][]/, "", $2); print $2; exit}' failed-sysmix.txt)
	same "$1" sys.data "$PY/$1.py" "$pid"
}
# the comparison covers the calls audit names otherwise: preadwrite's
# pread and pwrite under audit's names, its failing pread too, from a
# recording of preadwrite alone (the -a one above can lose some of its
# calls on a busy machine: seen under ASan with a CPU busy)
audit_names() {
	perf record -q -e raw_syscalls:sys_enter,raw_syscalls:sys_exit -o pw.data -- "$PROGS/preadwrite" \
		>/dev/null 2>&1 || fail "perf record of raw_syscalls failed (preadwrite)"
	PYTHONPATH=$TMP/stub perf script -i pw.data -s "$PY/syscall-counts-by-pid.py" preadwrite 2>/dev/null > orig.txt
	for c in pread pwrite; do
		grep -qE "^  $c +[0-9]+$" orig.txt || { cat orig.txt; fail "syscall-counts-by-pid.py printed no '$c' row for preadwrite"; }
	done
	grep -q 'pread64' orig.txt && fail "perf's script printed the kernel's pread64: not audit's names"
	expect_status 0 "$LUAPROF" run failed-syscalls-by-pid -A preadwrite -i pw.data
	grep -qE '^  syscall: pread +$' "$TMP/out" || { cat "$TMP/out"; fail "failed-syscalls-by-pid: no failing pread for preadwrite"; }
	echo "pread and pwrite: audit's names, as perf's scripts print them"
}
# sctop
sctop() {
	PYTHONPATH=$TMP/stub timeout 20 perf script -i sys.data -s "$PY/sctop.py" > sctop.orig 2>/dev/null
	expect_status 0 "$LUAPROF" run sctop -I 1000000 -i sys.data
	# sctop.py's timer thread prints on the clock: a run cut short by its
	# timeout may print less of the header (once: 5 of its 6 lines), so the
	# lines it did print are compared, at least 4
	n=$(head -6 sctop.orig | wc -l)
	[ "$n" -ge 4 ] || { cat sctop.orig; fail "sctop.py printed $n header lines"; }
	head -"$n" sctop.orig | diff - <(head -"$n" "$TMP/out") || fail "sctop's header differs from sctop.py's"
	PYTHONPATH=$TMP/stub perf script -i sys.data -s "$PY/syscall-counts.py" 2>/dev/null |
		sed '1d; s/^-\{40\}  -\{11\}$/---------------------------------------- ----------/; s/^---------------------------------------- ----------$/----------------------------------------  ----------/' > counts.txt
	tail -n +2 "$TMP/out" | diff counts.txt - || fail "sctop's block over the whole recording differs from syscall-counts.py's table"
}
# the scheduler: the first case records what the second reads
sched_migration() {
	perf record -q -a -e sched:sched_switch,sched:sched_migrate_task,sched:sched_wakeup,sched:sched_wakeup_new \
		-o sched.data -- sh -c "'$PROGS/pingpong' 1000; '$PROGS/twothreads' 51" >/dev/null 2>&1 ||
		fail "perf record of the scheduler's events failed"
	same sched-migration sched.data sched-migration.py
	grep -qE '^  cpu [0-9]+: 0 ' "$TMP/out" || fail "sched-migration printed no runqueue"
}
# wakeup-latency.pl lists the events it does not handle in a hash's order: sorted here
wakeup_latency() {
	[ -s sched.data ] || fail "no sched.data: the sched-migration case did not record it"
	perf script -i sched.data -s wakeup-latency.pl 2>/dev/null | sort > orig.txt
	expect_status 0 "$LUAPROF" run wakeup-latency -i sched.data
	sort "$TMP/out" | diff orig.txt - || fail "wakeup-latency differs from wakeup-latency.pl"
	grep -qE '^total_wakeups: [1-9]' "$TMP/out" || fail "wakeup-latency counted no wake-up"
	echo "wakeup-latency: the same $(wc -l < orig.txt) lines"
}
# event_analyzing_sample
event_analyzing() {
	perf record -q -e cpu-clock,page-faults -F 2000 -o eas.data -- "$PROGS/faults" 8 >/dev/null 2>&1 ||
		fail "perf record of cpu-clock and page-faults failed"
	same event_analyzing_sample eas.data event_analyzing_sample.py
	grep -qE '^ +faults +[0-9]+ +#+$' "$TMP/out" || fail "event_analyzing_sample: no faults row"
}

# Util.strerror's names (Python's errno.errorcode) for every error number:
# the run above meets only the errors its recording holds (a machine's
# other processes may fail with any, 95 named ENOTSUP, not EOPNOTSUPP)
strerror_names() {
	# (a helper: found where the shipped scripts find it)
	cat > names.lua <<LUA
package.path = "$ROOT/lua/helpers/?.lua;" .. package.path
local perfpy = require "perfpy"
function on_end() for n = 1, 140 do print(n .. " " .. perfpy.strerror(-n)) end end
LUA
	expect_status 0 "$LUAPROF" run ./names.lua -- true
	# the numbers this Python names (its errno may lack the kernel's
	# newest: 3.11 has no EHWPOISON)
	python3 -c 'import errno
for n in range(1, 141):
    if n in errno.errorcode: print(n, errno.errorcode[n])' > py.txt
	awk 'NR == FNR { want[$1] = 1; next } $1 in want' py.txt "$TMP/out" > ours.txt
	diff py.txt ours.txt || fail "perfpy.strerror names errors otherwise than Util.strerror"
	echo "strerror: $(wc -l < py.txt) error numbers named as Util.strerror names them"
}

for s in syscall-counts syscall-counts-by-pid failed-syscalls-by-pid; do
	scenario "$s" same "$s" sys.data "$PY/$s.py"
	scenario "$s preadwrite" same "$s" sys.data "$PY/$s.py" preadwrite
	if [ $s = failed-syscalls-by-pid ]; then
		scenario "$s sysmix" failed_sysmix
	else
		scenario "$s sysmix" same "$s" sys.data "$PY/$s.py" sysmix
	fi
done
scenario "syscall-counts-by-pid PID" by_pid syscall-counts-by-pid
scenario "failed-syscalls-by-pid PID" by_pid failed-syscalls-by-pid
scenario "audit's names" audit_names
scenario "Util.strerror's names" strerror_names
scenario "sctop" sctop
scenario "sched-migration" sched_migration
scenario "wakeup-latency" wakeup_latency
scenario "event_analyzing_sample" event_analyzing
scenarios_done
