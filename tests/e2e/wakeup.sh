# wakeup against an independent count from perf script's text of one perf
# recording (perf record -a -e sched:sched_wakeup,sched:sched_switch) of
# pingpong (two processes passing a byte 2000 times, each pass waking the
# other): the waker -> wakee pairs with their counts, and per woken thread
# the count, average and maximum of its latencies (wake-up to switch in,
# whole microseconds), exactly.  Live (where the switch records end the
# waits whose switch in sched_switch left out, as a kernel may leave out
# every one from a CPU's idle task): the two pingpong processes wake each
# other 1-2000 times each way (a reader still running when the byte comes
# is not woken, so not every pass is a wake-up: few on a quiet machine,
# most on a loaded one), and the latency
# histograms hold exactly the wake-ups (from any waker) that were
# followed by a switch in.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
need_tracefs
[ "$(id -u)" = 0 ] || skip "system-wide tracepoints need root"
command -v perf >/dev/null || skip "perf is not installed: nothing to compare with"
cd "$TMP"
perf record -q -a -e sched:sched_wakeup,sched:sched_switch -o wk.data -- "$PROGS/pingpong" 2000 >/dev/null 2>&1 ||
	fail "perf record -a of the sched tracepoints failed"
perf script -i wk.data --ns > wk.txt 2>/dev/null || fail "perf script failed"
expect_status 0 "$LUAPROF" run wakeup --limit=100000 -i wk.data
python3 - wk.txt "$TMP/out" 2> py.err <<'PY' || fail "wakeup differs from the count made from perf script: $(tail -1 py.err)"
import re, sys
# a task that is exiting (prev_state=X) has no pid left to give its
# samples: perf script prints them as ":-1    -1"
head = re.compile(r"^\s*(.+?)\s+(-?\d+)\s+\[\d+\]\s+(\d+)\.(\d+):\s+sched:(sched_wakeup|sched_switch):\s+(.*)$")
pairs, woken, lat = {}, {}, {}
for line in open(sys.argv[1]):
    m = head.match(line)
    if not m:
        continue
    comm, tid, t, ev, rest = m.group(1), int(m.group(2)), int(m.group(3)) * 10**9 + int(m.group(4)), m.group(5), m.group(6)
    if ev == "sched_wakeup":
        w = re.match(r"comm=(.*) pid=(\d+) prio=", rest)
        key = (comm, tid, w.group(1), int(w.group(2)))
        pairs[key] = pairs.get(key, 0) + 1
        woken[int(w.group(2))] = t
    else:
        nxt = int(re.search(r" next_pid=(\d+) ", rest).group(1))
        if nxt in woken:
            lat.setdefault(nxt, []).append((t - woken.pop(nxt)) // 1000)
ours = open(sys.argv[2]).read()
rows = {}
for l in ours.split("# who wakes whom\n", 1)[1].split("\n\n")[0].splitlines()[1:]:
    # a command name may hold spaces ("V8 Worker") or be empty, a pid be
    # -1 (a task exiting): the numbers anchor it
    m = re.match(r"^(?:(.*?)\s+)?(-?\d+)\s+(?:(.*?)\s+)?(-?\d+)\s+(\d+)$", l.strip())
    assert m, "a row of luaprof's that is not WAKER PID WAKEE PID COUNT: %r" % l
    f = [g or "" for g in m.groups()]
    rows[(f[0], int(f[1]), f[2], int(f[3]))] = int(f[4])
assert rows == pairs, "pairs: %d in luaprof, %d from perf script; differing: %s" % (
    len(rows), len(pairs), sorted(set(rows.items()) ^ set(pairs.items()))[:5])
threads = dict((int(t), (int(n), a, int(mx))) for t, n, a, mx in
               re.findall(r"\(tid (\d+)\): (\d+) wake-ups, latency avg ([0-9.]+) us, max (\d+) us", ours))
want = dict((t, (len(v), "%.1f" % (sum(v) / len(v)), max(v))) for t, v in lat.items())
assert threads == want, "latencies: %s" % sorted(set(threads.items()) ^ set(want.items()))[:5]
print("wakeup: %d pairs and %d threads' latencies as perf script gives them" % (len(pairs), len(want)))
PY
# live
expect_whole 0 "$LUAPROF" run wakeup --limit=100000 -- "$PROGS/pingpong" 2000
python3 - "$TMP/out" 2> py.err <<'PY' || { cat "$TMP/out"; fail "live: the pingpong wake-ups are wrong: $(tail -1 py.err)"; }
import re, sys
text = open(sys.argv[1]).read()
pp = [(int(a), int(b), int(n)) for a, b, n in re.findall(r"^pingpong +(\d+) +pingpong +(\d+) +(\d+)$", text, re.M)]
assert len(pp) == 2 and pp[0][0] == pp[1][1] and pp[0][1] == pp[1][0], pp
# few on a quiet machine (the reader is often still running); one more
# for the parent, which the child's exit wakes in waitpid
assert all(1 <= n <= 2001 for _, _, n in pp), pp
# each pingpong's wake-ups from every waker (on an idle CPU the idle task,
# swapper, does most of them: the wake-up is queued to the wakee's CPU)
table = text.split("# who wakes whom\n", 1)[1].split("\n\n")[0].splitlines()[1:]
woken = {}
for row in table:
    f = row.split()
    woken[int(f[-2])] = woken.get(int(f[-2]), 0) + int(f[-1])
for wakee in (b for _, b, _ in pp):
    n = woken[wakee]
    m = re.search(r"\(tid %d\): (\d+) wake-ups" % wakee, text)
    assert m and int(m.group(1)) <= n + 1 and int(m.group(1)) >= n - 2, (wakee, n, m and m.group(1))
print("live: pingpong wake-ups", [n for _, _, n in pp])
PY
exit 0
