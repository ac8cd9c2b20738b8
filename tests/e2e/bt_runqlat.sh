# runqlat beside bpftrace's runqlat.bt on toolwork runq 300 (two
# children, tw-runq, pinned to CPU 0 for 300 ms: a real-time one waking
# every millisecond, and one in the kernel reading /dev/zero, which the
# other's wake-ups preempt: waits after wake-ups, and after preemptions).  The .bt does
# not compile here (its #include <linux/sched.h> fails on Debian's
# headers, for TASK_RUNNING): it is run with TASK_RUNNING written as 0, and
# kept to the workload's threads by their name (/args->comm == "tw-runq"/
# on wake-ups, the same on switches out), as luaprof's --comm=tw-runq
# does.  What luaprof does better: bpftrace's tool queues a switched-out
# thread only when prev_state == TASK_RUNNING, but a preempted thread
# reports TASK_REPORT_MAX (0x100) there, so the .bt leaves out every wait
# after a preemption in the kernel; luaprof counts them.  So the .bt is run once more
# with the preempted state too, and luaprof's histogram must be that one:
# the same count of waits (but for a race or two), and the same buckets but for a few waits on
# either side of a power of two (each tool reads its clock a moment apart
# at each event, and the apart is not the same at a wake-up and at a
# switch: the waits of 8-30 us bunch up, and one run saw 26 of 471 on the
# other side of 16 us; at each bucket's edge, at most 10% of the waits are
# on the other side), and the .bt as it is must count fewer.  TOOLWORK_BUSY
# keeps every CPU off its idle task: this kernel records no perf
# tracepoint hit while one CPU's idle task runs (a timer's wake-up
# interrupting it, its switch out), for perf as for luaprof.
# test: alone
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/lib_bt.sh"
need_bpftrace
cd "$TMP"
sed -e '/^#include/d' -e 's/== TASK_RUNNING/== 0/' \
	-e 's|^tracepoint:sched:sched_wakeup_new$|& /args->comm == "tw-runq"/|' \
	-e 's|if (args->prev_state == 0) {|if (args->prev_comm == "tw-runq" \&\& args->prev_state == 0) {|' \
	"$(bt_tool runqlat)" > runqlat.bt
grep -q 'args->prev_comm == "tw-runq" && args->prev_state == 0)' runqlat.bt && grep -q '/args->comm == "tw-runq"/' runqlat.bt ||
	fail "runqlat.bt is not the one this test knows (no 'args->prev_state == TASK_RUNNING', no sched_wakeup_new line)"
sed 's/args->prev_state == 0)/(args->prev_state == 0 || args->prev_state == 0x100))/' runqlat.bt > preempt.bt
bt_start runqlat.bt
BT1=$BT_PID BT1_OUT=$BT_OUT
BT_OUT=$TMP/bt2.out
bt_start preempt.bt
TOOLWORK_BUSY=1 expect_status 0 "$LUAPROF" run runqlat --comm=tw-runq -- "$PROGS/toolwork" runq 300
cp "$TMP/out" lp.out
bt_stop
BT_PID=$BT1 BT_OUT=$BT1_OUT
bt_stop
hist() { awk '/^@usecs: $/ {on = 1; next} on && /^$/ {on = 0}
	on {sub(/ +\|.*$/, ""); c = $NF; sub(/ +[0-9]+$/, ""); print $0 "\t" c}' "$1"; }
hist lp.out > lp.hist
hist bt.out > bt.hist
hist bt2.out > bt2.hist
python3 - bt.hist bt2.hist lp.hist > cmp.txt 2>&1 <<'PY' || { cat lp.out; echo "--- bpftrace:"; cat bt2.out; fail "runqlat's histogram differs from the .bt's: $(tail -1 cmp.txt)"; }
import sys
def read(p):
    return [(k, int(v)) for k, v in (l.split("\t") for l in open(p).read().splitlines())]
def lo(k):       # a bucket's lower edge in us: "[4, 8)" -> 4, "[1K, 2K)" -> 1024
    t = k.strip("[)").split(",")[0].strip()
    return int(t[:-1]) * {"K": 1024, "M": 1 << 20}[t[-1]] if t[-1] in "KM" else int(t)
asis, bt, lp = (dict(read(a)) for a in sys.argv[1:4])
n = sum(lp.values())
assert n >= 100, "luaprof's histogram holds %d waits: fewer than toolwork's 2 x 100 sleeps make" % n
# the same waits, but for a race or two: a wake-up on one CPU of a thread
# the other is switching in, which bpftrace's per-CPU probes may see in
# either order, luaprof in the order of their times
assert abs(sum(bt.values()) - n) <= max(2, n // 100), \
    "%d waits in bpftrace's histogram, %d in luaprof's" % (sum(bt.values()), n)
edges = sorted(set(bt) | set(lp), key=lo)
cb = cl = worst = 0
for k in edges:     # waits below the edge above k, in each
    cb, cl = cb + bt.get(k, 0), cl + lp.get(k, 0)
    worst = max(worst, abs(cb - cl))
assert worst <= max(3, n // 10), "%d waits on the other side of an edge: bpftrace %s, luaprof %s" % (worst, bt, lp)
assert sum(asis.values()) < n, "the .bt as it is counted %d waits, luaprof %d" % (sum(asis.values()), n)
print("%d waits, at most %d across a bucket's edge; the .bt as it is, without the preempted: %d" % (
    n, worst, sum(asis.values())))
PY
echo "runqlat: $(tail -1 cmp.txt)"
exit 0
